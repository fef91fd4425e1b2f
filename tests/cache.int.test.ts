import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { FixtureSite, RedisServerFixture, buildPdf } from '@trawl/testing';
import { TestCluster } from './helpers/cluster.js';
import { allDocuments, pathOf, watchCrawl } from './helpers/crawl-watch.js';

const page = (title: string, body: string) => `<!doctype html><html><head><title>${title}</title></head>
<body><nav><a href="/nav">Site navigation</a></nav><main><article><h1>${title}</h1>
<p>${body} This paragraph has enough words in it to be kept as the main content of the page.</p>
<table><tr><th>k</th><th>v</th></tr><tr><td>one</td><td>1</td></tr></table></article></main>
<footer>Footer text</footer></body></html>`;

const REPORT_PDF = buildPdf([
  [{ text: 'Quarterly report', y: 100, size: 20 }, { text: 'First page text of the report.', y: 140 }],
  [{ text: 'Second page text of the report.', y: 100 }],
]);

let cluster: TestCluster;
let site: FixtureSite;
let version = 1;

beforeAll(async () => {
  site = new FixtureSite()
    .route('/changing', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(page('Changing', `Version ${version} of the page.`));
    })
    .route('/missing', (_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end(page('Gone', 'Nothing here.'));
    })
    .page('/site/', `<html><body><main><p>Home page of the small site with links.</p>
      <a href="/site/a">A</a> <a href="/site/b">B</a></main></body></html>`)
    .page('/site/a', `<html><body><main><p>Page A of the site, with its text.</p><a href="/site/c">C</a></main></body></html>`)
    .page('/site/b', `<html><body><main><p>Page B of the site, with its text.</p></main></body></html>`)
    .page('/site/c', `<html><body><main><p>Page C, only linked from A.</p></main></body></html>`)
    .route('/report.pdf', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/pdf' });
      res.end(REPORT_PDF);
    });
  for (let i = 0; i < 14; i++) site.page(`/p${i}`, page(`Page ${i}`, `Body of page ${i}.`));
  await site.start();
  cluster = await TestCluster.start({ TRAWL_WORKER_ROLES: 'http,documents' });
});
afterAll(async () => {
  await cluster.stop();
  await site.stop();
}, 30_000);

const scrape = (body: Record<string, unknown>, key?: string) => cluster.call('POST', '/v2/scrape', { body, ...(key ? { key } : {}) });
const remaining = async (key: string) => (await cluster.call('GET', '/v2/team/credit-usage', { key })).body.data.remainingCredits as number;

