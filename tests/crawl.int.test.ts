import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { crawlErrorsResponseSchema, crawlStartResponseSchema, crawlStatusResponseSchema, mapResponseSchema } from '@trawl/api-schema';
import { GeneratedSite, waitFor } from '@trawl/testing';
import { TestCluster } from './helpers/cluster.js';
import { allDocuments, pathOf, watchCrawl } from './helpers/crawl-watch.js';

jest.setTimeout(60_000);

let cluster: TestCluster;
let team: { id: string; key: string };
const sites: GeneratedSite[] = [];

async function site(opts: Parameters<typeof GeneratedSite.start>[0]): Promise<GeneratedSite> {
  const s = await GeneratedSite.start(opts);
  sites.push(s);
  return s;
}

/** Starts a crawl for the test team, waits for its stream to end, returns status, documents and errors. */
async function crawl(body: Record<string, unknown>, opts: { key?: string } = {}) {
  const key = opts.key ?? team.key;
  const start = await cluster.call('POST', '/v2/crawl', { key, body });
  expect(start.status).toBe(200);
  const id = start.body.id as string;
  const stream = await watchCrawl(cluster, id, { key });
  const all = await allDocuments(cluster, id, 'crawl', key);
  const errors = await cluster.call('GET', `/v2/crawl/${id}/errors`, { key });
  return { id, start: start.body, stream, ...all, errors: errors.body, paths: all.docs.map(pathOf).sort() };
}

beforeAll(async () => {
  cluster = await TestCluster.start({
    TRAWL_CRAWL_HOST_RATE_PER_SEC: '0',
    TRAWL_CRAWL_WATCH_INTERVAL_MS: '300',
    TRAWL_CRAWL_STALE_AFTER_MS: '1500',
    TRAWL_PUBLIC_URL: '',
  });
  team = await cluster.team({ concurrency: 6 });
});

afterAll(async () => {
  await Promise.all(sites.map((s) => s.close()));
  await cluster?.stop();
});

