import { promisify } from 'node:util';
import { brotliDecompress, brotliDecompressSync, constants, type BrotliOptions } from 'node:zlib';
import type { Redis } from 'ioredis';
import type { Document } from '@trawl/api-schema';
import { readRedisMemory, type RedisMemory } from './cluster-stats.js';
import { hopTimingOn, recordHop } from './hop-timing.js';
import { RedisBreaker, type RedisBreakerOptions } from './redis-breaker.js';
import { defineScript } from './redis-script.js';
import { brotli } from './small-compress.js';

const decompress = promisify(brotliDecompress);

/** A screenshot kept with its page, with the options it was taken with. */
export interface CachedScreenshot {
  data: Buffer;
  contentType: 'image/png' | 'image/jpeg';
  fullPage: boolean;
  quality?: number;
  viewport?: { width: number; height: number };
}

/** What a parsed document left to derive its formats again: its HTML is the page body. */
export interface CachedDocumentFacts {
  /** Reader that produced it (`pdf`, `docx`...). */
  format: string;
  /** The parser settings it was read with (`pdf:auto:all`); a request with others is a miss. */
  parser: string;
  numPages: number;
  totalPages?: number;
  /** The file's own title and properties. */
  metadata: Record<string, string>;
  title?: string;
  warnings: string[];
}

/**
 * One cached scrape: the fetched page (raw HTML as the engine saw it, or a document already turned
 * into HTML) plus what the formats need beyond it. Every format is derived from it again on a hit,
 * so a hit honours the request's own onlyMainContent, tags and formats.
 */
export interface CachedPage {
  /** `page`: body is the response (HTML or text); `document`: body is the document's HTML. */
  kind: 'page' | 'document';
  /** Final URL after redirects. */
  url: string;
  statusCode: number;
  /** MIME type without parameters. */
  contentType: string;
  /** Content kind the body was decoded as (`html`, `xhtml`, `text`, `json`, `xml`). */
  contentKind: string;
  charset?: string;
  /** When it was fetched, ms since epoch. */
  cachedAt: number;
  /** Engine that fetched it (`http`, `browser`, `browser-stealth`, `document`). */
  engine: string;
  proxyUsed: 'basic' | 'enhanced';
  timezone?: string;
  body: string;
  /**
   * `body` as UTF-8 bytes, when the fetch kept them (FetchResult.utf8): stored instead of encoding
   * `body` again. Not part of the entry (a read gives `body` only).
   */
  bodyUtf8?: Buffer | undefined;
  screenshot?: CachedScreenshot;
  document?: CachedDocumentFacts;
}

/**
 * Metadata fields that belong to the job that produced a document, not to its page: a derived entry
 * keeps the document as its job answered it, and a read leaves these out.
 */
const JOB_METADATA = ['scrapeId', 'creditsUsed', 'cacheState', 'cachedAt', 'concurrencyLimited', 'concurrencyQueueDurationMs'] as const;

/**
 * The formats one set of options derived from a cached page (see `derivedOptionsHash`), kept next
 * to it so that the gateway answers the same request again without a worker.
 */
export interface DerivedEntry {
  /** When the page was fetched, ms since epoch (the page's, not when the formats were derived). */
  cachedAt: number;
  /** Proxy tier of the fetch that produced the page. */
  proxyUsed: 'basic' | 'enhanced';
  /** The Document without what belongs to one job (scrapeId, creditsUsed, cacheState, cachedAt, concurrency). */
  document: Document;
}

/** What {@link PageCache.putDerived} stores: a {@link DerivedEntry} whose document is the JSON its job answered with. */
export interface DerivedWrite {
  cachedAt: number;
  proxyUsed: DerivedEntry['proxyUsed'];
  /** `JSON.stringify` of the job's Document, its own metadata included (left out when read). */
  documentJson: string;
}

