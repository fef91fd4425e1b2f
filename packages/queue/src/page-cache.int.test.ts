import { describe, expect, it } from '@jest/globals';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { redisPerFile } from '@trawl/testing';
import { ChangeStore, type PageSnapshot } from './change-store.js';
import { PageCache, type CachedPage } from './page-cache.js';
import { RedisKeys } from './redis-keys.js';

const db = redisPerFile();

const hex = (s: string) => createHash('sha256').update(s).digest('hex');

function page(body: string, extra: Partial<CachedPage> = {}): CachedPage {
  return {
    kind: 'page', url: 'http://a.example/', statusCode: 200, contentType: 'text/html', contentKind: 'html', charset: 'utf-8',
    cachedAt: 1_700_000_000_000, engine: 'http', proxyUsed: 'basic', body, ...extra,
  };
}

describe('PageCache', () => {
  it('round-trips a page, its screenshot and its document facts', async () => {
    const cache = new PageCache(db.redis, { prefix: `t${randomUUID().slice(0, 8)}`, maxBytes: 0, maxEntryBytes: 1 << 20, ttlSec: 0 });
    const shot = randomBytes(5000);
    const stored = page('<p>héllo ✓</p>'.repeat(100), {
      screenshot: { data: shot, contentType: 'image/png', fullPage: true, viewport: { width: 800, height: 600 } },
      document: { format: 'pdf', parser: 'pdf:auto:all', numPages: 3, totalPages: 3, metadata: { author: 'A' }, warnings: [] },
    });
    expect(await cache.put(hex('a'), stored)).toBe('stored');
    const back = await cache.get(hex('a'));
    expect(back).toEqual(stored);
    expect(back?.screenshot?.data.equals(shot)).toBe(true);
    expect(await cache.get(hex('b'))).toBeNull();
  });

  it('stores the fetched bytes of a page in place of its body encoded again, and reads back the body alone', async () => {
    const cache = new PageCache(db.redis, { prefix: `t${randomUUID().slice(0, 8)}`, maxBytes: 0, maxEntryBytes: 1 << 20, ttlSec: 0 });
    const body = '<p>héllo ✓ 日本</p>'.repeat(50);
    expect(await cache.put(hex('u'), page(body, { bodyUtf8: Buffer.from(body, 'utf8') }))).toBe('stored');
    expect(await cache.get(hex('u'))).toEqual(page(body)); // no bodyUtf8 in the entry's facts
    // The bytes are what is stored (the body is not encoded again): bytes of another text read back as that text.
    await cache.put(hex('v'), page(body, { bodyUtf8: Buffer.from('<p>the bytes</p>', 'utf8') }));
    expect((await cache.get(hex('v')))?.body).toBe('<p>the bytes</p>');
    // With the bytes at hand, the body is never read (a page not decoded yet decodes it when read).
    const lazy = page('', { bodyUtf8: Buffer.from(body, 'utf8') });
    Object.defineProperty(lazy, 'body', { enumerable: true, get: () => { throw new Error('body read'); } });
    expect(await cache.put(hex('w'), lazy)).toBe('stored');
    expect(await cache.get(hex('w'))).toEqual(page(body));
  });

  it('refuses an entry over the entry limit', async () => {
    const cache = new PageCache(db.redis, { prefix: `t${randomUUID().slice(0, 8)}`, maxBytes: 0, maxEntryBytes: 2048, ttlSec: 0 });
    expect(await cache.put(hex('big'), page(randomBytes(10_000).toString('base64')))).toBe('too-large');
    expect(await cache.get(hex('big'))).toBeNull();
  });

  it('stays within its byte budget by dropping the least recently used pages of a bucket', async () => {
    const prefix = `t${randomUUID().slice(0, 8)}`;
    // Incompressible bodies of about 3 KB; a budget of 16 * 10 KB lets each bucket hold three.
    const cache = new PageCache(db.redis, { prefix, maxBytes: 16 * 10_000, maxEntryBytes: 1 << 20, ttlSec: 0 });
    // Keys all in bucket 'a' so that they compete.
    const keys = ['a1', 'a2', 'a3', 'a4'].map((k) => 'a' + hex(k).slice(1));
    let clock = 1000;
    const timed = new PageCache(db.redis, { prefix, maxBytes: 16 * 10_000, maxEntryBytes: 1 << 20, ttlSec: 0, now: () => clock });
    for (const k of keys.slice(0, 3)) {
      clock += 1;
      await timed.put(k, page(randomBytes(3000).toString('base64')));
    }
    clock += 1;
    expect(await timed.get(keys[0]!)).not.toBeNull(); // the first is now the most recently used
    clock += 1;
    await timed.put(keys[3]!, page(randomBytes(3000).toString('base64')));
    expect(await cache.get(keys[1]!)).toBeNull(); // the least recently used went
    expect(await cache.get(keys[0]!)).not.toBeNull();
    expect(await cache.get(keys[3]!)).not.toBeNull();
    expect(await cache.storedBytes()).toBeLessThanOrEqual(10_000);
  });

  it('repairs its accounting when Redis dropped an entry itself, and expires entries with a TTL', async () => {
    const prefix = `t${randomUUID().slice(0, 8)}`;
    const cache = new PageCache(db.redis, { prefix, maxBytes: 1 << 30, maxEntryBytes: 1 << 20, ttlSec: 0 });
    const k = hex('gone');
    await cache.put(k, page('x'.repeat(1000)));
    expect(await cache.storedBytes()).toBeGreaterThan(0);
    await db.redis.del(`${prefix}:cache:{c${k[0]}}:e:${k}`);
    expect(await cache.get(k)).toBeNull();
    expect(await cache.storedBytes()).toBe(0);
    const short = new PageCache(db.redis, { prefix, maxBytes: 0, maxEntryBytes: 1 << 20, ttlSec: 1 });
    await short.put(k, page('y'));
    expect(await db.redis.pttl(`${prefix}:cache:{c${k[0]}}:e:${k}`)).toBeGreaterThan(0);
  });

  it('treats a damaged entry as a miss and removes it', async () => {
    const prefix = `t${randomUUID().slice(0, 8)}`;
    const cache = new PageCache(db.redis, { prefix, maxBytes: 0, maxEntryBytes: 1 << 20, ttlSec: 0 });
    const k = hex('damaged');
    await cache.put(k, page('z'));
    await db.redis.set(`${prefix}:cache:{c${k[0]}}:e:${k}`, Buffer.from([0x54, 1, 9, 9, 9]));
    expect(await cache.get(k)).toBeNull();
    expect(await db.redis.exists(`${prefix}:cache:{c${k[0]}}:e:${k}`)).toBe(0);
  });
});

