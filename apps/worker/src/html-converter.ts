import { Worker } from 'node:worker_threads';
import { TrawlError } from '@trawl/api-schema';
import { runHtmlPipeline, type HtmlPipelineOptions, type HtmlPipelineResult } from '@trawl/html';

/** Runs the HTML pipeline for a job; the threaded form keeps CPU work off the event loop. */
export interface HtmlConverter {
  convert(rawHtml: string, opts: HtmlPipelineOptions, signal: AbortSignal): Promise<HtmlPipelineResult>;
  close(): Promise<void>;
}

/** Runs the pipeline on the calling thread (tests, and a one-off CLI scrape). */
export class InlineHtmlConverter implements HtmlConverter {
  async convert(rawHtml: string, opts: HtmlPipelineOptions, signal: AbortSignal): Promise<HtmlPipelineResult> {
    signal.throwIfAborted();
    return runHtmlPipeline(rawHtml, opts);
  }
  async close(): Promise<void> {}
}

interface Task {
  id: number;
  rawHtml: string;
  opts: HtmlPipelineOptions;
  signal: AbortSignal;
  resolve: (r: HtmlPipelineResult) => void;
  reject: (e: unknown) => void;
}

interface Slot {
  worker: Worker;
  task: Task | undefined;
}

type ThreadReply = { id: number; result: HtmlPipelineResult } | { id: number; error: string };

/**
 * A fixed pool of worker threads running the HTML pipeline. A conversion that outlives its job's
 * deadline gets its thread terminated and replaced, so a pathological page cannot wedge a worker.
 */
export class ThreadedHtmlConverter implements HtmlConverter {
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly threadScript: URL,
    size: number,
  ) {
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  convert(rawHtml: string, opts: HtmlPipelineOptions, signal: AbortSignal): Promise<HtmlPipelineResult> {
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(new TrawlError('SERVICE_UNAVAILABLE', 'HTML converter closed', { retryable: true }));
      const task: Task = { id: this.nextId++, rawHtml, opts, signal, resolve, reject };
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

  private spawn(): Slot {
    const slot: Slot = { worker: new Worker(this.threadScript), task: undefined };
    slot.worker.on('message', (msg: ThreadReply) => {
      const task = slot.task;
      if (!task || task.id !== msg.id) return;
      slot.task = undefined;
      if ('result' in msg) task.resolve(msg.result);
      else task.reject(new TrawlError('SCRAPE_FAILED', `HTML conversion failed: ${msg.error}`));
      this.pump();
    });
    slot.worker.on('error', (err) => this.replace(slot, err));
    slot.worker.on('exit', (code) => {
      if (!this.closed && this.slots.includes(slot)) this.replace(slot, new Error(`html thread exited with ${code}`));
    });
    slot.worker.unref();
    return slot;
  }

  private replace(slot: Slot, err: unknown): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.slots.splice(i, 1);
    const task = slot.task;
    slot.task = undefined;
    void slot.worker.terminate();
    if (task) task.reject(TrawlError.from(err));
    if (!this.closed) this.slots.push(this.spawn());
    this.pump();
  }

  private abort(task: Task): void {
    const queued = this.queue.indexOf(task);
    if (queued >= 0) this.queue.splice(queued, 1);
    const slot = this.slots.find((s) => s.task === task);
    const reason: unknown = task.signal.reason;
    task.reject(reason instanceof TrawlError ? reason : new TrawlError('SCRAPE_TIMEOUT', 'HTML conversion exceeded the deadline'));
    if (slot) {
      slot.task = undefined;
      this.replace(slot, new Error('aborted'));
    }
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (slot.task) continue;
      const task = this.queue.shift();
      if (!task) return;
      slot.task = task;
      slot.worker.postMessage({ id: task.id, rawHtml: task.rawHtml, opts: task.opts });
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.queue.splice(0)) t.reject(new TrawlError('SERVICE_UNAVAILABLE', 'shutting down', { retryable: true }));
    await Promise.all(this.slots.splice(0).map((s) => s.worker.terminate()));
  }
}
