import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FixtureSite, RedisServerFixture, waitFor } from '@trawl/testing';
import { TestCluster } from './helpers/cluster.js';

/**
 * The page cache in a Redis of its own (`CACHE_REDIS_URL`) that freezes (SIGSTOP: its connections stay
 * open, nothing answers) or goes down: scrapes skip the cache and fetch, cache-only modes refuse with
 * 503 without contacting the target, the queue gauges stay, and the cache is used again once it answers.
 * Without the cache's time limit every scrape waited on its cache read until its own timeout (408).
 */
const page = (name: string) => `<html><head><title>${name}</title></head><body><main><p>Page ${name} of the site, with enough text to be the main content.</p></main></body></html>`;

let site: FixtureSite;
let cacheServer: RedisServerFixture;
let cluster: TestCluster;

beforeAll(async () => {
  site = new FixtureSite();
  for (const name of ['a', 'b', 'c', 'd']) site.page(`/${name}`, page(name));
  await site.start();
  cacheServer = await RedisServerFixture.start({ appendonly: false });
  cluster = await TestCluster.start({ CACHE_REDIS_URL: cacheServer.url, TRAWL_CACHE_TIMEOUT_MS: '500' });
}, 60_000);

afterAll(async () => {
  await cluster.stop();
  await cacheServer.stop();
  await site.stop();
});

/** A scrape far longer in timeout than any cache wait: without the breaker it ended 408. */
const scrape = (path: string, extra: Record<string, unknown> = {}) =>
  cluster.call('POST', '/v2/scrape', { body: { url: site.url(path), timeout: 20_000, ...extra } });

/**
 * Scrapes `path` until the answer comes from the cache: once the cache Redis answers again (its
 * client reconnects with a backoff of up to 2 s), the page is written and read back.
 */
async function untilHit(path: string): Promise<void> {
  await waitFor(async () => {
    const r = await scrape(path);
    expect(r.status).toBe(200);
    return r.body.data.metadata.cacheState === 'hit';
  }, { what: `${path} to come from the cache`, timeoutMs: 30_000, intervalMs: 50 });
}

async function workerMetrics(): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${cluster.worker!.metricsPort}/metrics`);
  return res.text();
}

describe('a cache Redis that stops answering', () => {
  it('costs a fetch while frozen, never the scrape; cache-only modes refuse; the queue gauges stay', async () => {
    await untilHit('/a');
    const fetchesOfA = site.hits.get('/a') ?? 0;
    cacheServer.pause();
    try {
      const fresh = await scrape('/b');
      expect(fresh.status).toBe(200);
      expect(fresh.body.data.markdown).toContain('Page b of the site');
      // Cached before the freeze, and fetched again: the cache was skipped, not waited for.
      const cached = await scrape('/a');
      expect(cached.status).toBe(200);
      expect(cached.body.data.metadata.cacheState).toBe('miss');
      expect(site.hits.get('/a')).toBe(fetchesOfA + 1);
      // Lockdown never contacts the target: with no readable cache it is refused, retryable.
      const lockdown = await scrape('/a', { lockdown: true });
      expect(lockdown.status).toBe(503);
      expect(lockdown.body.code).toBe('SERVICE_UNAVAILABLE');
      const minAge = await scrape('/a', { minAge: 1 });
      expect(minAge.status).toBe(503);
      expect(minAge.body.code).toBe('SERVICE_UNAVAILABLE');
      expect(site.hits.get('/a')).toBe(fetchesOfA + 1);
      // The cluster gauges are read without waiting for the frozen cache Redis (autoscaling reads them).
      const metrics = await workerMetrics();
      expect(metrics).toMatch(/^trawl_queue_ready_jobs\{queue="scrape"[^}]*\} \d+$/m);
      expect(metrics).toMatch(/^trawl_redis_up\{redis="queue"[^}]*\} 1$/m);
      expect(metrics).toMatch(/^trawl_redis_up\{redis="cache"[^}]*\} 0$/m);
    } finally {
      cacheServer.resume();
    }
    await untilHit('/c');
  }, 90_000);

  it('costs a fetch while down, and is used again once it is back', async () => {
    await cacheServer.down();
    try {
      const r = await scrape('/d');
      expect(r.status).toBe(200);
      expect(r.body.data.markdown).toContain('Page d of the site');
    } finally {
      await cacheServer.up();
    }
    await untilHit('/d');
  }, 90_000);
});
