import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { scrapeRequestSchema } from '@trawl/api-schema';
import { cacheKeyOf, derivedOptionsHash } from '@trawl/queue';
import { FixtureSite } from '@trawl/testing';
import { TestCluster } from './helpers/cluster.js';

const page = (title: string) => `<!doctype html><html><head><title>${title}</title></head>
<body><main><article><h1>${title}</h1><p>The body of ${title}, with enough words in it to be kept as the main content.</p>
</article></main></body></html>`;

let cluster: TestCluster;
let site: FixtureSite;

beforeAll(async () => {
  site = new FixtureSite();
  for (const name of ['a', 'b', 'c', 'd']) site.page(`/${name}`, page(`Page ${name}`));
  await site.start();
  cluster = await TestCluster.start();
});
afterAll(async () => {
  await cluster.stop();
  await site.stop();
}, 30_000);

const scrape = (key: string, body: Record<string, unknown>) => cluster.call('POST', '/v2/scrape', { key, body });
const remaining = async (key: string) => (await cluster.call('GET', '/v2/team/credit-usage', { key })).body.data.remainingCredits as number;
/** Whether BullMQ ever held a job of this id (completed scrape jobs are kept for an hour). */
const queued = async (jobId: string) => (await cluster.redis.keys(`*bull:*:${jobId}`)).length > 0;

describe('cache hits answered at the gateway', () => {
  it('answers a repeated scrape without an admission or a BullMQ job, billed and retained like a worker hit; refuses without credits', async () => {
    const team = await cluster.team({ credits: 3 });
    const url = site.url('/a');
    const first = await scrape(team.key, { url, formats: ['markdown', 'links'] });
    expect(first.body.data.metadata.cacheState).toBe('miss');
    expect(await queued(first.body.data.metadata.scrapeId)).toBe(true);

    const hit = await scrape(team.key, { url: `${url}#top`, formats: ['markdown', 'links'] });
    expect(hit.status).toBe(200);
    const scrapeId = hit.body.data.metadata.scrapeId as string;
    expect(await queued(scrapeId)).toBe(false);
    expect(await cluster.redis.hlen(`trawl:{t:${team.id}}:adm:pending`)).toBe(0);
    expect(hit.body.data.markdown).toBe(first.body.data.markdown);
    expect(hit.body.data.links).toEqual(first.body.data.links);
    expect(hit.body.data.metadata).toMatchObject({
      cacheState: 'hit', creditsUsed: 1, statusCode: 200, sourceURL: `${url}#top`, url, title: 'Page a', proxyUsed: 'basic',
    });
    expect(hit.body.data.metadata.concurrencyLimited).toBeUndefined();
    expect(Date.parse(hit.body.data.metadata.cachedAt)).toBeLessThanOrEqual(Date.now());
    expect(await remaining(team.key)).toBe(1);
    // Retained like any scrape.
    const again = await cluster.call('GET', `/v2/scrape/${scrapeId}`, { key: team.key });
    expect(again.body.data.metadata).toMatchObject({ cacheState: 'hit', scrapeId });

    expect((await scrape(team.key, { url, formats: ['markdown', 'links'] })).status).toBe(200);
    expect(await remaining(team.key)).toBe(0);
    const refused = await scrape(team.key, { url, formats: ['markdown', 'links'] });
    expect(refused.status).toBe(402);
    expect(refused.body.code).toBe('INSUFFICIENT_CREDITS');
    expect(site.hits.get('/a')).toBe(1);
  });

  it('sends other options, an expired maxAge and zero data retention to a worker', async () => {
    const team = await cluster.team({ credits: 100 });
    const url = site.url('/b');
    await scrape(team.key, { url });
    const hit = await scrape(team.key, { url });
    expect(await queued(hit.body.data.metadata.scrapeId)).toBe(false);

    // Other formats: another options hash. A worker derives them from the cached page, and keeps them.
    const other = await scrape(team.key, { url, formats: ['html'] });
    expect(other.body.data.metadata.cacheState).toBe('hit');
    expect(await queued(other.body.data.metadata.scrapeId)).toBe(true);
    const otherAgain = await scrape(team.key, { url, formats: ['html'] });
    expect(otherAgain.body.data.html).toBe(other.body.data.html);
    expect(await queued(otherAgain.body.data.metadata.scrapeId)).toBe(false);
    expect(site.hits.get('/b')).toBe(1);

    // Zero data retention never reads the cache at the gateway: the derived entry is not even touched.
    const request = scrapeRequestSchema.parse({ url });
    const member = `${cacheKeyOf(request, team.id)!}${derivedOptionsHash(request)}`;
    const [lru] = await cluster.redis.keys(`trawl:cache:{c${member[0]}}:lru`);
    const touched = await cluster.redis.zscore(lru!, member);
    expect(touched).not.toBeNull();
    const zdr = await scrape(team.key, { url, zeroDataRetention: true });
    expect(zdr.status).toBe(200);
    expect(await cluster.redis.zscore(lru!, member)).toBe(touched);
    expect((await cluster.call('GET', `/v2/scrape/${zdr.body.data.metadata.scrapeId}`, { key: team.key })).status).toBe(404);

    // A copy older than maxAge is fetched again by a worker.
    const stale = await scrape(team.key, { url, maxAge: 1 });
    expect(stale.body.data.metadata.cacheState).toBe('miss');
    expect(await queued(stale.body.data.metadata.scrapeId)).toBe(true);
    expect(site.hits.get('/b')).toBe(2);
    // The new copy replaced the old one, its derived formats with it: the next hit is of the new copy.
    const fresh = await scrape(team.key, { url });
    expect(await queued(fresh.body.data.metadata.scrapeId)).toBe(false);
    expect(Date.parse(fresh.body.data.metadata.cachedAt)).toBeGreaterThan(Date.parse(hit.body.data.metadata.cachedAt));
  });

  it('leaves change tracking and cache-only modes to a worker', async () => {
    const team = await cluster.team({ credits: 100 });
    const url = site.url('/c');
    await scrape(team.key, { url });
    const tracked = await scrape(team.key, { url, formats: ['markdown', 'changeTracking'] });
    expect(tracked.status).toBe(200);
    expect(await queued(tracked.body.data.metadata.scrapeId)).toBe(true);
    const lockdown = await scrape(team.key, { url, lockdown: true });
    expect(lockdown.body.data.metadata).toMatchObject({ cacheState: 'hit', creditsUsed: 5 });
  });
});
