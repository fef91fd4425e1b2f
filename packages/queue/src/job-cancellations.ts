import { TrawlError } from '@trawl/api-schema';
import type { Redis } from 'ioredis';
import type { RedisKeys } from './redis-keys.js';

/** How long a cancellation mark is kept, seconds: longer than any job may wait before it starts. Default 1 h. */
const DEFAULT_MARK_TTL_SEC = 3600;

/**
 * Cancellation of work in other processes. The API cancels a sync scrape whose caller went away (or
 * whose answer was already given up), and a crawl or batch that was cancelled: the id (job or crawl)
 * is marked, for a job picked up later, and published, for jobs running now.
 */
export class JobCancellations {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly opts: { markTtlSec?: number } = {},
  ) {}

  /** Marks `id` (a job id or a crawl id) cancelled and tells every worker. */
  async cancel(id: string): Promise<void> {
    await this.redis.multi()
      .set(this.keys.cancelled(id), '1', 'EX', this.opts.markTtlSec ?? DEFAULT_MARK_TTL_SEC)
      .publish(this.keys.cancellationsChannel(), id)
      .exec();
  }

  /**
   * Whether any of `ids` was cancelled. One EXISTS per id, sent together: the marks of different ids
   * hash to different slots, and a multi-key EXISTS across slots fails on Redis Cluster (CROSSSLOT).
   */
  async anyCancelled(ids: readonly string[]): Promise<boolean> {
    const found = await Promise.all(ids.map((id) => this.redis.exists(this.keys.cancelled(id))));
    return found.some((n) => n > 0);
  }
}

/** The reason a cancelled job's signal carries: engines end with this error. */
export function cancelledError(): TrawlError {
  return new TrawlError('JOB_CANCELLED', 'The job was cancelled (its caller went away or its crawl was cancelled)');
}

/** A job's cancellation signal; `dispose` when the job ends. */
export interface CancellationWatch {
  signal: AbortSignal;
  dispose(): void;
}

/**
 * A worker's side of cancellations: one subscriber connection per process; each running job watches
 * its ids and its signal fires when one of them is cancelled, before or while it runs. A message
 * missed during a reconnect is covered by checking the marks of every watched id when the
 * subscription is back.
 */
export class CancellationWatcher {
  private readonly watching = new Map<string, Set<AbortController>>();
  private started = false;

  constructor(
    private readonly subscriber: Redis,
    private readonly keys: RedisKeys,
    private readonly cancellations: JobCancellations,
  ) {}

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.subscriber.on('message', (_channel: string, id: string) => this.fire(id));
    this.subscriber.on('ready', () => {
      for (const id of this.watching.keys()) {
        void this.cancellations.anyCancelled([id]).then((yes) => { if (yes) this.fire(id); }, () => undefined);
      }
    });
    await this.subscriber.subscribe(this.keys.cancellationsChannel());
  }

  /**
   * Watches `ids` (the job's id, its crawl's id); the signal is already aborted when one was cancelled
   * earlier. `readMarks: false` skips that read (one EXISTS per id): for a caller that learns of an
   * earlier cancellation otherwise (a crawl page reads its crawl's status after registering here).
   */
  async watch(ids: readonly string[], opts: { readMarks?: boolean } = {}): Promise<CancellationWatch> {
    const controller = new AbortController();
    for (const id of ids) {
      let set = this.watching.get(id);
      if (!set) this.watching.set(id, (set = new Set()));
      set.add(controller);
    }
    const dispose = () => {
      for (const id of ids) {
        const set = this.watching.get(id);
        set?.delete(controller);
        if (set?.size === 0) this.watching.delete(id);
      }
    };
    // Registered before the read: a cancellation published in between is heard.
    if (opts.readMarks !== false && await this.cancellations.anyCancelled(ids)) controller.abort(cancelledError());
    return { signal: controller.signal, dispose };
  }

  private fire(id: string): void {
    for (const controller of this.watching.get(id) ?? []) controller.abort(cancelledError());
  }
}
