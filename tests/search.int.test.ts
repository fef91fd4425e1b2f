import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { searchResponseSchema } from '@trawl/api-schema';
import { FixtureSite, startFakeSearxng, type FakeSearxngServer, type SearxngResult } from '@trawl/testing';
import { TestCluster } from './helpers/cluster.js';

jest.setTimeout(90_000);

/**
 * `POST /v2/search` and `/v1/search` through the cluster: the production SearXNG provider against a
 * local server speaking SearXNG's JSON API, result pages scraped from a local site.
 */
let cluster: TestCluster;
let searxng: FakeSearxngServer;
let site: FixtureSite;
let team: { id: string; key: string };
const html = (title: string, body: string) => `<!doctype html><html><head><title>${title}</title></head><body><p>${body}</p></body></html>`;

/** Results by the query's first word (the provider appends `site:` operators for domain filters). */
function resultsFor(q: string): SearxngResult[] {
  const word = q.split(' ')[0];
  const r = (url: string, title: string): SearxngResult => ({ url, title, content: `About ${title}` });
  switch (word) {
    case 'pages':
      return [r(site.url('/a'), 'Page A'), r(site.url('/b'), 'Page B'), r(site.url('/broken'), 'Broken')];
    case 'dupes':
      return [r(site.url('/a'), 'A'), r(site.url('/a/'), 'A again'), r(site.url('/a/index.html'), 'A index'), r(site.url('/b'), 'B')];
    case 'domains':
      return [
        r('https://example.com/1', 'one'), r('https://docs.other.org/2', 'two'), r('https://www.other.org/3', 'three'),
        r('https://notother.org/4', 'four'), r('ftp://example.com/5', 'not http'),
      ];
    case 'nothing':
      return [];
    default:
      return Array.from({ length: 25 }, (_, i) => r(`https://example.com/${word}/${i + 1}`, `Result ${i + 1}`));
  }
}

beforeAll(async () => {
  site = new FixtureSite()
    .page('/a', html('Page A', 'Alpha text'))
    .page('/b', html('Page B', 'Beta text'))
    .route('/broken', (req) => {
      req.socket.destroy();
    });
  await site.start();
  searxng = await startFakeSearxng({ results: (req) => resultsFor(req.q) });
  cluster = await TestCluster.start({ TRAWL_SEARXNG_URL: searxng.baseUrl });
  team = await cluster.team({ concurrency: 4 });
});

afterAll(async () => {
  await cluster?.stop();
  await searxng?.close();
  await site?.stop();
});

beforeEach(() => searxng.setMode('ok'));

const search = (body: unknown, key = team.key) => cluster.call('POST', '/v2/search', { key, body });

describe('POST /v2/search', () => {
  it('answers web results with positions, in the response schema, 2 credits per 10 results', async () => {
    const res = await search({ query: 'many', limit: 12 });
    expect(res.status).toBe(200);
    searchResponseSchema.parse(res.body);
    expect(res.body.data.web).toHaveLength(12);
    expect(res.body.data.web[0]).toEqual({ url: 'https://example.com/many/1', title: 'Result 1', description: 'About Result 1', position: 1 });
    expect(res.body.data.web[11].position).toBe(12);
    expect(res.body.data.news).toBeUndefined();
    expect(res.body.creditsUsed).toBe(4);
    expect(typeof res.body.id).toBe('string');
  });

  it('scrapes results with scrapeOptions.formats (Document fields merged); a failing scrape keeps its item with the error', async () => {
    const res = await search({ query: 'pages', scrapeOptions: { formats: ['markdown'] } });
    expect(res.status).toBe(200);
    const [a, b, broken] = res.body.data.web;
    expect(a).toMatchObject({ url: site.url('/a'), title: 'Page A', description: 'About Page A', position: 1, metadata: { statusCode: 200 } });
    expect(a.markdown).toContain('Alpha text');
    expect(b.markdown).toContain('Beta text');
    expect(broken).toMatchObject({ url: site.url('/broken'), title: 'Broken', position: 3 });
    expect(broken.markdown).toBeUndefined();
    expect(broken.metadata.error).toEqual(expect.any(String));
    expect(broken.metadata.errorCode).toMatch(/^SCRAPE_/);
    // 2 for the results, 1 per page scraped.
    expect(res.body.creditsUsed).toBe(4);
  });

  it('drops duplicates by canonical URL', async () => {
    const res = await search({ query: 'dupes' });
    expect(res.body.data.web.map((w: { url: string }) => w.url)).toEqual([site.url('/a'), site.url('/b')]);
    expect(res.body.data.web.map((w: { position: number }) => w.position)).toEqual([1, 2]);
  });

  it('enforces includeDomains and excludeDomains on the results (subdomains included), and refuses both at once', async () => {
    const inc = await search({ query: 'domains', includeDomains: ['other.org'] });
    expect(inc.body.data.web.map((w: { url: string }) => w.url)).toEqual(['https://docs.other.org/2', 'https://www.other.org/3']);
    const exc = await search({ query: 'domains', excludeDomains: ['https://other.org/'] });
    expect(exc.body.data.web.map((w: { url: string }) => w.url)).toEqual(['https://example.com/1', 'https://notother.org/4']);
    const both = await search({ query: 'domains', includeDomains: ['a.com'], excludeDomains: ['b.com'] });
    expect(both.status).toBe(400);
  });

  it('answers data.web: [] when the provider finds nothing (no credits)', async () => {
    const res = await search({ query: 'nothing' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ web: [] });
    expect(res.body.creditsUsed).toBe(0);
  });

  it('a provider that is down answers 502 SEARCH_PROVIDER_ERROR naming it', async () => {
    searxng.setMode('down');
    const res = await search({ query: 'many' });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ success: false, code: 'SEARCH_PROVIDER_ERROR', details: { provider: 'searxng' } });
    expect(res.body.error).toContain('searxng');
    const metrics = await (await fetch(`http://127.0.0.1:${cluster.worker!.metricsPort}/metrics`)).text();
    expect(metrics).toMatch(/^trawl_search_requests_total\{[^}]*provider="searxng"[^}]*outcome="unavailable"[^}]*\} [1-9]/m);
    expect(metrics).toMatch(/^trawl_search_requests_total\{[^}]*provider="searxng"[^}]*outcome="ok"[^}]*\} [1-9]/m);
  });

  it('a provider slower than the search timeout answers 408 SEARCH_TIMEOUT', async () => {
    searxng.setMode('slow');
    const res = await search({ query: 'many', timeout: 2_000 });
    expect(res.status).toBe(408);
    expect(res.body).toMatchObject({ success: false, code: 'SEARCH_TIMEOUT' });
  });

  it('charges the team what it reports (results and scrapes)', async () => {
    const paying = await cluster.team({ concurrency: 2, credits: 100 });
    const first = await search({ query: 'many', limit: 25 }, paying.key);
    expect(first.body.creditsUsed).toBe(6);
    const second = await search({ query: 'pages', limit: 2, scrapeOptions: { formats: ['markdown'] } }, paying.key);
    expect(second.body.creditsUsed).toBe(4);
    const usage = await cluster.call('GET', '/v2/team/credit-usage', { key: paying.key });
    expect(usage.body.data.remainingCredits).toBe(90);
  });
});

