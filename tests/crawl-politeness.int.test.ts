import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TestCluster } from './helpers/cluster.js';
import { allDocuments, pathOf, watchCrawl } from './helpers/crawl-watch.js';

// Adaptive politeness (the default: TRAWL_CRAWL_HOST_RATE_PER_SEC unset) over a whole crawl: a host
// that answers 429 with Retry-After is waited for, and the crawl still gets every page.

jest.setTimeout(60_000);

let cluster: TestCluster;
let server: Server;
let origin: string;
/** Each request to a page: its path, its arrival time and the status answered. */
const hits: { path: string; at: number; status: number }[] = [];

const html = (title: string, links: string[]) => `<html><head><title>${title}</title></head><body><main><h1>${title}</h1>`
  + `<p>${title} is a page with enough words to be an article. `.repeat(3) + '</p>'
  + links.map((l) => `<a href="${l}">${l}</a>`).join(' ') + '</main></body></html>';

const PAGES: Record<string, string[]> = { '/': ['/busy'], '/busy': ['/a', '/b', '/c'], '/a': [], '/b': [], '/c': [] };

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const links = PAGES[path];
    if (links === undefined) {
      res.writeHead(404).end();
      return;
    }
    // The first request to /busy is refused: come back in a second.
    const status = path === '/busy' && !hits.some((h) => h.path === path) ? 429 : 200;
    hits.push({ path, at: Date.now(), status });
    if (status === 429) res.writeHead(429, { 'retry-after': '1', 'content-type': 'text/plain' }).end('slow down');
    else res.writeHead(200, { 'content-type': 'text/html' }).end(html(path, links));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  cluster = await TestCluster.start({ TRAWL_CRAWL_WATCH_INTERVAL_MS: '300', TRAWL_PUBLIC_URL: '' });
}, 60_000);

afterAll(async () => {
  server?.close();
  await cluster?.stop();
});

describe('crawl politeness', () => {
  it('a 429 with Retry-After holds the host that long; the crawl then completes with every page', async () => {
    const team = await cluster.team({ concurrency: 4 });
    const start = await cluster.call('POST', '/v2/crawl', { key: team.key, body: { url: `${origin}/`, sitemap: 'skip' } });
    expect(start.status).toBe(200);
    const id = start.body.id as string;
    const stream = await watchCrawl(cluster, id, { key: team.key });
    expect(stream.final?.status).toBe('completed');
    const { docs } = await allDocuments(cluster, id, 'crawl', team.key);
    expect(docs.map(pathOf).sort()).toEqual(Object.keys(PAGES).sort());
    expect(docs.every((d) => d.metadata.statusCode === 200)).toBe(true);
    const errors = await cluster.call('GET', `/v2/crawl/${id}/errors`, { key: team.key });
    expect(errors.body.errors).toEqual([]);
    // Every request after the refusal came at least Retry-After later (BullMQ delays never fire early).
    const refused = hits.find((h) => h.status === 429)!;
    const after = hits.filter((h) => h.at > refused.at || (h !== refused && h.path !== '/'));
    expect(after.map((h) => h.path).sort()).toEqual(['/a', '/b', '/busy', '/c']);
    for (const h of after) expect(h.at - refused.at).toBeGreaterThanOrEqual(1000 - 20);
  });
});
