import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { FixtureSite } from '@trawl/testing';
import { TestCluster } from './helpers/cluster.js';
import { FireCrawlLoader } from './langchain/firecrawl-loader.js';

jest.setTimeout(90_000);

let cluster: TestCluster;
let team: { id: string; key: string };
let site: FixtureSite;

const page = (title: string, body: string, links: string[] = []) =>
  `<!doctype html><html><head><title>${title}</title><meta name="description" content="About ${title}"></head><body>` +
  `<main><h1>${title}</h1><p>${body}</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</main></body></html>`;

beforeAll(async () => {
  cluster = await TestCluster.start({ TRAWL_CRAWL_HOST_RATE_PER_SEC: '0', TRAWL_PUBLIC_URL: '' });
  team = await cluster.team({ concurrency: 4 });
  site = await new FixtureSite()
    .page('/', page('Home', 'Welcome to the fixture shop.', ['/docs/a', '/docs/b']))
    .page('/docs/a', page('Doc A', 'Alpha content.', ['/docs/b', '/']))
    .page('/docs/b', page('Doc B', 'Beta content.', ['/docs/a']))
    .page('/robots.txt', 'User-agent: *\nAllow: /\n', 'text/plain')
    .start();
});

afterAll(async () => {
  await site?.stop();
  await cluster?.stop();
});

/** LangChain's loader against the cluster (the 1.x SDK it uses speaks the v1 API). */
function loader(mode: 'scrape' | 'crawl' | 'map', url: string, params?: Record<string, unknown>) {
  return new FireCrawlLoader({ url, apiKey: team.key, apiUrl: cluster.api.url, mode, ...(params ? { params } : {}) });
}

describe("LangChain JS's FireCrawlLoader (@langchain/community) against /v1", () => {
  it('scrape: one document, the page markdown with its metadata', async () => {
    const docs = await loader('scrape', site.url('/docs/a')).load();
    expect(docs).toHaveLength(1);
    expect(docs[0]!.pageContent).toContain('# Doc A');
    expect(docs[0]!.pageContent).toContain('Alpha content.');
    expect(docs[0]!.metadata).toMatchObject({ title: 'Doc A', description: 'About Doc A', sourceURL: site.url('/docs/a'), statusCode: 200 });
  });

  it('crawl: a document per page of the site', async () => {
    const docs = await loader('crawl', site.url('/'), { limit: 10, ignoreSitemap: true, scrapeOptions: { formats: ['markdown'] } }).load();
    const byPath = new Map(docs.map((d) => [new URL(String(d.metadata.sourceURL)).pathname, d]));
    expect([...byPath.keys()].sort()).toEqual(['/', '/docs/a', '/docs/b']);
    expect(byPath.get('/docs/b')!.pageContent).toContain('Beta content.');
    expect(byPath.get('/')!.metadata.title).toBe('Home');
  });

  it('map: a document per link (the URL as JSON)', async () => {
    const docs = await loader('map', site.url('/'), { ignoreSitemap: true }).load();
    const urls = docs.map((d) => JSON.parse(d.pageContent) as string);
    expect(urls).toEqual(expect.arrayContaining([site.url('/'), site.url('/docs/a'), site.url('/docs/b')]));
  });
});