describe('POST /v1/search', () => {
  it('answers a flat list of web items (5 by default), Document fields merged when scraped', async () => {
    const plain = await cluster.call('POST', '/v1/search', { key: team.key, body: { query: 'many' } });
    expect(plain.status).toBe(200);
    expect(plain.body.success).toBe(true);
    expect(plain.body.data).toHaveLength(5);
    expect(plain.body.data[0]).toEqual({ url: 'https://example.com/many/1', title: 'Result 1', description: 'About Result 1' });
    const scraped = await cluster.call('POST', '/v1/search', { key: team.key, body: { query: 'pages', limit: 1, scrapeOptions: { formats: ['markdown'] } } });
    expect(scraped.body.data).toHaveLength(1);
    expect(scraped.body.data[0]).toMatchObject({ url: site.url('/a'), title: 'Page A', metadata: { statusCode: 200 } });
    expect(scraped.body.data[0].markdown).toContain('Alpha text');
  });
});

describe('official 1.x SDK', () => {
  it('search(query, {limit, scrapeOptions}) on /v1/search returns the flat list', async () => {
    const { default: FirecrawlAppV1 } = await import('firecrawl-v1');
    const app = new FirecrawlAppV1({ apiKey: team.key, apiUrl: cluster.api.url });
    const plain = await app.search('many', { limit: 2 });
    expect(plain.success).toBe(true);
    expect(plain.data.map((d) => d.url)).toEqual(['https://example.com/many/1', 'https://example.com/many/2']);
    const scraped = await app.search('pages', { limit: 1, filter: 'x', scrapeOptions: { formats: ['markdown'] } });
    expect(scraped.data[0]).toMatchObject({ url: site.url('/a'), title: 'Page A' });
    expect(scraped.data[0]?.markdown).toContain('Alpha text');
    expect(scraped.warning).toContain('filter');
  });
});

describe('official 4.x SDK', () => {
  it('search(query, {limit, scrapeOptions}) returns web results with Document fields', async () => {
    const { default: Firecrawl } = await import('@mendable/firecrawl-js');
    const fc = new Firecrawl({ apiKey: team.key, apiUrl: cluster.api.url });
    const data = await fc.search('pages', { limit: 2, scrapeOptions: { formats: ['markdown'] } });
    expect(data.web).toHaveLength(2);
    expect(data.web?.[0]).toMatchObject({ url: site.url('/a'), title: 'Page A', position: 1 });
    expect((data.web?.[0] as { markdown?: string }).markdown).toContain('Alpha text');
    const plain = await fc.search('many', { limit: 3 });
    expect(plain.web?.map((w) => (w as { url: string }).url)).toEqual(['https://example.com/many/1', 'https://example.com/many/2', 'https://example.com/many/3']);
  });
});
