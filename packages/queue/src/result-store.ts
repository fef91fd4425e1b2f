import { promisify } from 'node:util';
import { brotliCompress, brotliDecompress, brotliDecompressSync, constants } from 'node:zlib';
import type { Redis } from 'ioredis';
import type { Document, ErrorData } from '@trawl/api-schema';
import type { RedisKeys } from './redis-keys.js';

const brotliCompressAsync = promisify(brotliCompress);
const brotliDecompressAsync = promisify(brotliDecompress);

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
 * Largest stored result (JSON characters) sent inside its announcement. Redis copies an announcement
 * to every subscriber of its channel (every waiter, for a producer that names none): larger ones
 * carry only the job id, and the waiter reads the result.
 */
export const INLINE_RESULT_BYTES = 64 * 1024;

/**
 * Waiters in this process (embedded mode: the gateway that waits for a job shares the process with the
 * worker that finishes it). A job one of them waits for is handed over as an object and not announced
 * on the results channel: nothing else waits for it (its id is that gateway's own).
 */
export interface LocalResultDelivery {
  /** Someone in this process waits for the job. */
  waitsFor(jobId: string): boolean;
  /**
   * Hands the outcome over: once it is written, or before (ResultStore.put's `handOverFirst`).
   * `documentJson`: `JSON.stringify` of its document, when the store had it (see {@link ResultStore.put}).
   */
  deliver(result: StoredResult<unknown>, documentJson?: string): void;
}

/**
 * With `compress` ({@link ResultStoreOptions}), stored results from this many characters of JSON on
 * are kept compressed (brotli, the cheapest quality):
 * a scrape's document of 11 KiB (the readability corpus' articles as markdown) takes about 2.2x less
 * of the queue Redis for the whole retention (24 h by default). Smaller ones (failures, short pages)
 * are kept as they are, as are zero-data-retention results, kept only until their caller has them.
 * The compression (about 0.13 ms for 12 KiB here) runs on libuv's pool, off the event loop, and
 * while nobody waits for it: after the answer of a result handed over in this process, beside the
 * job's charge otherwise ({@link ResultStore.storedCopy}).
 */
export const COMPRESS_RESULT_MIN_CHARS = 2048;

/** First bytes of a compressed stored result: 0xff never starts JSON text (which a plain one is). */
const PACKED_RESULT = Buffer.from([0xff, 0x01]);

/**
 * Compressed results up to this size are decompressed on the calling thread (about 0.1 ms for 5 KiB,
 * a 12 KiB result); larger ones, up to some 80 KiB of JSON, on libuv's pool.
 */
const INLINE_DECOMPRESS_MAX_BYTES = 16 * 1024;

export interface ResultStoreOptions {
  /** How long results are kept, seconds. Default 86400 (24 h). */
  retentionSec?: number;
  /** How long a zero-data-retention result stays for its waiting caller, seconds. Default 60. */
  zdrRetentionSec?: number;
  /**
   * Store results of {@link COMPRESS_RESULT_MIN_CHARS} and more compressed. Default false (a cost of
   * about 3-4% of a sync scrape's CPU at 8 in flight, measured). Every version since reads both forms;
   * earlier ones read plain results only (turn it on once no such process runs).
   */
  compress?: boolean;
}

/** A result's stored form, started ahead of its {@link ResultStore.put} ({@link ResultStore.storedCopy}). */
export interface StoredCopy {
  /** The result's JSON (what its announcement carries). */
  json: string;
  /** What is stored: the JSON, or it compressed. */
  value: Promise<string | Buffer>;
}

/**
 * Final job outcomes, written once by the worker that finished the job, with a notification on the
 * results channel so waiting gateways wake at once (no polling).
 */
