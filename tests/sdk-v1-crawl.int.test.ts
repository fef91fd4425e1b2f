import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import WebSocket from 'ws';
import { v1CrawlStartResponseSchema, v1CrawlStatusResponseSchema } from '@trawl/api-schema';
import { GeneratedSite } from '@trawl/testing';
import { TestCluster } from './helpers/cluster.js';
import { pathOf, watchCrawl } from './helpers/crawl-watch.js';

jest.setTimeout(90_000);

let cluster: TestCluster;
let team: { id: string; key: string };
const sites: GeneratedSite[] = [];

async function site(opts: Parameters<typeof GeneratedSite.start>[0]): Promise<GeneratedSite> {
  const s = await GeneratedSite.start(opts);
  sites.push(s);
  return s;
}

/** The 1.x SDK (FirecrawlApp of @mendable/firecrawl-js 1.29.3), as v1 clients use it. */
async function sdk() {
  const { default: FirecrawlApp } = await import('firecrawl-v1');
  return new FirecrawlApp({ apiKey: team.key, apiUrl: cluster.api.url });
}

/** The id of a started crawl (fails the test on an error answer). */
function idOf(res: { success: boolean; id?: string; error?: string }): string {
  if (!res.success || !res.id) throw new Error(res.error ?? 'no id');
  return res.id;
}

const paths = (docs: { metadata?: { sourceURL?: string } }[]) => docs.map((d) => pathOf(d as never)).sort();

// Node 20 has no global WebSocket (the 1.x SDK declares Node >= 22 for it); its watcher gets the ws one.
const globals = globalThis as { WebSocket?: unknown };
const nodeWebSocket = globals.WebSocket;

beforeAll(async () => {
  globals.WebSocket ??= WebSocket;
  cluster = await TestCluster.start({
    TRAWL_CRAWL_HOST_RATE_PER_SEC: '0',
    TRAWL_CRAWL_WATCH_INTERVAL_MS: '300',
    TRAWL_PUBLIC_URL: '',
  });
  team = await cluster.team({ concurrency: 6 });
});

afterAll(async () => {
  globals.WebSocket = nodeWebSocket;
  await Promise.all(sites.map((s) => s.close()));
  await cluster?.stop();
});