describe('crawl', () => {
  it('crawls a whole site: every reachable page once, sitemap-only pages, completed when the last page finished', async () => {
    const s = await site({ pages: 40, branching: 3, sitemapOnly: 3 });
    const r = await crawl({ url: s.url('/'), scrapeOptions: { formats: ['markdown', 'links'] } });
    const expected = [...new Set([...s.reachable(), ...s.sitemapPaths()])].sort();
    expect(r.paths).toEqual(expected);
    expect(r.status.status).toBe('completed');
    expect(r.status.completed).toBe(expected.length);
    expect(r.status.total).toBe(expected.length);
    expect(r.status.creditsUsed).toBe(expected.length);
    expect(r.status.next).toBeUndefined();
    // The pages ran in the worker that admitted them (the seed's kickoff, then each page's next
    // pages), without a BullMQ job each (TRAWL_WORKER_LOCAL_RUNS).
    const metrics = await (await fetch(`http://127.0.0.1:${cluster.worker!.metricsPort}/metrics`)).text();
    const localDone = Number(/^trawl_local_runs_total\{[^}]*outcome="done"[^}]*\} (\d+)/m.exec(metrics)?.[1] ?? 0);
    expect(localDone).toBeGreaterThanOrEqual(expected.length);
    // the answers match the published contract
    crawlStartResponseSchema.parse(r.start);
    crawlStatusResponseSchema.parse(r.status);
    crawlErrorsResponseSchema.parse(r.errors);
    expect(Date.parse(r.status.expiresAt) - Date.parse(r.status.completedAt)).toBe(86_400_000);
    expect(r.stream.final?.status).toBe('completed');
    expect(r.stream.documents.map(pathOf).sort()).toEqual(expected);
    const home = r.docs.find((d) => pathOf(d) === '/')!;
    expect(home.markdown).toContain('# Home');
    expect(Array.isArray(home.links)).toBe(true);
    // every page fetched once (robots.txt and sitemap aside)
    for (const p of expected) expect(s.hits.get(p)).toBe(1);
    // every team slot comes back once the crawl is done
    await waitFor(async () => (await cluster.call('GET', '/v2/concurrency-check', { key: team.key })).body.concurrency === 0, { what: 'team slots back to 0' });
  });

  it('honours maxDiscoveryDepth, limit (exactly), includePaths and excludePaths', async () => {
    const s = await site({ pages: 60, branching: 3, sitemap: 'none' });
    const depth1 = await crawl({ url: s.url('/'), maxDiscoveryDepth: 1, sitemap: 'skip' });
    expect(depth1.paths).toEqual(s.reachable({ maxDepth: 1 }).sort());

    const limited = await crawl({ url: s.url('/'), limit: 7, sitemap: 'skip' });
    expect(limited.docs).toHaveLength(7);
    expect(limited.status.total).toBe(7);

    const only = await crawl({ url: s.url('/'), includePaths: ['^/p/1\\d$'], sitemap: 'skip', crawlEntireDomain: true });
    // The seed is always scraped; pages reached only through excluded pages are not found.
    expect(only.paths.every((p) => p === '/' || /^\/p\/1\d$/.test(p))).toBe(true);

    const excluded = await crawl({ url: s.url('/'), excludePaths: ['^/p/'], sitemap: 'skip' });
    expect(excluded.paths).toEqual(['/', '/about']);
  });

  it('crawlEntireDomain false keeps to the seed path; regexOnFullURL matches the whole URL', async () => {
    const s = await site({ pages: 30, branching: 3, sitemap: 'plain' });
    const under = await crawl({ url: s.url('/p/'), sitemap: 'include' });
    expect(under.paths.length).toBeGreaterThan(5);
    expect(under.paths.every((p) => p.startsWith('/p/'))).toBe(true);
    const full = await crawl({ url: s.url('/'), includePaths: [`^${s.origin.replace(/\./g, '\\.')}/p/2\\d?$`], regexOnFullURL: true, sitemap: 'only' });
    expect(full.paths.filter((p) => p !== '/').every((p) => /^\/p\/2\d?$/.test(p))).toBe(true);
  });

  it('honours robots.txt (blocked URLs listed) and ignoreRobotsTxt really ignores it', async () => {
    const s = await site({ pages: 10, privatePages: 3 });
    const polite = await crawl({ url: s.url('/') });
    expect(polite.paths.some((p) => p.startsWith('/private/'))).toBe(false);
    expect(polite.errors.robotsBlocked.map((u: string) => new URL(u).pathname).sort()).toEqual(['/private/0', '/private/1', '/private/2']);
    expect(s.hits.get('/private/0')).toBeUndefined();
    const rude = await crawl({ url: s.url('/'), ignoreRobotsTxt: true });
    expect(rude.paths.filter((p) => p.startsWith('/private/'))).toHaveLength(3);
    expect(rude.errors.robotsBlocked).toEqual([]);
  });

  it('sitemaps: index with a gzipped child, only and skip', async () => {
    const s = await site({ pages: 12, sitemapOnly: 4, sitemap: 'index-gz' });
    const only = await crawl({ url: s.url('/'), sitemap: 'only' });
    expect(only.paths).toEqual([...new Set(['/', ...s.sitemapPaths()])].sort());
    const skip = await crawl({ url: s.url('/'), sitemap: 'skip' });
    expect(skip.paths.some((p) => p.startsWith('/hidden/'))).toBe(false);
    const include = await crawl({ url: s.url('/') });
    expect(include.paths.filter((p) => p.startsWith('/hidden/'))).toHaveLength(4);
  });

  it('broken links go to /errors, redirects and query variants never duplicate a page', async () => {
    const s = await site({ pages: 20, branching: 3, brokenLinks: true, redirects: true, queryVariants: true, sitemap: 'none' });
    const r = await crawl({ url: s.url('/'), ignoreQueryParameters: true });
    // a redirected link counts as its target page, once
    expect(r.docs.map((d) => new URL(d.metadata.url).pathname).sort()).toEqual(s.reachable().sort());
    expect(r.errors.errors.length).toBeGreaterThan(0);
    for (const e of r.errors.errors) {
      expect(new URL(e.url).pathname).toMatch(/^\/missing\//);
      expect(e.code).toBe('SCRAPE_HTTP_ERROR');
      expect(typeof e.id).toBe('string');
      expect(typeof e.timestamp).toBe('string');
    }
    expect(r.status.creditsUsed).toBe(r.docs.length);

    expect(r.docs.every((d) => new URL(d.metadata.sourceURL).search === '')).toBe(true);
    // by default a query variant is a page of its own
    const withQueries = await crawl({ url: s.url('/') });
    expect(withQueries.docs.some((d) => new URL(d.metadata.sourceURL).search !== '')).toBe(true);
  });

  it('maxConcurrency bounds the pages in flight; pages over 100 are paged with next', async () => {
    const s = await site({ pages: 120, branching: 6, latencyMs: 20, sitemap: 'none' });
    const r = await crawl({ url: s.url('/'), maxConcurrency: 2, sitemap: 'skip' });
    expect(s.maxInFlight).toBeLessThanOrEqual(2);
    expect(r.docs).toHaveLength(s.reachable().length);
    expect(r.pages[0]!.data).toHaveLength(100);
    expect(r.pages[0]!.next).toBe(`${cluster.api.url}/v2/crawl/${r.id}?skip=100`);
    expect(r.pages.at(-1)!.next).toBeUndefined();
    const limited = await cluster.call('GET', `/v2/crawl/${r.id}?skip=5&limit=3`, { key: team.key });
    expect(limited.body.data.map(pathOf)).toEqual(r.docs.slice(5, 8).map(pathOf));
    expect(limited.body.next).toBe(`${cluster.api.url}/v2/crawl/${r.id}?skip=8&limit=3`);
  });

  it('delay spaces page starts without holding a worker: a sync scrape runs meanwhile', async () => {
    const s = await site({ pages: 3, branching: 3, sitemap: 'none' });
    const start = await cluster.call('POST', '/v2/crawl', { key: team.key, body: { url: s.url('/'), delay: 0.4 } });
    const scrape = await cluster.call('POST', '/v2/scrape', { key: team.key, body: { url: s.url('/about') } });
    expect(scrape.status).toBe(200);
    const stream = await watchCrawl(cluster, start.body.id, { key: team.key });
    expect(stream.final?.status).toBe('completed');
    const starts = s.served.filter((p) => p.path !== '/about').map((p) => p.at);
    for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(350);
  });

  it('cancel stops new pages at once; a second cancel is 409; unknown ids 404; bad ids 400', async () => {
    const s = await site({ pages: 30, latencyMs: 50, sitemap: 'none' });
    const start = await cluster.call('POST', '/v2/crawl', { key: team.key, body: { url: s.url('/'), delay: 0.3 } });
    const id = start.body.id as string;
    const streaming = watchCrawl(cluster, id, { key: team.key });
    const del = await cluster.call('DELETE', `/v2/crawl/${id}`, { key: team.key });
    expect(del.body).toEqual({ status: 'cancelled' });
    const stream = await streaming;
    expect(stream.final?.status).toBe('cancelled');
    const servedAtCancel = s.served.length;
    const again = await cluster.call('DELETE', `/v2/crawl/${id}`, { key: team.key });
    expect(again.status).toBe(409);
    const status = await cluster.call('GET', `/v2/crawl/${id}`, { key: team.key });
    expect(status.body.status).toBe('cancelled');
    // nothing new starts after the cancel (a page already running may finish)
    const later = await cluster.call('POST', '/v2/scrape', { key: team.key, body: { url: s.url('/about') } });
    expect(later.status).toBe(200);
    expect(s.served.filter((p) => p.path !== '/about').length).toBeLessThanOrEqual(servedAtCancel + 1);
    expect(s.served.length).toBeLessThan(5);
    expect((await cluster.call('GET', '/v2/crawl/8b3f1f44-93c1-4d2c-9b7e-1d6f2f0f2a11', { key: team.key })).status).toBe(404);
    expect((await cluster.call('GET', '/v2/crawl/not-a-uuid', { key: team.key })).status).toBe(400);
    // another team cannot see it
    const other = await cluster.team();
    expect((await cluster.call('GET', `/v2/crawl/${id}`, { key: other.key })).status).toBe(404);
  });

  it('lists active crawls (v2 and v1 records), refuses reused idempotency keys, bad patterns and prompt', async () => {
    const s = await site({ pages: 5, latencyMs: 30, sitemap: 'none' });
    const headers = { 'x-idempotency-key': `k-${Math.random()}` };
    const start = await cluster.call('POST', '/v2/crawl', {
      key: team.key, headers,
      body: { url: s.url('/'), delay: 0.2, scrapeOptions: { formats: ['markdown'], onlyMainContent: false } },
    });
    expect(start.status).toBe(200);
    const reused = await cluster.call('POST', '/v2/crawl', { key: team.key, headers, body: { url: s.url('/') } });
    expect(reused.status).toBe(409);
    const v2 = await cluster.call('GET', '/v2/crawl/active', { key: team.key });
    expect(v2.body.success).toBe(true);
    const mine = v2.body.crawls.find((c: { id: string }) => c.id === start.body.id);
    expect(mine).toMatchObject({ teamId: team.id, url: s.url('/'), options: { scrapeOptions: { onlyMainContent: false } } });
    const v1 = await cluster.call('GET', '/v1/crawl/active', { key: team.key });
    const v1mine = v1.body.crawls.find((c: { id: string }) => c.id === start.body.id);
    expect(v1mine.options.scrapeOptions).toMatchObject({ formats: ['markdown'], parsePDF: true, onlyMainContent: false });
    await watchCrawl(cluster, start.body.id, { key: team.key });
    const after = await cluster.call('GET', '/v2/crawl/active', { key: team.key });
    expect(after.body.crawls.find((c: { id: string }) => c.id === start.body.id)).toBeUndefined();

    const bad = await cluster.call('POST', '/v2/crawl', { key: team.key, body: { url: s.url('/'), includePaths: ['(unclosed'] } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('BAD_REQUEST');
    expect(bad.body.details.issues[0].path).toContain('includePaths');
    const prompt = await cluster.call('POST', '/v2/crawl', { key: team.key, body: { url: s.url('/'), prompt: 'only blog posts' } });
    expect(prompt.status).toBe(400);
    expect(prompt.body.code).toBe('LLM_NOT_CONFIGURED');
    const preview = await cluster.call('POST', '/v2/crawl/params-preview', { key: team.key, body: { url: s.url('/'), prompt: 'x' } });
    expect(preview.body.code).toBe('LLM_NOT_CONFIGURED');
    const unknown = await cluster.call('POST', '/v2/crawl', { key: team.key, body: { url: s.url('/'), bogus: 1 } });
    expect(unknown.status).toBe(400);
  });

  it('a crawl ends failed when its team runs out of credits', async () => {
    const s = await site({ pages: 20, sitemap: 'none' });
    const poor = await cluster.team({ concurrency: 1, credits: 3 });
    const start = await cluster.call('POST', '/v2/crawl', { key: poor.key, body: { url: s.url('/'), sitemap: 'skip' } });
    const stream = await watchCrawl(cluster, start.body.id, { key: poor.key });
    expect(stream.final?.status).toBe('failed');
    const status = await cluster.call('GET', `/v2/crawl/${start.body.id}`, { key: poor.key });
    expect(status.body.status).toBe('failed');
    expect(status.body.error).toBeTruthy();
    expect(status.body.completed).toBe(3);
    expect(s.served.length).toBe(3);
  });

  it('maps v1 option names (maxDepth, allowBackwardCrawling, ignoreSitemap)', async () => {
    const s = await site({ pages: 30, branching: 3, sitemapOnly: 2 });
    const r = await crawl({ url: s.url('/'), maxDepth: 1, ignoreSitemap: true });
    expect(r.paths).toEqual(s.reachable({ maxDepth: 1 }).sort());
  });

  it('the watchdog recovers a page whose job was lost, so the crawl completes', async () => {
    const s = await site({ pages: 4, branching: 4, sitemap: 'none' });
    const { CrawlStore, RedisKeys } = await import('@trawl/queue');
    const store = new CrawlStore(cluster.redis, new RedisKeys('trawl'));
    const start = await cluster.call('POST', '/v2/crawl', { key: team.key, body: { url: s.url('/'), delay: 0.3 } });
    const id = start.body.id as string;
    // Simulate a crash between taking a page from the frontier and submitting its job.
    await store.enqueue(id, [{ key: 'lost-page', url: s.url('/about?lost=1'), depth: 1 }]);
    const keys = new RedisKeys('trawl').crawl(id);
    const [jobId] = (await cluster.redis.zrange(keys[2]!, -1, -1)) as [string];
    await cluster.redis.zrem(keys[2]!, jobId);
    await cluster.redis.zadd(keys[4]!, Date.now() - 60_000, jobId);
    const stream = await watchCrawl(cluster, id, { key: team.key });
    expect(stream.final?.status).toBe('completed');
    expect(s.hits.get('/about?lost=1')).toBe(1);
  });
});

describe('batch scrape', () => {
  it('scrapes a URL list, reports invalid URLs, appends, pages errors', async () => {
    const s = await site({ pages: 6, brokenLinks: true });
    const urls = [s.url('/'), s.url('/p/0'), s.url('/p/1'), 'not a url', 'ftp://x.example/'];
    const start = await cluster.call('POST', '/v2/batch/scrape', { key: team.key, body: { urls, formats: ['markdown'], maxConcurrency: 2 } });
    expect(start.status).toBe(200);
    expect(start.body.url).toBe(`${cluster.api.url}/v2/batch/scrape/${start.body.id}`);
    expect(start.body.invalidURLs).toEqual(['not a url', 'ftp://x.example/']);
    const stream = await watchCrawl(cluster, start.body.id, { kind: 'batch', key: team.key });
    expect(stream.final?.status).toBe('completed');
    const appended = await cluster.call('POST', '/v2/batch/scrape', { key: team.key, body: { urls: [s.url('/p/2'), s.url('/missing/1')], appendToId: start.body.id } });
    expect(appended.body.id).toBe(start.body.id);
    await watchCrawl(cluster, start.body.id, { kind: 'batch', key: team.key });
    const all = await allDocuments(cluster, start.body.id, 'batch', team.key);
    // a batch keeps 4xx pages as documents (the caller asked for those URLs)
    expect(all.docs.map(pathOf).sort()).toEqual(['/', '/missing/1', '/p/0', '/p/1', '/p/2']);
    expect(all.docs.find((d) => pathOf(d) === '/missing/1')!.metadata.statusCode).toBe(404);
    expect(all.status.status).toBe('completed');
    const errors = await cluster.call('GET', `/v2/batch/scrape/${start.body.id}/errors`, { key: team.key });
    expect(errors.body).toEqual({ errors: [], robotsBlocked: [] });
    const strict = await cluster.call('POST', '/v2/batch/scrape', { key: team.key, body: { urls: [s.url('/'), 'ftp://nope.example/'], ignoreInvalidURLs: false } });
    expect(strict.status).toBe(400);
    // a batch id is not a crawl id
    expect((await cluster.call('GET', `/v2/crawl/${start.body.id}`, { key: team.key })).status).toBe(404);
    const cancelDone = await cluster.call('DELETE', `/v2/batch/scrape/${start.body.id}`, { key: team.key });
    expect(cancelDone.status).toBe(409);
  });

  it('records failed pages in /errors without failing the batch', async () => {
    const start = await cluster.call('POST', '/v2/batch/scrape', { key: team.key, body: { urls: ['http://127.0.0.1:1/refused'] } });
    const stream = await watchCrawl(cluster, start.body.id, { kind: 'batch', key: team.key });
    expect(stream.final?.status).toBe('completed');
    const errors = await cluster.call('GET', `/v2/batch/scrape/${start.body.id}/errors`, { key: team.key });
    expect(errors.body.errors).toHaveLength(1);
    expect(errors.body.errors[0]).toMatchObject({ url: 'http://127.0.0.1:1/refused', code: 'SCRAPE_CONNECTION_REFUSED' });
  });
});

describe('map', () => {
  it('finds pages no sitemap lists, with titles; search ranks; limit bounds', async () => {
    const s = await site({ pages: 25, branching: 3, sitemapOnly: 2 });
    // a sitemap listing only the hidden pages: the rest must come from link discovery
    const r = await cluster.call('POST', '/v2/map', { key: team.key, body: { url: s.url('/') } });
    expect(r.status).toBe(200);
    mapResponseSchema.parse(r.body);
    const paths = r.body.links.map((l: { url: string }) => new URL(l.url).pathname);
    for (const p of s.reachable()) expect(paths).toContain(p);
    for (const p of s.sitemapPaths()) expect(paths).toContain(p);
    expect(new Set(paths).size).toBe(paths.length);
    const home = r.body.links.find((l: { url: string }) => new URL(l.url).pathname === '/');
    expect(home.title).toBeTruthy();
    const searched = await cluster.call('POST', '/v2/map', { key: team.key, body: { url: s.url('/'), search: 'about' } });
    expect(new URL(searched.body.links[0].url).pathname).toBe('/about');
    const limited = await cluster.call('POST', '/v2/map', { key: team.key, body: { url: s.url('/'), limit: 5 } });
    expect(limited.body.links).toHaveLength(5);
    const skip = await cluster.call('POST', '/v2/map', { key: team.key, body: { url: s.url('/'), sitemap: 'skip' } });
    expect(skip.body.links.some((l: { url: string }) => new URL(l.url).pathname.startsWith('/hidden/'))).toBe(false);
    const bad = await cluster.call('POST', '/v2/map', { key: team.key, body: { url: s.url('/'), limit: 0 } });
    expect(bad.status).toBe(400);
  });

  it('answers within its timeout on a slow site, with what it found', async () => {
    const s = await site({ pages: 200, branching: 4, latencyMs: 300, sitemap: 'none' });
    const r = await cluster.call('POST', '/v2/map', { key: team.key, body: { url: s.url('/'), timeout: 2000 } });
    // Answered with what it found (200), not the timeout's 408.
    expect(r.status).toBe(200);
    expect(r.body.links.length).toBeGreaterThan(1);
  });
});