/** Options of {@link PageCache}. */
export interface PageCacheOptions {
  /** Key prefix (`TRAWL_CACHE_PREFIX`, else `TRAWL_REDIS_PREFIX`). */
  prefix: string;
  /** Compressed bytes kept before least recently used pages are dropped; 0: unbounded here. */
  maxBytes: number;
  /** Largest compressed entry stored, bytes. */
  maxEntryBytes: number;
  /** Lifetime of an entry, seconds; 0: until evicted. */
  ttlSec: number;
  /** Longest wait of a read for a write of its entry under way in this process, ms; default {@link CACHE_WRITE_WAIT_MS}. */
  writeWaitMs?: number;
  /**
   * Longest wait for the cache Redis' answer to one read or write, ms; past it the call fails (a miss,
   * an unkept page) and the cache is skipped until that Redis answers again (see {@link RedisBreaker}).
   * 0: calls wait as long as Redis takes. Default 0 (the apps pass `TRAWL_CACHE_TIMEOUT_MS`, 1000).
   */
  timeoutMs?: number;
  /** Told when the cache Redis stops answering (down or frozen) and when it answers again. */
  onAvailability?: RedisBreakerOptions['onChange'];
  now?: () => number;
}

/** A page compressed ahead of its {@link PageCache.putEncoded} (see {@link PageCache.encode}). */
export interface EncodedPage {
  readonly value: Buffer;
  readonly stamp: string;
}

/** Options of a {@link PageCache} write. */
export interface PutOptions {
  /**
   * The write is registered at once (a read of its entry in this process waits for it from the
   * call on) and starts, compression included, once this settles: a worker answers its caller
   * first and writes the cache after.
   */
  after?: Promise<unknown> | undefined;
}

/**
 * Longest wait of a read for a write of its entry under way in this process, ms: after it the read
 * goes on without it (the writer's Redis may be down, and its write waiting for it).
 */
export const CACHE_WRITE_WAIT_MS = 2000;

/**
 * Longest wait of a memory read for the cache Redis' gauges, ms: within the metrics collector's own
 * limit (2 s), so that a frozen cache Redis never holds the queue gauges, whatever `timeoutMs` is.
 */
const MEMORY_READ_MS = 1000;

/** Why {@link PageCache.put} did or did not store. */
export type PutOutcome = 'stored' | 'too-large';

/** Buckets the cache is sharded over: each is one hash tag, so the scripts work on Redis Cluster. */
const BUCKETS = 16;
/** Eviction work one put may do. */
const MAX_EVICTIONS_PER_PUT = 64;
const MAGIC = 0x54; // 'T'
const VERSION = 1;
/**
 * Version byte of a derived entry: brotli(DerivedEntry JSON). Version 3 keeps the document's job
 * metadata (left out when read); version 2, without it, is read the same way.
 */
const DERIVED_VERSION = 3;
const DERIVED_VERSION_2 = 2;
/** Hex length of a page key (sha256); a derived entry's member is the page key plus its options hash. */
const PAGE_KEY_HEX = 64;

// KEYS: entry, lru, sizes, bytes, stamps. ARGV: value, member, size, now, maxBytes, ttlMs, entry key prefix,
// max evictions, page stamp ('' for a derived entry). Replaces the entry (a page also its stamp:
// derived entries of another stamp are stale from now), accounts its size, then drops least recently
// used entries until the bucket fits.
const PUT_SCRIPT = `
if tonumber(ARGV[6]) > 0 then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[6])
else
  redis.call('SET', KEYS[1], ARGV[1])
end
if ARGV[9] ~= '' then redis.call('HSET', KEYS[5], ARGV[2], ARGV[9]) end
-- Unbounded here (the cache Redis evicts by itself): no accounting to keep.
if tonumber(ARGV[5]) == 0 then return 0 end
local old = tonumber(redis.call('HGET', KEYS[3], ARGV[2]) or '0')
redis.call('HSET', KEYS[3], ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[2])
local total = redis.call('INCRBY', KEYS[4], tonumber(ARGV[3]) - old)
local budget = tonumber(ARGV[5])
local evicted = 0
while budget > 0 and total > budget and evicted < tonumber(ARGV[8]) do
  local victim = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  if not victim or victim == ARGV[2] then break end
  local size = tonumber(redis.call('HGET', KEYS[3], victim) or '0')
  redis.call('DEL', ARGV[7] .. victim)
  redis.call('HDEL', KEYS[3], victim)
  redis.call('HDEL', KEYS[5], victim)
  redis.call('ZREM', KEYS[2], victim)
  total = redis.call('DECRBY', KEYS[4], size)
  evicted = evicted + 1
end
return evicted
`;

