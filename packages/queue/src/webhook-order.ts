import type { Redis } from 'ioredis';
import type { WebhookEventType } from '@trawl/api-schema';
import type { RedisKeys } from './redis-keys.js';

/** Page events whose deliveries a crawl's terminal event waits for. */
const PAGE_EVENTS: ReadonlySet<string> = new Set<WebhookEventType>(['crawl.page', 'batch_scrape.page']);
/** A crawl's terminal events: delivered only once its page deliveries are. */
const TERMINAL_EVENTS: ReadonlySet<string> = new Set<WebhookEventType>(['crawl.completed', 'crawl.failed', 'batch_scrape.completed', 'batch_scrape.failed']);

/** Whether a delivery of `type` is a crawl's page event (tracked until it is delivered or given up). */
export const isCrawlPageEvent = (type: string): boolean => PAGE_EVENTS.has(type);
/** Whether a delivery of `type` is a crawl's terminal event (held until the crawl's page deliveries end). */
export const isCrawlTerminalEvent = (type: string): boolean => TERMINAL_EVENTS.has(type);

/** State of a webhook job as BullMQ reports it (`Queue.getJobState`). */
export type WebhookJobState = 'completed' | 'failed' | 'active' | 'delayed' | 'prioritized' | 'waiting' | 'waiting-children' | 'unknown';

/** Options of {@link WebhookOrder}. */
export interface WebhookOrderOptions {
  /**
   * How long a tracked job that BullMQ does not know (yet) counts as pending, ms: its producer
   * records it just before adding it, and may have died in between. Default 30 000.
   */
  graceMs?: number;
  now?: () => number;
}

/** How long a crawl's record of pending page deliveries lives after its last page job was queued, ms. */
const PENDING_TTL_MS = 24 * 3600_000;

/**
 * Delivery order of a crawl's webhooks: its terminal event (`completed` / `failed`) is POSTed only
 * after every page delivery of the crawl queued before it has been delivered or given up. Page
 * deliveries run in parallel jobs (and a batched job POSTs for a while), so without this the
 * terminal job, queued last, could be delivered first.
 *
 * Key `<p>:{c:ID}:webhooks` (the crawl's hash tag, one key per command: Cluster-safe): a zset of the
 * crawl's page delivery jobs not known to have ended, jobId -> time queued (ms). The producer adds a
 * job just before queueing it ({@link track}); the delivering worker removes it when the job ends
 * ({@link settled}); the terminal job reads it ({@link pending}) and goes back to the queue, delayed,
 * while any is pending: no worker waits. Robust to crashes: an entry left behind (a worker died, a
 * job failed by the stalled check) is dropped once BullMQ reports its job completed, failed or
 * gone, so nothing waits for good; the set disappears with its last entry, and expires a day after
 * the crawl's last page job was queued.
 */
export class WebhookOrder {
  private readonly graceMs: number;
  private readonly now: () => number;

  constructor(private readonly redis: Redis, private readonly keys: RedisKeys, opts: WebhookOrderOptions = {}) {
    this.graceMs = opts.graceMs ?? 30_000;
    this.now = opts.now ?? Date.now;
  }

  /** The crawl's zset of pending page delivery jobs. */
  key(crawlId: string): string {
    return this.keys.crawlWebhooks(crawlId);
  }

  /**
   * Records a page delivery job of a crawl as pending. Call it just before adding the job, on the
   * connection that adds it: its commands go first, so no terminal check can miss the job.
   */
  track(crawlId: string, jobId: string): Promise<void> {
    const key = this.key(crawlId);
    return Promise.all([this.redis.zadd(key, this.now(), jobId), this.redis.pexpire(key, PENDING_TTL_MS)]).then(() => undefined);
  }

  /** A page delivery job ended (delivered, or given up): it holds its crawl's terminal event no more. */
  async settled(crawlId: string, jobId: string): Promise<void> {
    await this.redis.zrem(this.key(crawlId), jobId);
  }

  /**
   * How many page delivery jobs of the crawl may still POST. Entries whose job has ended (or is gone,
   * past the grace) are dropped on the way: a worker that died before {@link settled} holds nothing.
   * @param stateOf the BullMQ state of a webhook job.
   */
  async pending(crawlId: string, stateOf: (jobId: string) => Promise<WebhookJobState>): Promise<number> {
    const key = this.key(crawlId);
    const entries = await this.redis.zrange(key, 0, -1, 'WITHSCORES');
    if (entries.length === 0) return 0;
    const now = this.now();
    const jobs: { jobId: string; queuedAt: number }[] = [];
    for (let i = 0; i + 1 < entries.length; i += 2) jobs.push({ jobId: entries[i]!, queuedAt: Number(entries[i + 1]) });
    const states = await Promise.all(jobs.map((j) => stateOf(j.jobId)));
    const ended = jobs.filter((j, i) => {
      const state = states[i]!;
      return state === 'completed' || state === 'failed' || (state === 'unknown' && now - j.queuedAt >= this.graceMs);
    });
    if (ended.length > 0) await this.redis.zrem(key, ...ended.map((j) => j.jobId));
    return jobs.length - ended.length;
  }
}