describe('page cache', () => {
  it('serves a second scrape from the cache without contacting the target, deriving formats with its own options', async () => {
    const url = site.url('/p0');
    const first = await scrape({ url, formats: ['markdown'] });
    expect(first.status).toBe(200);
    expect(first.body.data.metadata.cacheState).toBe('miss');
    expect(first.body.data.metadata.cachedAt).toBeUndefined();
    expect(site.hits.get('/p0')).toBe(1);

    const second = await scrape({ url, formats: ['markdown'] });
    expect(second.body.data.metadata).toMatchObject({ cacheState: 'hit', statusCode: 200, sourceURL: url, url, creditsUsed: 1 });
    expect(Date.parse(second.body.data.metadata.cachedAt)).toBeLessThanOrEqual(Date.now());
    expect(second.body.data.metadata.scrapeId).not.toBe(first.body.data.metadata.scrapeId);
    expect(second.body.data.markdown).toBe(first.body.data.markdown);

    // Other post-fetch options come from the same stored page.
    const other = await scrape({ url, formats: ['html', 'links', 'rawHtml'], onlyMainContent: false, includeTags: ['table', 'nav'] });
    expect(other.body.data.metadata.cacheState).toBe('hit');
    expect(other.body.data.html).toContain('<table>');
    expect(other.body.data.html).not.toContain('enough words');
    expect(other.body.data.links).toContain(site.url('/nav'));
    expect(other.body.data.rawHtml).toContain('<footer>Footer text</footer>');
    expect(site.hits.get('/p0')).toBe(1);
    // The hit is retained like any scrape.
    const again = await cluster.call('GET', `/v2/scrape/${second.body.data.metadata.scrapeId}`);
    expect(again.body.data.metadata.cacheState).toBe('hit');
  });

  it('maxAge 0 and an older copy fetch again; the fresh copy replaces the old one', async () => {
    const url = site.url('/changing');
    version = 1;
    await scrape({ url });
    expect((await scrape({ url })).body.data.metadata.cacheState).toBe('hit');
    version = 2;
    const fresh = await scrape({ url, maxAge: 0 });
    expect(fresh.body.data.metadata.cacheState).toBe('miss');
    expect(fresh.body.data.markdown).toContain('Version 2');
    expect(site.hits.get('/changing')).toBe(2);
    const cached = await scrape({ url });
    expect(cached.body.data.metadata.cacheState).toBe('hit');
    expect(cached.body.data.markdown).toContain('Version 2');
    version = 3;
    await scrape({ url: site.url('/p1') }); // lets at least a few ms pass since the copy was stored
    const older = await scrape({ url, maxAge: 1 });
    expect(older.body.data.metadata.cacheState).toBe('miss');
    expect(older.body.data.markdown).toContain('Version 3');
  });

  it('minAge is cache-only: 404 SCRAPE_NO_CACHED_DATA without a copy old enough, never a fetch', async () => {
    const none = await scrape({ url: site.url('/p2'), minAge: 1 });
    expect(none.status).toBe(404);
    expect(none.body).toMatchObject({ success: false, code: 'SCRAPE_NO_CACHED_DATA' });
    expect(site.hits.get('/p2')).toBeUndefined();
    await scrape({ url: site.url('/p2') });
    const young = await scrape({ url: site.url('/p2'), minAge: 600_000 });
    expect(young.status).toBe(404);
    expect(young.body.code).toBe('SCRAPE_NO_CACHED_DATA');
    const any = await scrape({ url: site.url('/p2'), minAge: 1 });
    expect(any.status).toBe(200);
    expect(any.body.data.metadata.cacheState).toBe('hit');
    expect(site.hits.get('/p2')).toBe(1);
  });

  it('lockdown never contacts the target: 404 SCRAPE_LOCKDOWN_CACHE_MISS billed 1, a hit billed 5, nothing retained', async () => {
    const team = await cluster.team({ credits: 100 });
    const miss = await scrape({ url: site.url('/p3'), lockdown: true }, team.key);
    expect(miss.status).toBe(404);
    expect(miss.body).toMatchObject({ success: false, code: 'SCRAPE_LOCKDOWN_CACHE_MISS' });
    expect(miss.body.error).not.toContain('/p3');
    expect(site.hits.get('/p3')).toBeUndefined();
    expect(await remaining(team.key)).toBe(99);

    await scrape({ url: site.url('/p3') }, team.key);
    expect(await remaining(team.key)).toBe(98);
    const hit = await scrape({ url: site.url('/p3'), lockdown: true }, team.key);
    expect(hit.status).toBe(200);
    expect(hit.body.data.metadata).toMatchObject({ cacheState: 'hit', creditsUsed: 5 });
    expect(await remaining(team.key)).toBe(93);
    expect(site.hits.get('/p3')).toBe(1);
    // Lockdown runs as zero data retention: the result is not kept.
    expect((await cluster.call('GET', `/v2/scrape/${hit.body.data.metadata.scrapeId}`, { key: team.key })).status).toBe(404);
    const actions = await scrape({ url: site.url('/p3'), lockdown: true, actions: [{ type: 'scrape' }] });
    expect(actions.status).toBe(400);
  });

  it('does not store with storeInCache false, headers, zero data retention, or a non-2xx page', async () => {
    await scrape({ url: site.url('/p4'), storeInCache: false });
    expect((await scrape({ url: site.url('/p4'), minAge: 1 })).status).toBe(404);
    await scrape({ url: site.url('/p5'), headers: { cookie: 'session=1' } });
    expect((await scrape({ url: site.url('/p5'), minAge: 1 })).status).toBe(404);
    await scrape({ url: site.url('/p6'), zeroDataRetention: true });
    expect((await scrape({ url: site.url('/p6'), minAge: 1 })).status).toBe(404);
    const missing = await scrape({ url: site.url('/missing') });
    expect(missing.body.data.metadata.statusCode).toBe(404);
    expect((await scrape({ url: site.url('/missing'), minAge: 1 })).status).toBe(404);
    // A request with headers does not read the cache either (it may be one user's view).
    await scrape({ url: site.url('/p7') });
    const withHeaders = await scrape({ url: site.url('/p7'), headers: { cookie: 'session=2' } });
    expect(withHeaders.body.data.metadata.cacheState).toBe('miss');
    expect(site.hits.get('/p7')).toBe(2);
  });

  it('never writes a cache key for zero-data-retention scrapes', async () => {
    const before = await cluster.redis.keys('*:cache:*:e:*');
    await scrape({ url: site.url('/p8'), zeroDataRetention: true });
    await scrape({ url: site.url('/p9'), zeroDataRetention: true, formats: ['markdown', 'html'] });
    expect(await cluster.redis.keys('*:cache:*:e:*')).toEqual(expect.arrayContaining(before));
    expect((await cluster.redis.keys('*:cache:*:e:*')).length).toBe(before.length);
  });

  it('caches parsed documents with their page counts; another parser mode is a miss', async () => {
    const url = site.url('/report.pdf');
    const first = await scrape({ url, parsers: [{ type: 'pdf', mode: 'fast' }] });
    expect(first.status).toBe(200);
    expect(first.body.data.metadata).toMatchObject({ cacheState: 'miss', numPages: 2, creditsUsed: 2 });
    const second = await scrape({ url, parsers: [{ type: 'pdf', mode: 'fast' }] });
    expect(second.body.data.metadata).toMatchObject({ cacheState: 'hit', numPages: 2, creditsUsed: 2, contentType: 'application/pdf' });
    expect(second.body.data.markdown).toBe(first.body.data.markdown);
    expect(site.hits.get('/report.pdf')).toBe(1);
    const other = await scrape({ url, parsers: [{ type: 'pdf', mode: 'fast', maxPages: 1 }] });
    expect(other.body.data.metadata).toMatchObject({ cacheState: 'miss', numPages: 1 });
    expect(site.hits.get('/report.pdf')).toBe(2);
  });

  it('a second crawl takes its pages from the cache and still discovers every link', async () => {
    const start = async () => {
      const r = await cluster.call('POST', '/v2/crawl', { body: { url: site.url('/site/'), limit: 10, sitemap: 'skip' } });
      expect(r.status).toBe(200);
      await watchCrawl(cluster, r.body.id);
      return allDocuments(cluster, r.body.id);
    };
    const first = await start();
    expect(first.docs.map(pathOf).sort()).toEqual(['/site/', '/site/a', '/site/b', '/site/c']);
    const fetched = ['/site/', '/site/a', '/site/b', '/site/c'].map((p) => site.hits.get(p));
    const second = await start();
    expect(second.docs.map(pathOf).sort()).toEqual(['/site/', '/site/a', '/site/b', '/site/c']);
    expect(second.docs.every((d) => d.metadata.cacheState === 'hit')).toBe(true);
    expect(['/site/', '/site/a', '/site/b', '/site/c'].map((p) => site.hits.get(p))).toEqual(fetched);
  });
});