export class ResultStore {
  private readonly retentionSec: number;
  private readonly zdrRetentionSec: number;
  private readonly compress: boolean;
  private local: LocalResultDelivery | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    opts: ResultStoreOptions = {},
  ) {
    this.retentionSec = opts.retentionSec ?? 86_400;
    this.zdrRetentionSec = opts.zdrRetentionSec ?? 60;
    this.compress = opts.compress ?? false;
  }

  /**
   * Stores the outcome and announces it (unless `announce` is false: nobody waits for a result the
   * gateway answered itself): on the channel of the waiter `replyTo` names (the job's `replyTo`), else
   * on the shared results channel. A zero-data-retention result is kept only briefly. The writes and the
   * announcement are sent together (one round trip); a result up to {@link INLINE_RESULT_BYTES} rides
   * in the announcement itself, so the woken waiter does not read it back. A larger one is announced
   * by id once it is written. With a {@link deliverLocally} hook, the outcome is first offered to this
   * process's waiter once it is written (GET /v2/scrape/:id finds it): no announcement, no re-parse.
   *
   * `handOverFirst`: such a waiter gets the outcome before it is written, one round trip sooner. The
   * writes are compressed and sent right after the answer it leads to is written (the next check of
   * the event loop), so they normally land long before any request that answer leads to (the gateway
   * retains its own cache hits the same way); a large result (its compression on libuv's pool, see
   * {@link COMPRESS_RESULT_MIN_CHARS}; megabytes being written), or a connection being re-established,
   * can delay them, and a `GET /v2/scrape/:id` sent at once may then find nothing yet.
   * The put resolves with `retained`, which settles with the writes: their failure is its caller's to
   * report, not a failure of the put (the outcome was delivered). Ignored for a
   * zero-data-retention result: the gateway deletes it once answered, on another connection, where
   * the delete could overtake the write (this assumes only the API's waiter gets outcomes handed over,
   * as `deliverLocally` is wired; a waiter that deletes non-ZDR results after reading them, as a
   * search's result pages do, must not be given this delivery).
   *
   * `documentJson`: `JSON.stringify` of the outcome's document, when the caller wrote it already (the
   * worker measures every document's size that way): the stored JSON is built around it.
   */
  async put<T = Document>(
    result: StoredResult<T>,
    opts: {
      zeroDataRetention: boolean; announce?: boolean; handOverFirst?: boolean; replyTo?: string | undefined; documentJson?: string | undefined;
      copy?: StoredCopy | undefined;
    },
  ): Promise<{ retained?: Promise<void> }> {
    const ttl = opts.zeroDataRetention ? this.zdrRetentionSec : this.retentionSec;
    // The document's JSON, when given for a successful outcome (the one it belongs to).
    const documentJson = result.outcome.ok ? opts.documentJson : undefined;
    const json = opts.copy?.json ?? resultJson(result, documentJson);
    const local = opts.announce !== false && this.local?.waitsFor(result.jobId) === true ? this.local : undefined;
    const announce = opts.announce !== false && local === undefined;
    const inline = json.length <= INLINE_RESULT_BYTES;
    // The waiter that submitted the job hears it on its own channel; nobody else receives it.
    const channel = opts.replyTo ? this.keys.replyChannel(opts.replyTo) : this.keys.resultsChannel();
    // The announcement carries the JSON as it is; it goes out with the write, after it on the connection.
    const write = (value: string | Buffer) => Promise.all([
      this.redis.set(this.keys.result(result.jobId), value, 'EX', ttl),
      result.outcome.ok ? this.redis.set(this.keys.lastSuccess(result.teamId), result.finishedAt) : undefined,
      announce && inline ? this.redis.publish(channel, `${result.jobId}\n${json}`) : undefined,
    ]).then(() => undefined);
    if (local && opts.handOverFirst === true && !opts.zeroDataRetention) {
      local.deliver(result, documentJson);
      // Compressed and sent once the answer it leads to is written (setImmediate: after this turn's
      // microtasks, where the waiting request answers): the compression is not part of its wait.
      const value = opts.copy?.value ?? new Promise<void>((resolve) => setImmediate(resolve)).then(() => storedValue(json, !this.compress));
      const written = value.then(write);
      written.catch(() => undefined); // reported by the caller, through `retained`
      return { retained: written };
    }
    await (opts.copy?.value ?? storedValue(json, opts.zeroDataRetention || !this.compress)).then(write);
    if (announce && !inline) await this.redis.publish(channel, result.jobId);
    local?.deliver(result, documentJson);
    return {};
  }

  /**
   * Starts the stored form of `result` (its JSON, compressed on libuv's pool), for a {@link put} given
   * it as `copy` with the same `documentJson` and `zeroDataRetention`: a worker starts it beside the
   * job's charge, which the put waits for anyway. Its value never rejects unhandled.
   */
  storedCopy<T>(result: StoredResult<T>, opts: { zeroDataRetention: boolean; documentJson?: string | undefined }): StoredCopy {
    const json = resultJson(result, result.outcome.ok ? opts.documentJson : undefined);
    const value = storedValue(json, opts.zeroDataRetention || !this.compress);
    value.catch(() => undefined); // the put awaits it and reports it
    return { json, value };
  }

  /**
   * Whether a `handOverFirst` {@link put} of this job's outcome would hand it to a waiter in this
   * process before it is written (one waits for it, and it is not zero-data-retention).
   */
  handsOverFirst(jobId: string, opts: { zeroDataRetention: boolean }): boolean {
    return !opts.zeroDataRetention && this.local?.waitsFor(jobId) === true;
  }

  /**
   * Hands outcomes that `delivery`'s waiters wait for straight to them (undefined: none). Set when the gateway and the
   * worker share a process (embedded mode): the waiting request resolves from the object itself,
   * without a publish, a pub/sub delivery and a JSON parse of the document.
   */
  deliverLocally(delivery: LocalResultDelivery | undefined): void {
    this.local = delivery;
  }

  /** Whether the job's outcome is stored (without reading it). */
  async has(jobId: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.result(jobId))) === 1;
  }

  async get<T = Document>(jobId: string): Promise<StoredResult<T> | null> {
    return (await this.getWithJson<T>(jobId))?.result ?? null;
  }

  /** {@link get}, with the stored JSON it parsed (see {@link documentJsonIn}). */
  async getWithJson<T = Document>(jobId: string): Promise<{ result: StoredResult<T>; json: string } | null> {
    const value = await this.redis.getBuffer(this.keys.result(jobId));
    if (!value || value.length === 0) return null;
    const json = await storedJson(value);
    return { result: JSON.parse(json) as StoredResult<T>, json };
  }

  async delete(jobId: string): Promise<void> {
    await this.redis.del(this.keys.result(jobId));
  }

  async lastSuccess(teamId: string): Promise<string | null> {
    return this.redis.get(this.keys.lastSuccess(teamId));
  }
}

