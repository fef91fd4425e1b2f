import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliDecompress, constants } from 'node:zlib';
import type { Redis } from 'ioredis';
import { defineScript } from './redis-script.js';
import { brotli } from './small-compress.js';
import type { RedisKeys } from './redis-keys.js';

const decompress = promisify(brotliDecompress);

/** One version of a page as change tracking remembers it. */
export interface PageSnapshot {
  /** The URL as requested. */
  url: string;
  /** The markdown compared (empty for a page that is gone). */
  markdown: string;
  /** When it was scraped, ms since epoch. */
  scrapedAt: number;
  /** The scrape's job id. */
  scrapeId: string;
  /** The page answered 404 or 410. */
  gone: boolean;
}

// KEYS: snapshot hash, url index of the URL's host. ARGV: encoded snapshot, scrape id, url digest, url,
// gone ('1' or '0'). Makes the new snapshot current and returns the one to compare with: the current
// one, or, when the current one is this very scrape (a retried job), the one before it, so a retry
// compares the same. The index (crawl memory) keeps pages that exist, and a page that just went away
// until its removal has been seen once; a page gone twice, or never seen alive, leaves it.
const RECORD_SCRIPT = `
local base, baseGone
if redis.call('HGET', KEYS[1], 'curId') == ARGV[2] then
  base = redis.call('HGET', KEYS[1], 'prev')
  baseGone = redis.call('HGET', KEYS[1], 'prevGone')
else
  base = redis.call('HGET', KEYS[1], 'cur')
  baseGone = redis.call('HGET', KEYS[1], 'curGone')
  if base then
    redis.call('HSET', KEYS[1], 'prev', base, 'prevGone', baseGone or '0')
  else
    redis.call('HDEL', KEYS[1], 'prev', 'prevGone')
  end
end
redis.call('HSET', KEYS[1], 'cur', ARGV[1], 'curId', ARGV[2], 'curGone', ARGV[5])
if ARGV[5] == '1' and (not base or baseGone == '1') then
  redis.call('HDEL', KEYS[2], ARGV[3])
else
  redis.call('HSET', KEYS[2], ARGV[3], ARGV[4])
end
return base
`;

const recordScript = defineScript({
  name: 'trawlChangeRecord', numberOfKeys: 2, lua: RECORD_SCRIPT, buffers: true,
  decode: (reply) => (Buffer.isBuffer(reply) ? reply : null),
});

/** Digest of a tag or URL key, for key names. */
function digest(s: string): string {
  return createHash('sha256').update(s).digest('hex').slice(0, 32);
}

/**
 * The previous versions change tracking compares against, per team, tag and URL, in the queue Redis
 * (which never evicts: they must outlive any cache). Only the latest version (and the one before it,
 * for retried scrapes) is kept, compressed.
 *
 * Keys (owner: this class):
 * | `<p>:{t:ID}:ct:<tag>:<url>` | hash: cur, curId, curGone, prev, prevGone (encoded snapshots) |
 * | `<p>:{t:ID}:ct:<tag>:urls:<host>` | hash url digest -> URL: a host's pages known under a tag (crawl memory) |
 * `<tag>` and `<url>` are digests of the tag and the URL's dedupe key.
 */
export class ChangeStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  /**
   * Records `current` as the latest version of its URL under `tag` and returns the version it
   * replaces (null for a first scrape). `urlKey` identifies the page (a normalized URL).
   */
  async record(teamId: string, tag: string, urlKey: string, current: PageSnapshot): Promise<PageSnapshot | null> {
    const encoded = await brotli(Buffer.from(JSON.stringify(current), 'utf8'), { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } });
    const urlHash = digest(urlKey);
    const previous = await recordScript.run(
      this.redis, [this.snapshotKey(teamId, tag, urlHash), this.indexKey(teamId, tag, hostOf(current.url))],
      [encoded, current.scrapeId, urlHash, current.url, current.gone ? '1' : '0'],
    );
    return previous ? decodeSnapshot(previous) : null;
  }

  /** The latest version of a URL under a tag, or null. */
  async latest(teamId: string, tag: string, urlKey: string): Promise<PageSnapshot | null> {
    const value = await this.redis.hgetBuffer(this.snapshotKey(teamId, tag, digest(urlKey)), 'cur');
    return value ? decodeSnapshot(value) : null;
  }

  /** URLs of `host` known under a tag (scraped with change tracking before, still there), at most `limit`. */
  async knownUrls(teamId: string, tag: string, host: string, limit: number): Promise<string[]> {
    const out: string[] = [];
    let cursor = '0';
    do {
      const [next, flat] = await this.redis.hscan(this.indexKey(teamId, tag, host), cursor, 'COUNT', 500);
      for (let i = 1; i < flat.length && out.length < limit; i += 2) out.push(flat[i]!);
      cursor = next;
    } while (cursor !== '0' && out.length < limit);
    return out;
  }

  private snapshotKey(teamId: string, tag: string, urlHash: string): string {
    return this.keys.changeSnapshot(teamId, digest(tag), urlHash);
  }

  private indexKey(teamId: string, tag: string, host: string): string {
    return this.keys.changeIndex(teamId, digest(tag), digest(host.toLowerCase()));
  }
}

/** The host of a URL (`www.` kept: crawls start from one host); empty when unparsable. */
function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}

async function decodeSnapshot(value: Buffer): Promise<PageSnapshot> {
  return JSON.parse((await decompress(value)).toString('utf8')) as PageSnapshot;
}