describe('cache-only modes over many pages', () => {
  it('a lockdown batch serves cached pages and lists misses as errors without contacting the site; a lockdown crawl is refused', async () => {
    await scrape({ url: site.url('/site/b') });
    const before = site.hits.get('/site/b');
    const start = await cluster.call('POST', '/v2/batch/scrape', { body: { urls: [site.url('/site/b'), site.url('/never-cached')], lockdown: true } });
    expect(start.status).toBe(200);
    await watchCrawl(cluster, start.body.id, { kind: 'batch' });
    const { docs } = await allDocuments(cluster, start.body.id, 'batch');
    expect(docs.map((d) => [pathOf(d), d.metadata.cacheState, d.metadata.creditsUsed])).toEqual([['/site/b', 'hit', 5]]);
    const errors = await cluster.call('GET', `/v2/batch/scrape/${start.body.id}/errors`);
    expect(errors.body.errors.map((e: { code: string }) => e.code)).toEqual(['SCRAPE_LOCKDOWN_CACHE_MISS']);
    expect(site.hits.get('/site/b')).toBe(before);
    expect(site.hits.get('/never-cached')).toBeUndefined();
    const crawl = await cluster.call('POST', '/v2/crawl', { body: { url: site.url('/site/'), scrapeOptions: { lockdown: true } } });
    expect(crawl.status).toBe(400);
    expect(crawl.body).toMatchObject({ code: 'BAD_REQUEST' });
    expect(JSON.stringify(crawl.body)).toContain('scrapeOptions.lockdown');
  });
});

