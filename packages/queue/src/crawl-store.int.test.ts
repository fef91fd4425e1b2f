import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { documentSchema, scrapeOptionsSchema, type Document } from '@trawl/api-schema';
import { redisPerFile, waitFor } from '@trawl/testing';
import { CrawlStore, type NewCrawl } from './crawl-store.js';
import { RedisKeys } from './redis-keys.js';

const db = redisPerFile();

function setup() {
  const keys = new RedisKeys(`t${randomUUID().slice(0, 8)}`);
  return { keys, store: new CrawlStore(db.redis, keys) };
}

function crawl(overrides: Partial<NewCrawl> = {}): NewCrawl {
  return {
    id: randomUUID(), kind: 'crawl', teamId: 'team', url: 'http://a.example/', request: { scrapeOptions: scrapeOptionsSchema.parse({}) }, limit: 3, maxConcurrency: 2,
    delayMs: 0, kickoffDone: false, zeroDataRetention: false, retentionSec: 60, ...overrides,
  };
}

/** A minimal document (the store does not look inside documents). */
const page: Document = documentSchema.parse({ metadata: { sourceURL: 'http://a.example/', statusCode: 200 } });

const cand = (n: number, depth = 1) => ({ key: `k${n}`, url: `http://a.example/${n}`, depth });