describe('1.x SDK crawl methods against /v1/crawl', () => {
  it('crawlUrl: a whole crawl polled to completion, v1 documents', async () => {
    const fc = await sdk();
    const s = await site({ pages: 12, branching: 3, sitemapOnly: 2 });
    const res = await fc.crawlUrl(s.url('/'), { limit: 50, scrapeOptions: { formats: ['markdown', 'links'] } }, 1);
    if (!res.success) throw new Error(res.error);
    expect(res.status).toBe('completed');
    const expected = [...new Set([...s.reachable(), ...s.sitemapPaths()])].sort();
    expect(paths(res.data)).toEqual(expected);
    const home = res.data.find((d) => pathOf(d as never) === '/')!;
    expect(home.markdown).toContain('# Home');
    expect(Array.isArray(home.links)).toBe(true);
    expect(res.creditsUsed).toBe(expected.length);
  });

  it('asyncCrawlUrl + checkCrawlStatus: the v1 start and status shapes, paging with an absolute v1 next', async () => {
    const fc = await sdk();
    const s = await site({ pages: 110, branching: 8, sitemap: 'none' });
    const started = await fc.asyncCrawlUrl(s.url('/'), { ignoreSitemap: true });
    if (!started.success) throw new Error(started.error);
    v1CrawlStartResponseSchema.parse(started);
    expect(started.url).toBe(`${cluster.api.url}/v1/crawl/${started.id}`);
    await watchCrawl(cluster, started.id!, { key: team.key });

    const raw = await cluster.call('GET', `/v1/crawl/${started.id}`, { key: team.key });
    expect(raw.status).toBe(200);
    // strict: no v2-only keys (createdAt, completedAt, duration)
    const body = v1CrawlStatusResponseSchema.parse(raw.body);
    expect(body.data).toHaveLength(100);
    expect(body.next).toBe(`${cluster.api.url}/v1/crawl/${started.id}?skip=100`);

    const all = await fc.checkCrawlStatus(started.id, true);
    if (!all.success) throw new Error(all.error);
    expect(all.status).toBe('completed');
    expect(all.expiresAt.getTime()).toBeGreaterThan(Date.parse('2020-01-01'));
    expect(paths(all.data)).toEqual(s.reachable().sort());
    const last = await fc.checkCrawlStatus(started.id, false, body.next);
    if (!last.success) throw new Error(last.error);
    expect(last.data).toHaveLength(s.reachable().length - 100);
    expect(last.next).toBeUndefined();
    const rawLast = await cluster.call('GET', `/v1/crawl/${started.id}?skip=100`, { key: team.key });
    expect(rawLast.body).not.toHaveProperty('next');
  });

  it('the v1 crawl options: maxDepth, ignoreSitemap, allowBackwardLinks', async () => {
    const fc = await sdk();
    const s = await site({ pages: 40, branching: 3, sitemapOnly: 2 });
    const shallow = await fc.crawlUrl(s.url('/'), { maxDepth: 1, ignoreSitemap: true }, 1);
    if (!shallow.success) throw new Error(shallow.error);
    expect(paths(shallow.data)).toEqual(s.reachable({ maxDepth: 1 }).sort());

    // From /p/1 only /p/... pages are in scope, unless backward links are allowed.
    const sub = await fc.crawlUrl(s.url('/p/1'), { ignoreSitemap: true, limit: 100 }, 1);
    if (!sub.success) throw new Error(sub.error);
    expect(paths(sub.data).every((p) => p.startsWith('/p/'))).toBe(true);
    const back = await fc.crawlUrl(s.url('/p/1'), { ignoreSitemap: true, allowBackwardLinks: true, limit: 100 }, 1);
    if (!back.success) throw new Error(back.error);
    expect(paths(back.data)).toContain('/about');
  });

  it('checkCrawlErrors, cancelCrawl, and the ongoing/active lists', async () => {
    const fc = await sdk();
    const s = await site({ pages: 8, brokenLinks: true, privatePages: 1 });
    const done = await fc.crawlUrl(s.url('/'), { limit: 50 }, 1);
    if (!done.success) throw new Error(done.error);
    const id = idOf(await fc.asyncCrawlUrl(s.url('/'), {}));
    const errors = await fc.checkCrawlErrors(id);
    expect(errors).toHaveProperty('errors');

    const slow = await site({ pages: 30, sitemap: 'none' });
    const rid = idOf(await fc.asyncCrawlUrl(slow.url('/'), { delay: 5, ignoreSitemap: true }));
    for (const path of ['/v1/crawl/ongoing', '/v1/crawl/active']) {
      const list = await cluster.call('GET', path, { key: team.key });
      expect(list.status).toBe(200);
      expect(list.body.crawls.map((c: { id: string }) => c.id)).toContain(rid);
    }
    expect(await fc.cancelCrawl(rid)).toEqual({ status: 'cancelled' });
    const cancelled = await fc.checkCrawlStatus(rid);
    if (!cancelled.success) throw new Error(cancelled.error);
    expect(cancelled.status).toBe('cancelled');
    const again = await cluster.call('DELETE', `/v1/crawl/${rid}`, { key: team.key });
    expect(again.status).toBe(409);

    await watchCrawl(cluster, id, { key: team.key });
    const finished = await fc.checkCrawlErrors(id);
    if (!('errors' in finished)) throw new Error('no errors body');
    expect(finished.errors.length).toBeGreaterThan(0);
    expect(finished.robotsBlocked.map((u: string) => new URL(u).pathname)).toEqual(['/private/0']);
  });

  it('crawlUrlAndWatch: the WebSocket at /v1/crawl/:id sends every document, then done as the close reason', async () => {
    const errors = jest.spyOn(console, 'error');
    try {
      const fc = await sdk();
      const s = await site({ pages: 15, branching: 3, sitemap: 'none' });
      const watcher = await fc.crawlUrlAndWatch(s.url('/'), { ignoreSitemap: true, scrapeOptions: { formats: ['markdown'] } });
      const docs: { metadata?: { sourceURL?: string }; markdown?: string }[] = [];
      watcher.addEventListener('document', (e) => {
        docs.push((e as CustomEvent).detail);
      });
      const closed = new Promise((resolve) => (watcher as unknown as { ws: WebSocket }).ws.addEventListener('close', resolve));
      const end = await watchEnd(watcher);
      expect(end).toMatchObject({ type: 'done', detail: { status: 'completed' } });
      await closed;
      expect(paths(docs)).toEqual(s.reachable().sort());
      expect(docs.every((d) => typeof d.markdown === 'string')).toBe(true);
      // The watcher parses every close reason: an empty one makes it log a JSON error.
      expect(errors).not.toHaveBeenCalled();
    } finally {
      errors.mockRestore();
    }
  });

  it('crawlUrlAndWatch: a cancelled crawl ends the watcher with an error event', async () => {
    const fc = await sdk();
    const s = await site({ pages: 30, sitemap: 'none' });
    const watcher = await fc.crawlUrlAndWatch(s.url('/'), { ignoreSitemap: true, delay: 5 });
    const end = watchEnd(watcher);
    expect(await fc.cancelCrawl(watcher.id)).toEqual({ status: 'cancelled' });
    expect(await end).toMatchObject({ type: 'error', detail: { status: 'failed', error: 'Crawl was cancelled' } });
  });

  it('batchScrapeUrlsAndWatch: the 1.x SDK watches a batch scrape at /v1/crawl/:id too', async () => {
    const fc = await sdk();
    const s = await site({ pages: 5, sitemap: 'none' });
    const watcher = await fc.batchScrapeUrlsAndWatch([s.url('/'), s.url('/about')], { formats: ['markdown'] });
    const docs: { metadata?: { sourceURL?: string } }[] = [];
    watcher.addEventListener('document', (e) => {
      docs.push((e as CustomEvent).detail);
    });
    expect(await watchEnd(watcher)).toMatchObject({ type: 'done', detail: { status: 'completed' } });
    expect(paths(docs)).toEqual(['/', '/about']);
  });
});