describe('cache isolation between teams', () => {
  it('is per team by default: team B\'s lockdown scrape of a URL only team A scraped is a miss', async () => {
    const a = await cluster.team({ credits: 100 });
    const b = await cluster.team({ credits: 100 });
    const url = site.url('/p12');
    expect((await scrape({ url }, a.key)).body.data.metadata.cacheState).toBe('miss');
    expect((await scrape({ url, lockdown: true }, a.key)).body.data.metadata.cacheState).toBe('hit');
    const other = await scrape({ url, lockdown: true }, b.key);
    expect(other.status).toBe(404);
    expect(other.body).toMatchObject({ success: false, code: 'SCRAPE_LOCKDOWN_CACHE_MISS' });
    const minAge = await scrape({ url, minAge: 1 }, b.key);
    expect(minAge.body.code).toBe('SCRAPE_NO_CACHED_DATA');
    // B's own scrape fetches again rather than reading A's copy.
    expect((await scrape({ url }, b.key)).body.data.metadata.cacheState).toBe('miss');
    expect(site.hits.get('/p12')).toBe(2);
  });

  it('with TRAWL_CACHE_SHARED=true one team\'s page serves another team\'s lockdown scrape', async () => {
    const shared = await TestCluster.start({ TRAWL_CACHE_SHARED: 'true' });
    try {
      const a = await shared.team({ credits: 100 });
      const b = await shared.team({ credits: 100 });
      const url = site.url('/p13');
      await shared.call('POST', '/v2/scrape', { body: { url }, key: a.key });
      const hit = await shared.call('POST', '/v2/scrape', { body: { url, lockdown: true }, key: b.key });
      expect(hit.status).toBe(200);
      expect(hit.body.data.metadata.cacheState).toBe('hit');
      expect(site.hits.get('/p13')).toBe(1);
    } finally {
      await shared.stop();
    }
  });
});

describe('cache deployment settings', () => {
  it('keeps the cache in a separate Redis when CACHE_REDIS_URL is set', async () => {
    const cacheServer = await RedisServerFixture.start({ appendonly: false });
    const cacheRedis = new Redis(cacheServer.url);
    const own = await TestCluster.start({ CACHE_REDIS_URL: cacheServer.url });
    try {
      await own.call('POST', '/v2/scrape', { body: { url: site.url('/p10') } });
      const hit = await own.call('POST', '/v2/scrape', { body: { url: site.url('/p10') } });
      expect(hit.body.data.metadata.cacheState).toBe('hit');
      // One page (its key is a sha256 digest); its derived formats sit next to it, in the same Redis.
      expect((await cacheRedis.keys('*:cache:*:e:*')).filter((k) => /:e:[0-9a-f]{64}$/.test(k)).length).toBe(1);
      expect(await own.redis.keys('*:cache:*')).toEqual([]);
    } finally {
      await own.stop();
      cacheRedis.disconnect();
      await cacheServer.stop();
    }
  });

  it('with the cache off: no cacheState, and lockdown/minAge are refused with a code', async () => {
    const off = await TestCluster.start({ TRAWL_CACHE_ENABLED: 'false' });
    try {
      const r = await off.call('POST', '/v2/scrape', { body: { url: site.url('/p11') } });
      expect(r.body.data.metadata.cacheState).toBeUndefined();
      const lockdown = await off.call('POST', '/v2/scrape', { body: { url: site.url('/p11'), lockdown: true } });
      expect(lockdown.status).toBe(400);
      expect(lockdown.body.code).toBe('UNSUPPORTED_OPTION');
    } finally {
      await off.stop();
    }
  });
});