describe('PageCache derived entries and writes in flight', () => {
  const options = () => ({ prefix: `t${randomUUID().slice(0, 8)}`, maxBytes: 0, maxEntryBytes: 1 << 20, ttlSec: 0 });
  const document = {
    markdown: '# Title\n\nBody', links: ['http://a.example/x'],
    metadata: {
      url: 'http://a.example/', statusCode: 200, title: 'Title', scrapeId: 'job-1', creditsUsed: 1, cacheState: 'miss',
      cachedAt: '2026-01-01T00:00:00.000Z', concurrencyLimited: true, concurrencyQueueDurationMs: 12,
    },
  };
  const pageOnly = { url: 'http://a.example/', statusCode: 200, title: 'Title' };

  it('keeps a document as its job answered it and reads it back without the job\'s metadata; reads version-2 entries', async () => {
    const cache = new PageCache(db.redis, options());
    const key = hex('derived');
    await cache.put(key, page('<p>x</p>', { cachedAt: 1234 }));
    expect(await cache.putDerived(key, 'ab'.repeat(8), { cachedAt: 1234, proxyUsed: 'basic', documentJson: JSON.stringify(document) })).toBe('stored');
    expect(await cache.getDerived(key, 'ab'.repeat(8))).toEqual({ cachedAt: 1234, proxyUsed: 'basic', document: { ...document, metadata: pageOnly } });
    // Derived from another copy of the page: stale.
    await cache.put(key, page('<p>y</p>', { cachedAt: 5678 }));
    expect(await cache.getDerived(key, 'ab'.repeat(8))).toBeNull();

    // A version-2 entry (written without the job's metadata) still reads.
    const v2 = JSON.stringify({ cachedAt: 5678, proxyUsed: 'enhanced', document: { ...document, metadata: pageOnly } });
    const { brotliCompressSync } = await import('node:zlib');
    const redisKey = cache.derivedRedisKey(key, 'cd'.repeat(8));
    await cache.putDerived(key, 'cd'.repeat(8), { cachedAt: 5678, proxyUsed: 'enhanced', documentJson: '{}' });
    await db.redis.set(redisKey, Buffer.concat([Buffer.from([0x54, 2]), brotliCompressSync(v2)]));
    expect(await cache.getDerived(key, 'cd'.repeat(8))).toEqual({ cachedAt: 5678, proxyUsed: 'enhanced', document: { ...document, metadata: pageOnly } });
  });

  it('a read waits for a write of the same entry under way in this cache, or in the cache it follows', async () => {
    const opts = options();
    const writer = new PageCache(db.redis, opts);
    const reader = new PageCache(db.redis, opts);
    const stored = page('<p>late</p>', { cachedAt: 42 });
    /** The page's encoding, held until `open` (nothing is written before), or failed by `fail`. */
    const held = () => {
      let open!: () => void;
      let fail!: (err: Error) => void;
      const gate = new Promise<void>((resolve, reject) => { open = resolve; fail = reject; });
      return { encoding: gate.then(() => writer.encode(stored)), open, fail };
    };

    /** `reader` does not wait for a held write of `name`'s entry: a miss, though the write then ends. */
    const notWaitedFor = async (name: string) => {
      const k = hex(name);
      const h = held();
      const write = writer.putEncoded(k, h.encoding);
      expect(await reader.get(k)).toBeNull();
      h.open();
      await write;
    };

    // Another instance that follows nothing does not wait: the write has not even been sent.
    await notWaitedFor('late-1');

    // This cache's own reads wait, pages and derived entries alike (a derived entry waits for its page too).
    const k2 = hex('late-2');
    const h2 = held();
    void writer.putEncoded(k2, h2.encoding);
    void writer.putDerived(k2, 'ef'.repeat(8), { cachedAt: 42, proxyUsed: 'basic', documentJson: JSON.stringify(document) });
    const derived = writer.getDerived(k2, 'ef'.repeat(8));
    const ownPage = writer.get(k2);
    h2.open();
    expect((await derived)?.document.metadata).toEqual(pageOnly);
    expect((await ownPage)?.body).toBe('<p>late</p>');

    // A follower waits for the cache it follows; no longer once it stops following.
    reader.follow(writer);
    const k3 = hex('late-3');
    const h3 = held();
    void writer.putEncoded(k3, h3.encoding);
    const followed = reader.get(k3);
    h3.open();
    expect((await followed)?.body).toBe('<p>late</p>');
    reader.follow(undefined);
    await notWaitedFor('late-4');
    // A write that fails does not fail the read: a miss.
    reader.follow(writer);
    const k5 = hex('late-5');
    const h5 = held();
    const failed = writer.putEncoded(k5, h5.encoding);
    const refused = expect(failed).rejects.toThrow('no');
    const missed = reader.get(k5);
    h5.fail(new Error('no'));
    expect(await missed).toBeNull();
    await refused;

    // A write told to wait (PutOptions.after) is registered at once and goes out once its gate opens.
    const k6 = hex('late-6');
    let open!: () => void;
    const gate = new Promise<void>((resolve) => { open = resolve; });
    const gated = writer.putEncoded(k6, writer.encode(stored), { after: gate });
    const stranger = new PageCache(db.redis, opts);
    expect(await stranger.get(k6)).toBeNull(); // not sent yet
    const waiting = reader.get(k6);
    open();
    expect((await waiting)?.body).toBe('<p>late</p>');
    expect(await gated).toBe('stored');
  });

  it('a read waits only so long (writeWaitMs) for a write that does not end', async () => {
    const writer = new PageCache(db.redis, { ...options(), writeWaitMs: 10 });
    const k = hex('never');
    void writer.putEncoded(k, new Promise<never>(() => undefined));
    expect(await writer.get(k)).toBeNull();
    expect(await writer.getDerived(k, 'ab'.repeat(8))).toBeNull();
  });
});