// Forgets an entry's accounting (its size, its place in the LRU index). KEYS: as below; `member`: its key.
const FORGET = `
local function forget(member)
  redis.call('HDEL', KEYS[5], member)
  local size = redis.call('HGET', KEYS[3], member)
  if size then
    redis.call('HDEL', KEYS[3], member)
    redis.call('ZREM', KEYS[2], member)
    redis.call('DECRBY', KEYS[4], tonumber(size))
  end
end
`;

// KEYS: entry, lru, sizes, bytes, stamps. ARGV: member, now. The entry, touched as recently used; an
// entry that expired or was evicted by Redis itself has its accounting dropped.
const GET_SCRIPT = `${FORGET}
local value = redis.call('GET', KEYS[1])
if value then
  redis.call('ZADD', KEYS[2], 'XX', ARGV[2], ARGV[1])
  return value
end
forget(ARGV[1])
return false
`;

// KEYS: entry, lru, sizes, bytes, stamps. ARGV: member, now, page key. A derived entry and the stamp
// of the page it was derived from (false when that page is gone): {value, stamp}, or false.
const GET_DERIVED_SCRIPT = `${FORGET}
local value = redis.call('GET', KEYS[1])
if value then
  redis.call('ZADD', KEYS[2], 'XX', ARGV[2], ARGV[1])
  return {value, redis.call('HGET', KEYS[5], ARGV[3])}
end
forget(ARGV[1])
return false
`;

// KEYS: entry, lru, sizes, bytes, stamps. ARGV: member.
const DELETE_SCRIPT = `${FORGET}
redis.call('DEL', KEYS[1])
forget(ARGV[1])
return 1
`;

const cachePutScript = defineScript({ name: 'trawlCachePut2', numberOfKeys: 5, lua: PUT_SCRIPT, decode: (reply) => Number(reply) });
const cacheGetScript = defineScript({
  name: 'trawlCacheGet2', numberOfKeys: 5, lua: GET_SCRIPT, buffers: true,
  decode: (reply) => (Buffer.isBuffer(reply) ? reply : null),
});
const cacheGetDerivedScript = defineScript({
  name: 'trawlCacheGetDerived', numberOfKeys: 5, lua: GET_DERIVED_SCRIPT, buffers: true,
  decode: (reply) => {
    if (!Array.isArray(reply) || !Buffer.isBuffer(reply[0])) return null;
    return { value: reply[0], stamp: Buffer.isBuffer(reply[1]) ? Number(reply[1].toString()) : null };
  },
});
const cacheDeleteScript = defineScript({ name: 'trawlCacheDelete2', numberOfKeys: 5, lua: DELETE_SCRIPT, decode: () => undefined });

/**
 * The page cache: compressed {@link CachedPage}s in Redis, keyed by a hex digest the caller derives
 * from the URL and the options that change what is fetched. The queue Redis must never evict, so the
 * cache bounds itself: each of 16 buckets keeps a least-recently-used index and a byte count, and a
 * put drops the oldest entries of its bucket past `maxBytes / 16`. On a separate cache Redis with
 * `allkeys-lru` Redis may also evict; a read of an evicted entry repairs the accounting.
 *
 * Keys (owner: this class), `N` = first hex digit of the key:
 * | `<p>:cache:{cN}:e:<key>` | string: version byte + brotli(meta JSON, body, screenshot) |
 * | `<p>:cache:{cN}:e:<key><optionsHash>` | string: derived entry, version byte 3 + brotli(DerivedEntry JSON) |
 * | `<p>:cache:{cN}:lru` | zset key -> last use (ms) |
 * | `<p>:cache:{cN}:sizes` | hash key -> stored bytes |
 * | `<p>:cache:{cN}:bytes` | counter: stored bytes of the bucket |
 * | `<p>:cache:{cN}:stamps` | hash page key -> cachedAt of the stored copy; a derived entry of another copy is stale |
 *
 * A read of an entry that this process is writing (or the cache it {@link follow}s) waits for that
 * write (up to {@link CACHE_WRITE_WAIT_MS}): embedded mode answers a scrape before its page's cache
 * writes end, and the caller's next request must find them.
 *
 * Every call to Redis goes through a {@link RedisBreaker}: with the cache Redis down or frozen, reads
 * and writes fail after `timeoutMs`, and then at once until it answers again, with
 * RedisBreakerOpenError instead of holding the scrape, which then fetches (callers treat a failed read
 * as a miss and never fail on a write).
 */