describe('CrawlStore', () => {
  it('keeps the monitor check a crawl runs for', async () => {
    const { store } = setup();
    const link = { monitorId: randomUUID(), checkId: randomUUID(), targetId: 't1' };
    expect((await store.create(crawl({ monitor: link }))).monitor).toEqual(link);
    expect((await store.create(crawl())).monitor).toBeUndefined();
  });

  it('accepts each URL once and never past the limit; lists robots-blocked URLs once', async () => {
    const { store } = setup();
    const c = await store.create(crawl({ limit: 3 }));
    expect(await store.enqueue(c.id, [cand(1), cand(1), cand(2)])).toEqual({ accepted: 2, robotsBlocked: 0 });
    expect(await store.enqueue(c.id, [cand(2), cand(3), cand(4), { ...cand(5), robotsBlocked: true }, { ...cand(5), robotsBlocked: true }]))
      .toEqual({ accepted: 1, robotsBlocked: 1 });
    expect((await store.get(c.id))!.total).toBe(3);
    expect((await store.errors(c.id)).robotsBlocked).toEqual(['http://a.example/5']);
  });

  it('starts hidden pages after the organic ones, within the room the limit leaves, and makes a linked one visible', async () => {
    const { store } = setup();
    const c = await store.create(crawl({ limit: 3, maxConcurrency: 5 }));
    const hidden = (n: number) => ({ ...cand(n, 0), hidden: true });
    // Remembered pages first (kickoff), then organic links: the organic ones are never refused for them.
    expect(await store.enqueue(c.id, [hidden(7), hidden(8), hidden(9)])).toEqual({ accepted: 3, robotsBlocked: 0 });
    expect((await store.get(c.id))!.total).toBe(0);
    await store.enqueue(c.id, [cand(1, 0), cand(2, 1), cand(8, 1)]); // 8 is linked after all: visible
    expect((await store.get(c.id))!.total).toBe(3);
    await store.kickoffDone(c.id);
    const first = await store.pump(c.id);
    expect(first.pages.map((p) => [p.url, p.hidden ?? false])).toEqual([
      ['http://a.example/1', false], ['http://a.example/2', false], ['http://a.example/8', false],
    ]);
    const doc = { kind: 'doc' as const, document: page, creditsUsed: 1 };
    // No room left for 7 and 9: dropped when their turn comes, and the crawl completes.
    for (const p of first.pages.slice(0, 2)) await store.pageDone(c.id, p.jobId, doc);
    expect((await store.pump(c.id)).pages).toEqual([]);
    await store.pageDone(c.id, first.pages[2]!.jobId, doc);
    expect((await store.pump(c.id)).state).toBe('completed');
    expect((await store.get(c.id))!).toMatchObject({ status: 'completed', total: 3, completed: 3 });
  });

  it('starts a hidden page only once no organic page is in flight', async () => {
    const { store } = setup();
    const c = await store.create(crawl({ limit: 10, maxConcurrency: 5 }));
    await store.enqueue(c.id, [cand(1, 0), { ...cand(5, 0), hidden: true }]);
    await store.kickoffDone(c.id);
    const first = await store.pump(c.id);
    expect(first.pages.map((p) => p.url)).toEqual(['http://a.example/1']);
    expect((await store.pump(c.id)).pages).toEqual([]);
    await store.pageDone(c.id, first.pages[0]!.jobId, { kind: 'doc', document: page, creditsUsed: 1 });
    const second = await store.pump(c.id);
    expect(second.pages.map((p) => [p.url, p.hidden])).toEqual([['http://a.example/5', true]]);
    expect((await store.get(c.id))!.total).toBe(2);
  });

  it('pageDoneNext adds the links, records the page and starts the next pages in one call; a re-run adds nothing', async () => {
    const { store } = setup();
    const c = await store.create(crawl({ limit: 4, maxConcurrency: 2 }));
    await store.enqueue(c.id, [cand(0, 0)]);
    await store.kickoffDone(c.id);
    const [seed] = (await store.pump(c.id)).pages;
    const doc = { kind: 'doc' as const, document: page, creditsUsed: 1 };
    const done = await store.pageDoneNext(c.id, seed!.jobId, doc, [cand(1), cand(2), cand(3), cand(4), { ...cand(5), robotsBlocked: true }]);
    expect(done).toMatchObject({ result: 'ok', completed: false, documents: 1, accepted: 3, robotsBlocked: 1 });
    // Two slots: the first two links start at once.
    expect(done.pump?.state).toBe('ok');
    expect(done.pump?.pages.map((p) => p.url)).toEqual(['http://a.example/1', 'http://a.example/2']);
    // A re-run of a recorded page neither records it again nor adds its links.
    expect(await store.pageDoneNext(c.id, seed!.jobId, doc, [cand(6)])).toMatchObject({ result: 'dup', accepted: 0, pump: null });
    const [p1, p2] = done.pump!.pages;
    // Out of credits (maxTake 0): recorded, nothing more starts.
    const error = { kind: 'error' as const, error: { id: 'x', timestamp: 't', url: 'u', code: 'C', error: 'e' } };
    expect(await store.pageDoneNext(c.id, p1!.jobId, error, [], { maxTake: 0 })).toMatchObject({ result: 'ok', completed: false, pump: null });
    const third = await store.pageDoneNext(c.id, p2!.jobId, doc, []);
    expect(third.pump?.pages.map((p) => p.url)).toEqual(['http://a.example/3']);
    const last = await store.pageDoneNext(c.id, third.pump!.pages[0]!.jobId, doc, []);
    expect(last).toMatchObject({ result: 'ok', completed: true, documents: 3, pump: null });
    expect((await store.get(c.id))!).toMatchObject({ status: 'completed', total: 4, completed: 3, failed: 1 });
    expect((await store.errors(c.id)).robotsBlocked).toEqual(['http://a.example/5']);
  });

  it('pumps breadth first within maxConcurrency, records each page once, completes with the last one', async () => {
    const { store, keys } = setup();
    const c = await store.create(crawl({ limit: 10, maxConcurrency: 2 }));
    await store.enqueue(c.id, [cand(1, 2), cand(2, 1), cand(3, 1)]);
    expect(await store.kickoffDone(c.id)).toBe(false);
    const first = await store.pump(c.id);
    expect(first.pages.map((p) => p.url)).toEqual(['http://a.example/2', 'http://a.example/3']);
    expect((await store.pump(c.id)).state).toBe('busy');
    const doc = { kind: 'doc' as const, document: { ...page, markdown: 'x' }, creditsUsed: 1 };
    expect((await store.pageDone(c.id, first.pages[0]!.jobId, doc)).result).toBe('ok');
    expect((await store.pageDone(c.id, first.pages[0]!.jobId, doc)).result).toBe('dup');
    const second = await store.pump(c.id);
    expect(second.pages.map((p) => p.url)).toEqual(['http://a.example/1']);
    expect((await store.pageDone(c.id, first.pages[1]!.jobId, { kind: 'error', error: { id: 'x', timestamp: 't', url: 'u', code: 'C', error: 'e' } })).completed).toBe(false);
    const last = await store.pageDone(c.id, second.pages[0]!.jobId, doc);
    expect(last.completed).toBe(true);
    const rec = (await store.get(c.id))!;
    expect(rec).toMatchObject({ status: 'completed', total: 3, completed: 2, failed: 1, creditsUsed: 2 });
    // kept for its retention after the end, then gone
    const ttl = await db.redis.ttl(keys.crawl(c.id)[0]!);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60);
    const { docs, more } = await store.documents(c.id, { skip: 0, limit: 10, maxBytes: 1e6 });
    expect(docs).toEqual([{ ...page, markdown: 'x' }, { ...page, markdown: 'x' }]);
    expect(more).toBe(false);
  });

  it('stores the JSON its caller wrote for a document as it is, not the document again', async () => {
    const { store } = setup();
    const c = await store.create(crawl({ limit: 5 }));
    await store.enqueue(c.id, [cand(1, 0)]);
    await store.kickoffDone(c.id);
    const { pages } = await store.pump(c.id);
    // A JSON that differs from the document shows which of the two was stored.
    const documentJson = JSON.stringify({ ...page, markdown: 'from the JSON' });
    expect((await store.pageDone(c.id, pages[0]!.jobId, { kind: 'doc', document: page, documentJson, creditsUsed: 1 })).result).toBe('ok');
    const { docs } = await store.documents(c.id, { skip: 0, limit: 10, maxBytes: 1e6 });
    expect(docs).toEqual([{ ...page, markdown: 'from the JSON' }]);
  });

  it('a redirect to a page already seen is dropped, not counted', async () => {
    const { store } = setup();
    const c = await store.create(crawl({ limit: 10 }));
    await store.enqueue(c.id, [cand(1), cand(2)]);
    await store.kickoffDone(c.id);
    const { pages } = await store.pump(c.id);
    const r = await store.pageDone(c.id, pages[0]!.jobId, { kind: 'doc', document: page, creditsUsed: 1, finalKey: 'k2' });
    expect(r.result).toBe('duplicate-url');
    expect((await store.get(c.id))!.total).toBe(1);
  });

  it('end stops a crawl once and hands back its pages in flight; claimOnce is once', async () => {
    const { store } = setup();
    const c = await store.create(crawl({ limit: 10 }));
    await store.enqueue(c.id, [cand(1), cand(2), cand(3)]);
    const { pages } = await store.pump(c.id);
    const ended = await store.end(c.id, 'cancelled');
    expect(ended.previous).toBe('scraping');
    expect(ended.inflight.sort()).toEqual(pages.map((p) => p.jobId).sort());
    expect((await store.end(c.id, 'cancelled')).previous).toBe('cancelled');
    expect((await store.pageDone(c.id, pages[0]!.jobId, { kind: 'doc', document: page, creditsUsed: 1 })).result).toBe('ignored');
    expect(await store.claimOnce(c.id, 'ended')).toBe(true);
    expect(await store.claimOnce(c.id, 'ended')).toBe(false);
  });

  it('pageState tells a page in flight from one that is not, with the crawl status, in one call', async () => {
    const { store } = setup();
    const c = await store.create(crawl({ limit: 10 }));
    await store.enqueue(c.id, [cand(1), cand(2)]);
    const { pages } = await store.pump(c.id, { maxTake: 1 });
    expect(await store.pageState(c.id, pages[0]!.jobId)).toEqual({ inflight: true, status: 'scraping' });
    expect(await store.pageState(c.id, 'not-a-page')).toEqual({ inflight: false, status: 'scraping' });
    await store.end(c.id, 'cancelled');
    expect(await store.pageState(c.id, pages[0]!.jobId)).toEqual({ inflight: true, status: 'cancelled' });
    expect(await store.pageState(randomUUID(), 'x')).toEqual({ inflight: false, status: null });
  });

  it('announces documents at once, then at most once per window with one trailing event, per crawl', async () => {
    const keys = new RedisKeys(`t${randomUUID().slice(0, 8)}`);
    const windowMs = 400;
    const store = new CrawlStore(db.redis, keys, { documentEventMs: windowMs });
    const sub = db.redis.duplicate();
    const events: { crawlId: string }[] = [];
    try {
      await sub.subscribe(keys.crawlEvents());
      sub.on('message', (_channel: string, message: string) => events.push({ crawlId: (JSON.parse(message) as { crawlId: string }).crawlId }));
      const start = Date.now();
      // A burst of pages of crawl a (within the window), and one page of crawl b.
      for (let i = 0; i < 20; i++) await store.announceDocument('a');
      await store.announceDocument('b');
      const burstMs = Date.now() - start;
      await waitFor(() => events.filter((e) => e.crawlId === 'a').length >= 2, { what: 'the trailing event of crawl a' });
      // The first at once; the rest of the burst as one trailing event, a window after the first.
      if (burstMs < windowMs) {
        await new Promise((r) => setTimeout(r, windowMs));
        expect(events.filter((e) => e.crawlId === 'a')).toHaveLength(2);
      }
      expect(events.filter((e) => e.crawlId === 'b')).toHaveLength(1);
      // Once the window has passed with nothing scheduled, the next document is announced at once.
      await new Promise((r) => setTimeout(r, windowMs));
      const before = events.length;
      await store.announceDocument('a');
      await waitFor(() => events.length > before, { what: 'the next event of crawl a' });
      expect(events.at(-1)!.crawlId).toBe('a');
    } finally {
      sub.disconnect();
    }
  });

  it('an idempotency key is taken once, and given back only by the request that took it', async () => {
    const { store } = setup();
    expect(await store.claimIdempotencyKey('t', 'key', 'a')).toBeNull();
    expect(await store.claimIdempotencyKey('t', 'key', 'b')).toBe('a');
    await store.releaseIdempotencyKey('t', 'key', 'b');
    expect(await store.claimIdempotencyKey('t', 'key', 'c')).toBe('a');
    await store.releaseIdempotencyKey('t', 'key', 'a');
    expect(await store.claimIdempotencyKey('t', 'key', 'c')).toBeNull();
  });
});
