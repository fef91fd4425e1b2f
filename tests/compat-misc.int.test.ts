import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { activeCrawlsResponseSchema, crawlStatusResponseSchema } from '@trawl/api-schema';
import { GeneratedSite } from '@trawl/testing';
import { TestCluster } from './helpers/cluster.js';
import { watchCrawl } from './helpers/crawl-watch.js';

jest.setTimeout(60_000);

/** Client-visible details of issue 19: crawl listing and duration, map timeouts and warnings. */
let cluster: TestCluster;
let team: { id: string; key: string };
const sites: GeneratedSite[] = [];

async function site(opts: Parameters<typeof GeneratedSite.start>[0]): Promise<GeneratedSite> {
  const s = await GeneratedSite.start(opts);
  sites.push(s);
  return s;
}

beforeAll(async () => {
  cluster = await TestCluster.start({ TRAWL_CRAWL_HOST_RATE_PER_SEC: '0', TRAWL_CRAWL_WATCH_INTERVAL_MS: '300' });
  team = await cluster.team({ concurrency: 4 });
});

afterAll(async () => {
  await Promise.all(sites.map((s) => s.close()));
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