export class PageCache {
  private readonly now: () => number;
  private readonly breaker: RedisBreaker;
  /** Writes under way, by entry member (a page key, or a page key and an options hash); never reject. */
  private readonly writing = new Map<string, Promise<void>>();
  private followed: PageCache | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly opts: PageCacheOptions,
  ) {
    this.now = opts.now ?? Date.now;
    this.breaker = new RedisBreaker(redis, {
      name: 'page cache', timeoutMs: opts.timeoutMs ?? 0, ...(opts.onAvailability ? { onChange: opts.onAvailability } : {}),
    });
  }

  /**
   * Reads also wait for `other`'s writes of the same entry (another instance in this process: the
   * gateway's follows its worker's in embedded mode); undefined: no longer.
   */
  follow(other: PageCache | undefined): void {
    this.followed = other;
  }

  /** The cached page under `key` (a hex digest), or null. */
  async get(key: string): Promise<CachedPage | null> {
    const keys = this.keysOf(key);
    const writing = this.writesOf(key);
    if (writing) await writing;
    const value = await this.breaker.run(() => cacheGetScript.run(this.redis, keys.all, [key, String(this.now())]));
    if (!value) return null;
    try {
      return await decode(value);
    } catch {
      // Written by an incompatible version, or damaged: a miss, and gone.
      await this.delete(key);
      return null;
    }
  }

  /** Stores `page` under `key`, replacing what was there. */
  async put(key: string, page: CachedPage): Promise<PutOutcome> {
    return this.putEncoded(key, this.encode(page));
  }

  /**
   * Compresses a page for a later {@link putEncoded}: a worker starts it as soon as the page is
   * fetched, so the compression runs (on libuv's pool) while the page is converted, not after. Reads
   * the page (`bodyUtf8` included, copied) before it returns; `body` only without `bodyUtf8`.
   */
  async encode(page: CachedPage): Promise<EncodedPage> {
    return { value: await encode(page), stamp: String(page.cachedAt) };
  }

  /**
   * Stores a page {@link encode}d before (or being encoded) under `key`, replacing what was there.
   * A read of `key` in this process waits for it from this call on (registered before the first
   * await), for at most {@link CACHE_WRITE_WAIT_MS}.
   */
  async putEncoded(key: string, page: EncodedPage | Promise<EncodedPage>, opts: PutOptions = {}): Promise<PutOutcome> {
    return this.tracked(key, (async () => {
      await opts.after;
      const { value, stamp } = await page;
      return this.putValue(key, value, stamp);
    })());
  }

  private async putValue(key: string, value: Buffer, stamp: string): Promise<PutOutcome> {
    if (value.length > this.opts.maxEntryBytes) return 'too-large';
    const keys = this.keysOf(key);
    const budget = this.opts.maxBytes > 0 ? Math.max(1, Math.floor(this.opts.maxBytes / BUCKETS)) : 0;
    await this.breaker.run(() => cachePutScript.run(this.redis, keys.all, [
      value, key, String(value.length), String(this.now()), String(budget),
      String(this.opts.ttlSec * 1000), keys.entryPrefix, String(MAX_EVICTIONS_PER_PUT), stamp,
    ]));
    return 'stored';
  }

  /**
   * The derived entry of `optionsHash` (hex) next to the page under `key`, or null. One round trip:
   * the same script as a page read, so it is touched in the same least-recently-used index.
   */
  async getDerived(key: string, optionsHash: string): Promise<DerivedEntry | null> {
    const member = this.derivedMember(key, optionsHash);
    // The entry and the page's stamp, which decides whether the entry is current.
    const writing = this.writesOf(member, key);
    if (writing) await writing;
    const keys = this.keysOf(member);
    const reply = await this.breaker.run(() => cacheGetDerivedScript.run(this.redis, keys.all, [member, String(this.now()), key]));
    if (!reply) return null;
    let entry: DerivedEntry;
    try {
      const { value } = reply;
      if (value.length < 2 || value[0] !== MAGIC || (value[1] !== DERIVED_VERSION && value[1] !== DERIVED_VERSION_2)) throw new Error('unknown derived entry version');
      // Synchronous: a derived entry is small (the formats, not the page), and a hop to libuv's pool and
      // back costs more than its decompression on a busy machine.
      const t0 = hopTimingOn() ? performance.now() : 0;
      entry = JSON.parse(brotliDecompressSync(value.subarray(2)).toString('utf8')) as DerivedEntry;
      const metadata = entry.document.metadata as Record<string, unknown>;
      for (const field of JOB_METADATA) delete metadata[field];
      if (t0 > 0) recordHop('gateway:cache-decode', performance.now() - t0);
    } catch {
      await this.delete(member);
      return null;
    }
    // Derived from another copy of the page than the one stored now (fetched again since, or gone):
    // the page decides, a worker derives again.
    return entry.cachedAt === reply.stamp ? entry : null;
  }

  /**
   * Stores a derived entry next to the page under `key`; bounded and evicted like pages. Its document
   * is the JSON its job answered with, written into the entry as it is. A read of it in this process
   * waits for it from this call on.
   */
  async putDerived(key: string, optionsHash: string, entry: DerivedWrite, opts: PutOptions = {}): Promise<PutOutcome> {
    const member = this.derivedMember(key, optionsHash);
    return this.tracked(member, (async () => {
      await opts.after;
      const head = JSON.stringify({ cachedAt: entry.cachedAt, proxyUsed: entry.proxyUsed });
      const json = Buffer.from(`${head.slice(0, -1)},"document":${entry.documentJson}}`, 'utf8');
      const packed = await brotli(json, brotliOptions(DERIVED_QUALITY, json.length));
      return this.putValue(member, Buffer.concat([Buffer.from([MAGIC, DERIVED_VERSION]), packed]), '');
    })());
  }

  /** `write` of `member`, which reads of it wait for until it settles (with any earlier one still under way). */
  private tracked<T>(member: string, write: Promise<T>): Promise<T> {
    const earlier = this.writing.get(member);
    const own = write.then(() => undefined, () => undefined);
    const settled = earlier ? Promise.all([earlier, own]).then(() => undefined) : own;
    this.writing.set(member, settled);
    void settled.then(() => {
      if (this.writing.get(member) === settled) this.writing.delete(member);
    });
    return write;
  }

  /**
   * The writes of `members` under way here or in the followed cache, as one promise that settles
   * when they do or after `writeWaitMs` (never rejects); undefined when there are none.
   */
  private writesOf(...members: string[]): Promise<unknown> | undefined {
    const writes = members.flatMap((m) => [this.writing.get(m), this.followed?.writing.get(m)]).filter((w) => w !== undefined);
    if (writes.length === 0) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.opts.writeWaitMs ?? CACHE_WRITE_WAIT_MS);
      timer.unref();
    });
    return Promise.race([Promise.all(writes), limit]).finally(() => clearTimeout(timer));
  }

  /** The Redis key of a derived entry (benchmarks compare its bare GET with a gateway hit). */
  derivedRedisKey(key: string, optionsHash: string): string {
    const member = this.derivedMember(key, optionsHash);
    return this.keysOf(member).all[0]!;
  }

  private derivedMember(key: string, optionsHash: string): string {
    // Page keys are sha256 digests (64 hex): a longer member can never name a page.
    if (key.length !== PAGE_KEY_HEX || !/^[0-9a-f]{16,32}$/.test(optionsHash)) throw new RangeError('derived entries need a page key and a hex options hash');
    return key + optionsHash;
  }

  async delete(key: string): Promise<void> {
    const keys = this.keysOf(key);
    await this.breaker.run(() => cacheDeleteScript.run(this.redis, keys.all, [key]));
  }

  /** Bytes stored, summed over the buckets (for metrics and tests). */
  async storedBytes(): Promise<number> {
    // One GET per bucket, sent together: each bucket is its own slot on Redis Cluster (no MGET across slots).
    const values = await this.breaker.run(() => Promise.all(Array.from({ length: BUCKETS }, (_, i) => this.redis.get(this.bucketKeys(i).bytes))));
    return values.reduce((sum, v) => sum + Number(v ?? 0), 0);
  }

  /**
   * Memory of the cache Redis (INFO), for its gauges: fails at once while the cache is skipped, and
   * after {@link MEMORY_READ_MS} without an answer (which alone does not make the cache skipped).
   */
  redisMemory(): Promise<RedisMemory> {
    return this.breaker.run(() => readRedisMemory(this.redis), { timeoutMs: MEMORY_READ_MS, opens: false });
  }

  private keysOf(key: string) {
    if (!/^[0-9a-f]{16,128}$/.test(key)) throw new RangeError('PageCache keys are lowercase hex digests');
    const b = this.bucketKeys(parseInt(key[0]!, 16));
    return { entryPrefix: b.entryPrefix, all: [b.entryPrefix + key, b.lru, b.sizes, b.bytes, b.stamps] };
  }

  private bucketKeys(bucket: number) {
    const base = `${this.opts.prefix}:cache:{c${bucket.toString(16)}}`;
    return { entryPrefix: `${base}:e:`, lru: `${base}:lru`, sizes: `${base}:sizes`, bytes: `${base}:bytes`, stamps: `${base}:stamps` };
  }
}

