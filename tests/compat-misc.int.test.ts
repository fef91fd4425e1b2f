import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { activeCrawlsResponseSchema, crawlStatusResponseSchema, mapResponseSchema } from '@trawl/api-schema';
import { FixtureSite, GeneratedSite } from '@trawl/testing';
import { TestCluster } from './helpers/cluster.js';
import { watchCrawl } from './helpers/crawl-watch.js';

jest.setTimeout(60_000);

/** Client-visible details of issue 19: crawl listing and duration, map timeouts and warnings. */
let cluster: TestCluster;
let team: { id: string; key: string };
const sites: GeneratedSite[] = [];
let fixture: FixtureSite;
const html = (body: string) => `<!doctype html><html><head><title>T</title></head><body>${body}</body></html>`;

async function site(opts: Parameters<typeof GeneratedSite.start>[0]): Promise<GeneratedSite> {
  const s = await GeneratedSite.start(opts);
  sites.push(s);
  return s;
}

beforeAll(async () => {
  cluster = await TestCluster.start({ TRAWL_CRAWL_HOST_RATE_PER_SEC: '0', TRAWL_CRAWL_WATCH_INTERVAL_MS: '300' });
  team = await cluster.team({ concurrency: 4 });
  // Pages under /hang never answer (the map's own deadline aborts them).
  const hang = () => undefined;
  fixture = new FixtureSite()
    .page('/wide', html(Array.from({ length: 30 }, (_, i) => `<a href="/hang/${i}">${i}</a>`).join(' ')))
    .route('/slow-seed', hang)
    .page('/docs/a/b', html('<p>A leaf page without links.</p>'));
  for (let i = 0; i < 30; i++) fixture.route(`/hang/${i}`, hang);
  await fixture.start();
});

afterAll(async () => {
  await Promise.all(sites.map((s) => s.close()));
  await fixture?.stop();
  await cluster?.stop();
});

describe('crawls', () => {
  it('GET /v2/crawl/ongoing lists a running crawl with created_at (ISO, ms) and drops it at the end; duration is in seconds', async () => {
    const s = await site({ pages: 4, latencyMs: 30, sitemap: 'none' });
    const start = await cluster.call('POST', '/v2/crawl', { key: team.key, body: { url: s.url('/'), delay: 0.2 } });
    expect(start.status).toBe(200);
    const id = start.body.id as string;
    const ongoing = await cluster.call('GET', '/v2/crawl/ongoing', { key: team.key });
    expect(ongoing.status).toBe(200);
    activeCrawlsResponseSchema.parse(ongoing.body);
    const mine = ongoing.body.crawls.find((c: { id: string }) => c.id === id);
    expect(mine).toMatchObject({ id, teamId: team.id, url: s.url('/') });
    expect(mine.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const active = await cluster.call('GET', '/v2/crawl/active', { key: team.key });
    expect(active.body.crawls.find((c: { id: string }) => c.id === id)).toEqual(mine);

    await watchCrawl(cluster, id, { key: team.key });
    const after = await cluster.call('GET', '/v2/crawl/ongoing', { key: team.key });
    expect(after.body.crawls.find((c: { id: string }) => c.id === id)).toBeUndefined();

    const status = await cluster.call('GET', `/v2/crawl/${id}`, { key: team.key });
    crawlStatusResponseSchema.parse(status.body);
    expect(status.body.createdAt).toBe(mine.created_at);
    expect(status.body.duration).toBe((Date.parse(status.body.completedAt) - Date.parse(status.body.createdAt)) / 1000);
  });
});

describe('map', () => {
  it('takes any positive timeout: one that runs out with links found answers 200 with them and a warning', async () => {
    // 30 linked pages never answer: time runs out with most of them unexplored. A fractional timeout is fine.
    const res = await cluster.call('POST', '/v2/map', { key: team.key, body: { url: fixture.url('/wide'), sitemap: 'skip', timeout: 4_500.5 } });
    expect(res.status).toBe(200);
    mapResponseSchema.parse(res.body);
    expect(res.body.links.map((l: { url: string }) => l.url)).toEqual(expect.arrayContaining([fixture.url('/wide'), fixture.url('/hang/0'), fixture.url('/hang/29')]));
    expect(res.body.warning).toMatch(/^The map operation timed out/);
    // Past the old 300000 ms cap: accepted (the site is mapped long before).
    const long = await cluster.call('POST', '/v2/map', { key: team.key, body: { url: fixture.url('/docs/a/b'), sitemap: 'skip', timeout: 600_000 } });
    expect(long.status).toBe(200);
  });

  it('408 MAP_TIMEOUT only when nothing was found, its message starting "The map operation timed out"', async () => {
    // Below the old 1000 ms minimum: accepted, and the seed never answers.
    const res = await cluster.call('POST', '/v2/map', { key: team.key, body: { url: fixture.url('/slow-seed'), sitemap: 'skip', timeout: 800 } });
    expect(res.status).toBe(408);
    expect(res.body).toMatchObject({ success: false, code: 'MAP_TIMEOUT' });
    expect(res.body.error.startsWith('The map operation timed out')).toBe(true);
    for (const timeout of [0, -5]) {
      expect((await cluster.call('POST', '/v2/map', { key: team.key, body: { url: fixture.url('/wide'), timeout } })).status).toBe(400);
    }
  });

  it('a deep path that finds at most one URL carries a warning suggesting the base domain', async () => {
    const res = await cluster.call('POST', '/v2/map', { key: team.key, body: { url: fixture.url('/docs/a/b'), sitemap: 'skip' } });
    expect(res.status).toBe(200);
    expect(res.body.links).toEqual([{ url: fixture.url('/docs/a/b'), title: 'T' }]);
    expect(res.body.warning).toContain(`base domain (${fixture.origin})`);
    const root = await cluster.call('POST', '/v2/map', { key: team.key, body: { url: fixture.url('/'), sitemap: 'skip', limit: 1 } });
    expect(root.status).toBe(200);
    expect(root.body.warning).toBeUndefined();
  });
});
