import type { Redis } from 'ioredis';
import type { Document, ErrorData } from '@trawl/api-schema';
import type { RedisKeys } from './redis-keys.js';

/** The final outcome of a job, as stored for the caller: a scrape's Document (a map's link list). */
export type JobOutcome<T = Document> =
  | { ok: true; document: T }
  | { ok: false; error: ErrorData };

export interface StoredResult<T = Document> {
  jobId: string;
  teamId: string;
  finishedAt: string;
  outcome: JobOutcome<T>;
}

/**
 * Largest stored result (JSON characters) sent inside its announcement on the results channel. Every
 * gateway receives every announcement: larger ones carry only the job id.
 */
export const INLINE_RESULT_BYTES = 64 * 1024;

export interface ResultStoreOptions {
  /** How long results are kept, seconds. Default 86400 (24 h). */
  retentionSec?: number;
  /** How long a zero-data-retention result stays for its waiting caller, seconds. Default 60. */
  zdrRetentionSec?: number;
}

/**
 * Final job outcomes, written once by the worker that finished the job, with a notification on the
 * results channel so waiting gateways wake at once (no polling).
 */
export class ResultStore {
  private readonly retentionSec: number;
  private readonly zdrRetentionSec: number;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    opts: ResultStoreOptions = {},
  ) {
    this.retentionSec = opts.retentionSec ?? 86_400;
    this.zdrRetentionSec = opts.zdrRetentionSec ?? 60;
  }

  /**
   * Stores the outcome and announces it (unless `announce` is false: nobody waits for a result the
   * gateway answered itself). A zero-data-retention result is kept only briefly. The writes and the
   * announcement are sent together (one round trip); a result up to {@link INLINE_RESULT_BYTES} rides
   * in the announcement itself, so the woken waiter does not read it back. A larger one is announced
   * by id once it is written.
   */
  async put<T = Document>(result: StoredResult<T>, opts: { zeroDataRetention: boolean; announce?: boolean }): Promise<void> {
    const ttl = opts.zeroDataRetention ? this.zdrRetentionSec : this.retentionSec;
    const json = JSON.stringify(result);
    const inline = json.length <= INLINE_RESULT_BYTES;
    await Promise.all([
      this.redis.set(this.keys.result(result.jobId), json, 'EX', ttl),
      result.outcome.ok ? this.redis.set(this.keys.lastSuccess(result.teamId), result.finishedAt) : undefined,
      opts.announce !== false && inline ? this.redis.publish(this.keys.resultsChannel(), `${result.jobId}\n${json}`) : undefined,
    ]);
    if (opts.announce !== false && !inline) await this.redis.publish(this.keys.resultsChannel(), result.jobId);
  }

  async get<T = Document>(jobId: string): Promise<StoredResult<T> | null> {
    const raw = await this.redis.get(this.keys.result(jobId));
    return raw ? (JSON.parse(raw) as StoredResult<T>) : null;
  }

  async delete(jobId: string): Promise<void> {
    await this.redis.del(this.keys.result(jobId));
  }

  async lastSuccess(teamId: string): Promise<string | null> {
    return this.redis.get(this.keys.lastSuccess(teamId));
  }
}
