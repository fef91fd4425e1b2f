import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RedisKeys } from '@trawl/queue';
import { FixtureSite, RedisServerFixture } from '@trawl/testing';
import { TestCluster } from './helpers/cluster.js';
import { watchCrawl } from './helpers/crawl-watch.js';

/**
 * A page job whose worker loses its lock mid-run (its process starved on a busy machine, or Redis
 * away longer than the lock) is stalled back to the queue and run again by another holder. The old
 * run, when it resumes, must leave the page to the new holder: before the fix its next BullMQ call
 * (moving the job to its host slot) failed with "Missing lock"/"Lock mismatch", that error was
 * recorded as the page's final failure, and the new run found the page done: the page was lost.
 *
 * A page whose job BullMQ fails for stalling too often (every run lost its lock) is run again by the
 * crawl watchdog as a new job, instead of being recorded as failed.
 *
 * Deterministic: runs are held in their page-cache read (the cache Redis is frozen, and the cache's
 * time limit is off), their locks are deleted as an expiry would, and the cache comes back only once
 * BullMQ has handed the job on.
 */
let cluster: TestCluster;
let cacheRedis: RedisServerFixture;
let origin: FixtureSite;

beforeAll(async () => {
  cacheRedis = await RedisServerFixture.start({ appendonly: false });
  origin = await new FixtureSite()
    .route('/page', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><head><title>Page</title></head><body><main><h1>Page</h1><p>Recorded once.</p></main></body></html>');
    })
    .route('/other', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><head><title>Other</title></head><body><main><h1>Other</h1><p>Recorded once.</p></main></body></html>');
    })
    .start();
  cluster = await TestCluster.start({
    CACHE_REDIS_URL: cacheRedis.url,
    // Runs wait on the frozen cache Redis for as long as it is frozen (by default they would give up
    // on it after a second and fetch: tests/cache-redis-faults.int.test.ts).
    TRAWL_CACHE_TIMEOUT_MS: '0',
    TRAWL_JOB_LOCK_MS: '1000',
    TRAWL_WORKER_CONCURRENCY: '6',
    TRAWL_CRAWL_HOST_RATE_PER_SEC: '2',
    TRAWL_CRAWL_WATCH_INTERVAL_MS: '200',
    TRAWL_CRAWL_STALE_AFTER_MS: '100',
  });
}, 60_000);

afterAll(async () => {
  cacheRedis?.resume();
  await cluster?.stop();
  await cacheRedis?.stop();
  await origin?.stop();
}, 30_000);

/** Reads `read` until `ok` (Redis state the test cannot be told about by an event). */
async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`${what}: still ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a page job that loses its lock mid-run', () => {
  it('is recorded once, as a document, by the run that holds it: the run that lost it records nothing', async () => {
    const bull = '{trawl}:bull:scrape';
    cacheRedis.pause();
    const start = await cluster.call('POST', '/v2/batch/scrape', { body: { urls: [origin.url('/page')], maxAge: 60_000 } });
    expect(start.status).toBe(200);
    const id = start.body.id as string;
    const done = watchCrawl(cluster, id, { kind: 'batch', timeoutMs: 60_000 });

    // The first run is held in its cache read; its lock goes as an expiry would take it.
    const [jobId] = await until('page job active', () => cluster.redis.lrange(`${bull}:active`, 0, -1), (a) => a.length === 1);
    const firstToken = await cluster.redis.get(`${bull}:${jobId}:lock`);
    expect(firstToken).not.toBeNull();
    await cluster.redis.del(`${bull}:${jobId}:lock`);
    // BullMQ finds it stalled and a second run takes it (with a lock of its own).
    await until('job stalled and taken again', async () => ({
      stalled: await cluster.redis.hget(`${bull}:${jobId}`, 'stc'),
      active: await cluster.redis.lrange(`${bull}:active`, 0, -1),
      lock: await cluster.redis.get(`${bull}:${jobId}:lock`),
    }), (s) => s.stalled === '1' && s.active.includes(jobId!) && s.lock !== null && s.lock !== firstToken);

    // Both runs go on to the host's rate, which sends them to a slot ahead (a BullMQ call that
    // needs the job's lock).
    await cluster.redis.set(new RedisKeys('trawl').hostRate(new URL(origin.url('/page')).host), String(Date.now() + 1000), 'PX', 60_000);
    cacheRedis.resume();

    const log = await done;
    expect(log.final).toMatchObject({ status: 'completed', total: 1, completed: 1 });
    const errors = await cluster.call('GET', `/v2/batch/scrape/${id}/errors`);
    expect(errors.body.errors).toEqual([]);
    const status = await cluster.call('GET', `/v2/batch/scrape/${id}`);
    expect(status.body.data).toHaveLength(1);
    expect(status.body.data[0].metadata.sourceURL).toBe(origin.url('/page'));
  }, 90_000);

  it('is run again as a new job when BullMQ fails it for stalling too often, and recorded once', async () => {
    const bull = '{trawl}:bull:scrape';
    const keys = new RedisKeys('trawl');
    cacheRedis.pause();
    const start = await cluster.call('POST', '/v2/batch/scrape', { body: { urls: [origin.url('/other')], maxAge: 60_000 } });
    expect(start.status).toBe(200);
    const id = start.body.id as string;
    const done = watchCrawl(cluster, id, { kind: 'batch', timeoutMs: 60_000 });
    const [jobId] = await until('page job active', () => cluster.redis.zrange(keys.crawl(id)[4]!, 0, -1), (a) => a.length === 1);

    // Three runs in a row lose their lock: the third stall is past BullMQ's limit (2), which fails the job.
    let previous: string | null = null;
    for (let stall = 1; stall <= 3; stall++) {
      const lock = await until(`run ${stall} holding the job`, () => cluster.redis.get(`${bull}:${jobId}:lock`), (l) => l !== null && l !== previous);
      await cluster.redis.del(`${bull}:${jobId}:lock`);
      previous = lock;
      await until(`stall ${stall}`, () => cluster.redis.hget(`${bull}:${jobId}`, 'stc'), (n) => n === String(stall));
    }
    await until('job failed by BullMQ', () => cluster.redis.hget(`${bull}:${jobId}`, 'failedReason'), (r) => r !== null);
    // The watchdog acts on the page: records it failed (the bug) or submits it again (a new job).
    await until('watchdog recovered the page', async () => ({
      inflight: await cluster.redis.zscore(keys.crawl(id)[4]!, jobId!),
      failedReason: await cluster.redis.hget(`${bull}:${jobId}`, 'failedReason'),
    }), (s) => s.inflight === null || s.failedReason === null);

    // The three runs that lost the job go on to the host's rate (a BullMQ call that needs the lock).
    await cluster.redis.set(keys.hostRate(new URL(origin.url('/other')).host), String(Date.now() + 1000), 'PX', 60_000);
    cacheRedis.resume();

    const log = await done;
    const errors = await cluster.call('GET', `/v2/batch/scrape/${id}/errors`);
    expect(errors.body.errors).toEqual([]);
    expect(log.final).toMatchObject({ status: 'completed', total: 1, completed: 1 });
  }, 90_000);
});