describe('ChangeStore', () => {
  const snap = (markdown: string, scrapeId: string, scrapedAt: number): PageSnapshot => ({
    url: 'http://a.example/p', markdown, scrapeId, scrapedAt, gone: false,
  });

  it('returns the version each scrape replaces, per team and tag; a retried scrape compares with the same one', async () => {
    const store = new ChangeStore(db.redis, new RedisKeys(`t${randomUUID().slice(0, 8)}`));
    expect(await store.record('team', 'default', 'a.example/p', snap('one', 'j1', 1))).toBeNull();
    expect((await store.record('team', 'default', 'a.example/p', snap('two', 'j2', 2)))?.markdown).toBe('one');
    // j2 again (a retry after a crash): still compared with 'one', not with its own first attempt.
    expect((await store.record('team', 'default', 'a.example/p', snap('two', 'j2', 3)))?.markdown).toBe('one');
    expect((await store.record('team', 'default', 'a.example/p', snap('three', 'j3', 4)))?.markdown).toBe('two');
    expect(await store.record('team', 'other-tag', 'a.example/p', snap('x', 'j4', 5))).toBeNull();
    expect(await store.record('other-team', 'default', 'a.example/p', snap('x', 'j5', 5))).toBeNull();
    expect((await store.latest('team', 'default', 'a.example/p'))?.markdown).toBe('three');
    expect(await store.knownUrls('team', 'default', 'a.example', 10)).toEqual(['http://a.example/p']);
    expect(await store.knownUrls('team', 'default', 'b.example', 10)).toEqual([]);
    // Gone once: still known (its removal is checked again); gone twice: forgotten.
    await store.record('team', 'default', 'a.example/p', { ...snap('', 'j6', 6), gone: true });
    expect(await store.knownUrls('team', 'default', 'a.example', 10)).toHaveLength(1);
    await store.record('team', 'default', 'a.example/p', { ...snap('', 'j7', 7), gone: true });
    expect(await store.knownUrls('team', 'default', 'a.example', 10)).toEqual([]);
    expect(await store.record('team', 'default', 'a.example/never', { ...snap('', 'j8', 8), url: 'http://a.example/never', gone: true })).toBeNull();
    expect(await store.knownUrls('team', 'default', 'a.example', 10)).toEqual([]);
  });
});