/**
 * Brotli quality of a page: every fetch compresses its page, so the cheapest level. Level 0 took
 * 0.31-0.36 ms a page against 0.41-0.54 at level 1 over 20 corpus articles (170 KB on average; a
 * scratch timing, alternated), for entries 7% larger; level 1 itself is about a third of level 4's
 * CPU on HTML for entries 15% larger. Readers accept any level.
 */
const PAGE_QUALITY = 0;
/**
 * Brotli quality of a derived entry (the formats, read back at the gateway on every hit): entries of
 * up to 16 KiB are compressed on the event loop, where level 1 took 0.06 ms against 0.16 at level 4
 * (a scratch timing of the bench's entries), for entries about 15% larger; decoding costs the same.
 */
const DERIVED_QUALITY = 1;

/**
 * Brotli options for `size` input bytes. The size hint lets the encoder size its buffers to the input;
 * an output chunk as large as the input (up to 1 MiB) compresses in one pass on libuv's pool instead of
 * one hop there and back per 16 KiB of output, each of which costs the event loop a callback.
 */
function brotliOptions(quality: number, size: number): BrotliOptions {
  return {
    params: { [constants.BROTLI_PARAM_QUALITY]: quality, [constants.BROTLI_PARAM_SIZE_HINT]: size },
    chunkSize: Math.min(1 << 20, Math.max(16 * 1024, size)),
  };
}

