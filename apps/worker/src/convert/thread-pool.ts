import { Worker, type ResourceLimits, type Transferable } from 'node:worker_threads';
import { TrawlError, isErrorData, type ErrorData } from '@trawl/api-schema';

/** Options of a {@link ThreadPool}. */
export interface ThreadPoolOptions {
  /** What the work is, for error messages (`HTML conversion`, `document parsing`). */
  label: string;
  /** Heap limits of each thread: a task that exceeds them kills only its thread. */
  resourceLimits?: ResourceLimits;
  /** Passed to each thread as `workerData`. */
  workerData?: unknown;
  /** Error code of a task whose thread ran out of memory. Default SCRAPE_FAILED. */
  crashCode?: 'SCRAPE_FAILED' | 'DOCUMENT_TOO_LARGE';
  /**
   * Threads start as tasks arrive (up to the pool's size) and end once idle this long (ms), for work
   * that comes now and then: an idle thread holds its heap and its loaded modules. Unset or 0: the
   * pool's threads start at once and live until it closes.
   */
  idleMs?: number;
}

/** What a thread script posts back: a result, or an error as data (a TrawlError keeps its code). */
export type ThreadReply<R> = { id: number; result: R } | { id: number; error: ErrorData | string };

interface Task<Q, R> {
  id: number;
  request: Q;
  transfer: Transferable[];
  signal: AbortSignal;
  resolve: (r: R) => void;
  reject: (e: unknown) => void;
}

interface Slot<Q, R> {
  worker: Worker;
  task: Task<Q, R> | undefined;
  /** Ends an idle thread (`idleMs`): set while it has no task. */
  idleTimer?: NodeJS.Timeout | undefined;
}

/**
 * A pool of worker threads running one script: `size` threads, started at once, or as tasks need them
 * and ended when idle (`idleMs`). A task that outlives its signal (the job's deadline, shutdown) gets
 * its thread terminated and replaced, and so does a thread that dies under a task (out of memory), so
 * a pathological input cannot wedge or kill the worker process.
 * The script answers `{id, request}` messages with a {@link ThreadReply}.
 */
export class ThreadPool<Q, R> {
  private readonly slots: Slot<Q, R>[] = [];
  private readonly queue: Task<Q, R>[] = [];
  private nextId = 1;
  private closed = false;
  /** `opts.idleMs` when positive: threads on demand, ended when idle. */
  private readonly idleMs: number | undefined;
  /** Threads ended for being idle and still exiting: `close` waits for them too. */
  private readonly retiring = new Set<Promise<number>>();

