import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RedisKeys } from './redis-keys.js';
import { documentJsonIn, type ResultStore, type StoredResult } from './result-store.js';
import { hopTimingOn, recordHop } from './hop-timing.js';

interface Waiter {
  resolve: (r: StoredResult | null) => void;
  timer: NodeJS.Timeout;
}

/**
 * Lets a gateway wait for job outcomes: one subscriber connection per process listens to its own
 * results channel (named by {@link replyTo}, which the jobs it submits carry) and to the shared one
 * (outcomes of jobs whose producer named no waiter), and wakes the matching waiter. An outcome is
 * thus received by the one process waiting for it, not by every gateway and worker. A notification
 * missed during a reconnect is covered by re-reading the store for every waiter when the
 * subscription is back, and once more at the deadline.
 */
export class ResultWaiter {
  /** The id a job names as its `replyTo`: its outcome is announced on this waiter's channel only. */
  readonly replyTo = randomUUID();
  private readonly waiters = new Map<string, Set<Waiter>>();
  /** The document JSON of outcomes handed over in this process with it, or read with it (see {@link documentJsonOf}). */
  private readonly documentJsons = new WeakMap<StoredResult<unknown>, string>();
  private started = false;
  private isClosed = false;

  constructor(
    private readonly subscriber: Redis,
    private readonly keys: RedisKeys,
    private readonly store: ResultStore,
  ) {}

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.subscriber.on('message', (_channel: string, message: string) => this.onAnnounce(message));
    this.subscriber.on('ready', () => {
      for (const jobId of this.waiters.keys()) void this.check(jobId);
    });
    await this.subscriber.subscribe(this.keys.resultsChannel(), this.keys.replyChannel(this.replyTo));
  }

  /**
   * An announcement (see ResultStore.put): `<jobId>` alone, or `<jobId>\n<result JSON>`. Only a job
   * this process waits for is parsed; one without its result is read from the store.
   */
  private onAnnounce(message: string): void {
    const nl = message.indexOf('\n');
    const jobId = nl < 0 ? message : message.slice(0, nl);
    if (!this.waiters.has(jobId)) return;
    if (nl < 0) {
      void this.check(jobId);
      return;
    }
    const json = message.slice(nl + 1);
    let result: StoredResult;
    try {
      result = JSON.parse(json) as StoredResult;
    } catch {
      void this.check(jobId);
      return;
    }
    // From the outcome's timestamp (before the worker charged and stored it) to here.
    if (hopTimingOn()) recordHop('gateway:wake', Date.now() - Date.parse(result.finishedAt));
    this.settle(jobId, this.withJson(jobId, result, json));
  }

  /**
   * Resolves with the job's outcome, or null if none arrived within `timeoutMs`. Call before (or
   * right after) enqueueing: an outcome already stored is found by the initial read. A caller that
   * waits before it submits the job (`beforeSubmit`) skips that read: nothing can be stored yet, and
   * the announcement cannot be missed (the subscription is up before any wait).
   */
  wait(jobId: string, timeoutMs: number, opts: { beforeSubmit?: boolean } = {}): Promise<StoredResult | null> {
    return new Promise((resolve) => {
      const waiter: Waiter = {
        resolve,
        timer: setTimeout(() => void this.expire(jobId, waiter), Math.max(0, timeoutMs)),
      };
      let set = this.waiters.get(jobId);
      if (!set) this.waiters.set(jobId, (set = new Set()));
      set.add(waiter);
      if (!opts.beforeSubmit) void this.check(jobId);
    });
  }

  /** Someone in this process waits for the job (see ResultStore.deliverLocally). */
  waitsFor(jobId: string): boolean {
    return this.waiters.has(jobId);
  }

  /** An outcome handed over in this process, as it is stored (see ResultStore.deliverLocally): settles its waiters. */
  deliver(result: StoredResult<unknown>, documentJson?: string): void {
    if (hopTimingOn()) recordHop('gateway:wake', Date.now() - Date.parse(result.finishedAt));
    if (documentJson !== undefined) this.documentJsons.set(result, documentJson);
    this.settle(result.jobId, result as StoredResult);
  }

  /**
   * `JSON.stringify` of the document of an outcome {@link wait} resolved with, when it was handed over
   * in this process with it, or announced or read as stored (the document's text cut out of the
   * outcome's, {@link documentJsonIn}): the answer can send it instead of writing the document out
   * again. Valid only while the document is unchanged (a caller that changes it serializes it itself).
   */
  documentJsonOf(result: StoredResult<unknown>): string | undefined {
    return this.documentJsons.get(result);
  }

  /** Number of callers currently waiting (for metrics and shutdown). */
  get size(): number {
    let n = 0;
    for (const s of this.waiters.values()) n += s.size;
    return n;
  }

  private async check(jobId: string): Promise<void> {
    if (!this.waiters.has(jobId)) return;
    const read = await this.store.getWithJson(jobId).catch(() => null);
    if (read) this.settle(jobId, this.withJson(jobId, read.result as StoredResult, read.json));
  }

  /** `result`, its document's JSON remembered when `json` (the text it was parsed from) holds it as stored. */
  private withJson(jobId: string, result: StoredResult, json: string): StoredResult {
    const documentJson = result?.jobId === jobId ? documentJsonIn(json, result) : undefined;
    if (documentJson !== undefined) this.documentJsons.set(result, documentJson);
    return result;
  }

  private async expire(jobId: string, waiter: Waiter): Promise<void> {
    // The deadline is now: a Redis that is away (restarting) is not waited for, the caller answers.
    const read = this.subscriber.status === 'ready' ? await this.store.getWithJson(jobId).catch(() => null) : null;
    const set = this.waiters.get(jobId);
    if (!set?.has(waiter)) return;
    set.delete(waiter);
    if (set.size === 0) this.waiters.delete(jobId);
    waiter.resolve(read ? this.withJson(jobId, read.result as StoredResult, read.json) : null);
  }

  private settle(jobId: string, result: StoredResult): void {
    const set = this.waiters.get(jobId);
    if (!set) return;
    this.waiters.delete(jobId);
    for (const w of set) {
      clearTimeout(w.timer);
      w.resolve(result);
    }
  }

  /** Stops waiting for one job: its waiters resolve with null now (the caller gave up on it). */
  cancel(jobId: string): void {
    const set = this.waiters.get(jobId);
    if (!set) return;
    this.waiters.delete(jobId);
    for (const w of set) {
      clearTimeout(w.timer);
      w.resolve(null);
    }
  }

  /** True once `close` ran: a null outcome then means the process is stopping, not a timeout. */
  get closed(): boolean {
    return this.isClosed;
  }

  /** Resolves every waiter with null (shutdown). */
  close(): void {
    this.isClosed = true;
    for (const [jobId, set] of this.waiters) {
      this.waiters.delete(jobId);
      for (const w of set) {
        clearTimeout(w.timer);
        w.resolve(null);
      }
    }
  }
}
