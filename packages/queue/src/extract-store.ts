import type { Redis } from 'ioredis';
import type { ExtractRequest, ExtractStatus } from '@trawl/api-schema';
import type { CrawlRecord } from './crawl-store.js';
import type { ExtractJob } from './job-catalog.js';
import type { QueueSet } from './queue-set.js';
import type { RedisKeys } from './redis-keys.js';
import { defineScript } from './redis-script.js';

/** An extract job as stored. Times are ms since epoch. */
export interface ExtractRecord {
  id: string;
  teamId: string;
  status: ExtractStatus;
  /** The validated request (defaults applied). */
  request: ExtractRequest;
  /** The request's valid URLs, `/*` ones as given (the worker expands them). */
  urls: string[];
  createdAt: number;
  completedAt?: number;
  /** How long the record stays after the end (and at most while it runs), seconds. */
  retentionSec: number;
  zeroDataRetention: boolean;
  /** The internal batch scrape of the pages, once started. */
  batchId?: string;
  /** The pages to read (URLs expanded and capped), once listed. */
  pages?: string[];
  /** Warnings of the start step (page cap, a map that failed), kept for the final `warning`. */
  startWarnings: string[];
  /** Credits of the web search that found pages (`enableWebSearch`), once listed. */
  searchCredits?: number;
  /** The merged extraction, once completed. */
  data: unknown;
  sources?: Record<string, string[]>;
  error?: string;
  warning?: string;
  tokensUsed: number;
  creditsUsed: number;
}

/** Input of {@link ExtractStore.create}. */
export type NewExtract = Pick<ExtractRecord, 'id' | 'teamId' | 'request' | 'urls' | 'retentionSec' | 'zeroDataRetention'> & { createdAt?: number };

/** The end of an extract for {@link ExtractStore.finish}. */
export interface ExtractOutcome {
  status: Exclude<ExtractStatus, 'processing'>;
  data?: unknown;
  sources?: Record<string, string[]>;
  error?: string;
  warning?: string;
  tokensUsed?: number;
  creditsUsed?: number;
}

/**
 * FINISH: ends an extract still `processing` (the first ending wins: a cancel racing the last step,
 * a retried step after a crash), and fixes its expiry at end + retention.
 * KEYS[1] the extract hash. ARGV[1] status, ARGV[2] completedAt (ms), ARGV[3] retention (s),
 * ARGV[4..] field/value pairs to set. Returns 1 when this call ended it, else 0.
 */
const finishScript = defineScript({
  name: 'trawlExtractFinish',
  numberOfKeys: 1,
  lua: `
if redis.call('HGET', KEYS[1], 'status') ~= 'processing' then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'completedAt', ARGV[2])
for i = 4, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1`,
  decode: (reply) => Number(reply) === 1,
});

/**
 * Extract records in Redis (owner of the `{x:ID}` key family): one hash per extract, expiring at a
 * fixed time (creation + retention while it runs, end + retention after).
 */