  constructor(
    private readonly script: URL,
    private readonly size: number,
    private readonly opts: ThreadPoolOptions,
  ) {
    this.idleMs = opts.idleMs !== undefined && opts.idleMs > 0 ? opts.idleMs : undefined;
    if (this.idleMs === undefined) for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  /** Threads running now (started and not yet ended). */
  get threads(): number {
    return this.slots.length;
  }

  run(request: Q, signal: AbortSignal, transfer: Transferable[] = []): Promise<R> {
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(new TrawlError('SERVICE_UNAVAILABLE', `${this.opts.label} is shutting down`));
      if (signal.aborted) return reject(this.abortError(signal));
      const task: Task<Q, R> = { id: this.nextId++, request, transfer, signal, resolve, reject };
      const onAbort = () => this.abort(task);
      signal.addEventListener('abort', onAbort, { once: true });
      const done = <T>(fn: (v: T) => void) => (v: T) => {
        signal.removeEventListener('abort', onAbort);
        fn(v);
      };
      task.resolve = done(resolve);
      task.reject = done(reject);
      this.queue.push(task);
      this.pump();
    });
  }

  private spawn(): Slot<Q, R> {
    const worker = new Worker(this.script, {
      ...(this.opts.resourceLimits ? { resourceLimits: this.opts.resourceLimits } : {}),
      ...(this.opts.workerData !== undefined ? { workerData: this.opts.workerData } : {}),
    });
    const slot: Slot<Q, R> = { worker, task: undefined };
    worker.on('message', (msg: ThreadReply<R>) => {
      const task = slot.task;
      if (!task || task.id !== msg.id) return;
      slot.task = undefined;
      if ('result' in msg) task.resolve(msg.result);
      else task.reject(this.replyError(msg.error));
      this.pump();
    });
    worker.on('error', (err) => this.replace(slot, err));
    worker.on('exit', (code) => {
      if (!this.closed && this.slots.includes(slot)) this.replace(slot, new Error(`thread exited with ${code}`));
    });
    worker.unref();
    return slot;
  }

  private replyError(error: ErrorData | string): TrawlError {
    if (isErrorData(error)) return TrawlError.fromData(error);
    return new TrawlError('SCRAPE_FAILED', `${this.opts.label} failed: ${typeof error === 'string' ? error : String((error as { message?: unknown }).message)}`);
  }

  private replace(slot: Slot<Q, R>, err: unknown): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.slots.splice(i, 1);
    clearTimeout(slot.idleTimer);
    const task = slot.task;
    slot.task = undefined;
    void slot.worker.terminate();
    if (task) {
      const oom = (err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
      task.reject(oom
        ? new TrawlError(this.opts.crashCode ?? 'SCRAPE_FAILED', `${this.opts.label} ran out of memory`, { details: { limit: 'memory' } })
        : TrawlError.from(err));
    }
    // On demand, pump starts the thread the queue needs.
    if (!this.closed && this.idleMs === undefined) this.slots.push(this.spawn());
    this.pump();
  }

  /** Ends a thread that has been idle for `idleMs`. */
  private retire(slot: Slot<Q, R>): void {
    slot.idleTimer = undefined;
    const i = this.slots.indexOf(slot);
    if (i < 0 || slot.task) return;
    this.slots.splice(i, 1);
    const exiting = slot.worker.terminate();
    this.retiring.add(exiting);
    void exiting.finally(() => this.retiring.delete(exiting));
  }

  private abortError(signal: AbortSignal): TrawlError {
    const reason: unknown = signal.reason;
    return reason instanceof TrawlError ? reason : new TrawlError('SCRAPE_TIMEOUT', `${this.opts.label} exceeded the deadline`);
  }

  private abort(task: Task<Q, R>): void {
    const queued = this.queue.indexOf(task);
    if (queued >= 0) this.queue.splice(queued, 1);
    const slot = this.slots.find((s) => s.task === task);
    task.reject(this.abortError(task.signal));
    if (slot) {
      slot.task = undefined;
      this.replace(slot, new Error('aborted'));
    }
  }

  private pump(): void {
    for (const slot of this.slots) {
      // A task that could not be sent leaves its thread free for the next one.
      while (!slot.task && this.queue.length > 0) this.assign(slot, this.queue.shift()!);
    }
    while (this.queue.length > 0 && this.slots.length < this.size && !this.closed) {
      const slot = this.spawn();
      this.slots.push(slot);
      this.assign(slot, this.queue.shift()!);
    }
    const idleMs = this.idleMs;
    if (idleMs === undefined) return;
    for (const slot of this.slots) {
      if (slot.task || slot.idleTimer) continue;
      slot.idleTimer = setTimeout(() => this.retire(slot), idleMs);
      slot.idleTimer.unref();
    }
  }

  /**
   * Sends `task` to the thread. A request that cannot be sent (a value that cannot be cloned, a buffer
   * already transferred) fails its task alone: the thread stays free, and nothing throws here, which
   * runs from the threads' message handlers too (a throw there would end the process).
   */
  private assign(slot: Slot<Q, R>, task: Task<Q, R>): void {
    clearTimeout(slot.idleTimer);
    slot.idleTimer = undefined;
    slot.task = task;
    try {
      slot.worker.postMessage({ id: task.id, request: task.request }, task.transfer);
    } catch (err) {
      slot.task = undefined;
      task.reject(TrawlError.from(err));
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const closing = () => new TrawlError('SERVICE_UNAVAILABLE', 'shutting down');
    for (const t of this.queue.splice(0)) t.reject(closing());
    for (const s of this.slots) {
      clearTimeout(s.idleTimer);
      s.task?.reject(closing());
    }
    await Promise.all([...this.slots.splice(0).map((s) => s.worker.terminate()), ...this.retiring]);
  }
}