/** Layout before compression: u32 meta length, meta JSON, u32 body length, body UTF-8, screenshot bytes. */
async function encode(page: CachedPage): Promise<Buffer> {
  const { bodyUtf8, screenshot } = page;
  // Every field but these three, in their order, without reading `body` (a page's text not decoded
  // yet is decoded when read: `bodyUtf8` is the same text, and the one stored).
  const rest: Record<string, unknown> = {};
  for (const field of Object.keys(page)) {
    if (field !== 'body' && field !== 'bodyUtf8' && field !== 'screenshot') rest[field] = page[field as keyof CachedPage];
  }
  const meta = Buffer.from(JSON.stringify({ ...rest, ...(screenshot ? { screenshot: { ...screenshot, data: undefined } } : {}) }), 'utf8');
  const text = bodyUtf8 ?? Buffer.from(page.body, 'utf8');
  const head = Buffer.alloc(4);
  head.writeUInt32BE(meta.length);
  const mid = Buffer.alloc(4);
  mid.writeUInt32BE(text.length);
  const raw = Buffer.concat([head, meta, mid, text, screenshot?.data ?? Buffer.alloc(0)]);
  const packed = await brotli(raw, brotliOptions(PAGE_QUALITY, raw.length));
  return Buffer.concat([Buffer.from([MAGIC, VERSION]), packed]);
}

async function decode(value: Buffer): Promise<CachedPage> {
  if (value.length < 2 || value[0] !== MAGIC || value[1] !== VERSION) throw new Error('unknown cache entry version');
  const raw = await decompress(value.subarray(2));
  const metaLen = raw.readUInt32BE(0);
  const meta = JSON.parse(raw.subarray(4, 4 + metaLen).toString('utf8')) as Omit<CachedPage, 'body'>;
  const bodyLen = raw.readUInt32BE(4 + metaLen);
  const bodyStart = 8 + metaLen;
  const body = raw.subarray(bodyStart, bodyStart + bodyLen).toString('utf8');
  const page: CachedPage = { ...meta, body };
  if (meta.screenshot) page.screenshot = { ...meta.screenshot, data: Buffer.from(raw.subarray(bodyStart + bodyLen)) };
  return page;
}