type Watcher = Awaited<ReturnType<Awaited<ReturnType<typeof sdk>>['crawlUrlAndWatch']>>;

/** The watcher's terminal event, or `closed` when the socket closed without one. */
function watchEnd(watcher: Watcher): Promise<{ type: string; detail?: { status: string; error?: string } }> {
  return new Promise((resolve) => {
    watcher.addEventListener('done', (e) => resolve({ type: 'done', detail: (e as CustomEvent).detail }));
    watcher.addEventListener('error', (e) => resolve({ type: 'error', detail: (e as CustomEvent).detail }));
    // Listeners run in order: the watcher's own close handler (which may dispatch the end) runs first.
    (watcher as unknown as { ws: WebSocket }).ws.addEventListener('close', () => resolve({ type: 'closed' }));
  });
}

describe('/v1/crawl validation', () => {
  it('refuses v2-only and unknown keys with 400, and unknown ids with 404', async () => {
    for (const body of [{ url: 'https://example.com', prompt: 'docs' }, { url: 'https://example.com', sitemap: 'skip' }, { url: 'https://example.com', nope: true }]) {
      const r = await cluster.call('POST', '/v1/crawl', { key: team.key, body });
      expect(r.status).toBe(400);
      expect(r.body.success).toBe(false);
    }
    const missing = '00000000-0000-4000-8000-000000000000';
    expect((await cluster.call('GET', `/v1/crawl/${missing}`, { key: team.key })).status).toBe(404);
    expect((await cluster.call('GET', `/v1/crawl/${missing}/errors`, { key: team.key })).status).toBe(404);
    expect((await cluster.call('DELETE', `/v1/crawl/${missing}`, { key: team.key })).status).toBe(404);
  });
});