/** What {@link ResultStore.put} stores for a result's JSON: compressed from {@link COMPRESS_RESULT_MIN_CHARS} on. */
async function storedValue(json: string, plain: boolean): Promise<string | Buffer> {
  if (plain || json.length < COMPRESS_RESULT_MIN_CHARS) return json;
  const raw = Buffer.from(json, 'utf8');
  const packed = await brotliCompressAsync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 1, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } });
  return Buffer.concat([PACKED_RESULT, packed]);
}

/** The JSON of a stored result: compressed, or as it is (a small one, or one an earlier version wrote). */
async function storedJson(value: Buffer): Promise<string> {
  if (value[0] !== PACKED_RESULT[0]) return value.toString('utf8');
  if (value[1] !== PACKED_RESULT[1]) throw new Error('unknown stored result version');
  const packed = value.subarray(PACKED_RESULT.length);
  const raw = packed.length <= INLINE_DECOMPRESS_MAX_BYTES ? brotliDecompressSync(packed) : await brotliDecompressAsync(packed);
  return raw.toString('utf8');
}

/** `JSON.stringify(result)`, around the document's JSON when it is given (a successful outcome's). */
function resultJson<T>(result: StoredResult<T>, documentJson: string | undefined): string {
  if (documentJson === undefined) return JSON.stringify(result);
  return `${documentPrefix(result)}${documentJson}}}`;
}

/** What comes before a successful outcome's document in its stored JSON (see {@link resultJson}). */
function documentPrefix(result: StoredResult<unknown>): string {
  const { jobId, teamId, finishedAt } = result;
  return `${JSON.stringify({ jobId, teamId, finishedAt }).slice(0, -1)},"outcome":{"ok":true,"document":`;
}

/**
 * The document's JSON inside `json`, the stored (or announced) text that parsed into `result`:
 * undefined unless `result` is a successful outcome holding nothing but its document (its job, team
 * and time strings, and `{ok, document}`) and `json` is laid out as {@link resultJson} (and
 * `JSON.stringify` of such a result) writes it. Then the text between the fields before the document
 * and the two closing braces is exactly the document's JSON, and a gateway can answer with it instead
 * of writing the document out again. `json` must come from `JSON.stringify` (a worker of any
 * version): a text with a key twice could pass the checks with more than the document after it.
 */
export function documentJsonIn(json: string, result: StoredResult<unknown>): string | undefined {
  // Whatever shape another version's outcome parses into: only the one this writes is used.
  const r = result as Partial<StoredResult<unknown>> | null;
  const outcome = r?.outcome;
  if (outcome?.ok !== true || Object.keys(result).length !== 4 || Object.keys(outcome).length !== 2) return undefined;
  if (typeof r!.jobId !== 'string' || typeof r!.teamId !== 'string' || typeof r!.finishedAt !== 'string') return undefined;
  const prefix = documentPrefix(result);
  return json.startsWith(prefix) && json.endsWith('}}') ? json.slice(prefix.length, -2) : undefined;
}