export class ExtractStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async create(extract: NewExtract): Promise<ExtractRecord> {
    const createdAt = extract.createdAt ?? Date.now();
    const key = this.keys.extract(extract.id);
    await this.redis.multi()
      .hset(key, {
        teamId: extract.teamId, status: 'processing', request: JSON.stringify(extract.request), urls: JSON.stringify(extract.urls),
        createdAt, retentionSec: extract.retentionSec, zdr: extract.zeroDataRetention ? '1' : '0', tokensUsed: 0, creditsUsed: 0,
      })
      .expire(key, extract.retentionSec)
      .exec();
    return (await this.get(extract.id))!;
  }

  async get(id: string): Promise<ExtractRecord | null> {
    const h = await this.redis.hgetall(this.keys.extract(id));
    if (!h.status || !h.teamId) return null;
    return {
      id,
      teamId: h.teamId,
      status: h.status as ExtractStatus,
      request: JSON.parse(h.request ?? '{}') as ExtractRequest,
      urls: JSON.parse(h.urls ?? '[]') as string[],
      createdAt: Number(h.createdAt ?? 0),
      ...(h.completedAt ? { completedAt: Number(h.completedAt) } : {}),
      retentionSec: Number(h.retentionSec ?? 86_400),
      zeroDataRetention: h.zdr === '1',
      ...(h.batchId ? { batchId: h.batchId } : {}),
      ...(h.pages ? { pages: JSON.parse(h.pages) as string[] } : {}),
      startWarnings: JSON.parse(h.startWarnings ?? '[]') as string[],
      ...(h.searchCredits ? { searchCredits: Number(h.searchCredits) } : {}),
      data: h.data !== undefined ? (JSON.parse(h.data) as unknown) : null,
      ...(h.sources ? { sources: JSON.parse(h.sources) as Record<string, string[]> } : {}),
      ...(h.error ? { error: h.error } : {}),
      ...(h.warning ? { warning: h.warning } : {}),
      tokensUsed: Number(h.tokensUsed ?? 0),
      creditsUsed: Number(h.creditsUsed ?? 0),
    };
  }

  /** Records the pages to read, the internal batch that scrapes them, the start step's warnings and its search credits. */
  async started(id: string, batchId: string, pages: readonly string[], warnings: readonly string[], searchCredits = 0): Promise<void> {
    await this.redis.hset(this.keys.extract(id), {
      batchId, pages: JSON.stringify(pages), startWarnings: JSON.stringify(warnings), searchCredits: String(searchCredits),
    });
  }

  /**
   * Marks a one-time effect (`started`/`ended` webhooks, the `charged` credits and tokens) as done;
   * true only for the first caller, so a retried step never does it twice.
   */
  async claimOnce(id: string, effect: 'started' | 'charged' | 'ended'): Promise<boolean> {
    return (await this.redis.hsetnx(this.keys.extract(id), `once:${effect}`, '1')) === 1;
  }

  /** Ends an extract still processing; false when it had already ended (nothing changed). */
  async finish(id: string, outcome: ExtractOutcome, opts: { now?: number; retentionSec: number }): Promise<boolean> {
    const fields: (string | number)[] = [];
    if (outcome.data !== undefined) fields.push('data', JSON.stringify(outcome.data));
    if (outcome.sources !== undefined) fields.push('sources', JSON.stringify(outcome.sources));
    if (outcome.error !== undefined) fields.push('error', outcome.error);
    if (outcome.warning !== undefined) fields.push('warning', outcome.warning);
    if (outcome.tokensUsed !== undefined) fields.push('tokensUsed', outcome.tokensUsed);
    if (outcome.creditsUsed !== undefined) fields.push('creditsUsed', outcome.creditsUsed);
    return finishScript.run(this.redis, [this.keys.extract(id)], [outcome.status, opts.now ?? Date.now(), opts.retentionSec, ...fields]);
  }
}

/** When an extract's results expire: a fixed time (creation + retention while it runs, end + retention after). */
export function extractExpiresAt(extract: Pick<ExtractRecord, 'createdAt' | 'completedAt' | 'retentionSec'>): Date {
  return new Date((extract.completedAt ?? extract.createdAt) + extract.retentionSec * 1000);
}

/** Queues the start step of an extract (idempotent per extract). */
export async function queueExtractStart(queues: QueueSet, extract: Pick<ExtractRecord, 'id' | 'teamId'>): Promise<void> {
  const job: ExtractJob = { v: 1, kind: 'start', extractId: extract.id, teamId: extract.teamId };
  await queues.get('extract').add('start', job, { jobId: `start-${extract.id}` });
}

/**
 * The `onEnded` hook of a CrawlCoordinator for extracts: the batch scrape of an extract's pages ended
 * (last page, watchdog, or cancel), so its `finish` step runs (one job per extract).
 */
export function extractBatchEnded(queues: QueueSet): (crawl: CrawlRecord) => Promise<void> {
  return async (crawl) => {
    if (crawl.extract === undefined) return;
    const job: ExtractJob = { v: 1, kind: 'finish', extractId: crawl.extract.extractId, teamId: crawl.teamId };
    await queues.get('extract').add('finish', job, { jobId: `finish-${crawl.extract.extractId}` });
  };
}
