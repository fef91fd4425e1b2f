import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { once } from 'node:events';
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import { ClusterStats, JobCancellations, PageCache, QUEUE_NAMES, RedisKeys, isRedisCluster, redisPrimaries } from '@trawl/queue';
import { FixtureSite, GeneratedSite, RedisClusterFixture, waitFor } from '@trawl/testing';
import { TestCluster } from './helpers/cluster.js';
import { allDocuments, pathOf, watchCrawl } from './helpers/crawl-watch.js';
import { kill, spawnWorkerProcess, type WorkerProcess } from './helpers/worker-process.js';

/**
 * The whole system on a real 3-master Redis Cluster (`REDIS_URL=redis+cluster://...`): the API and
 * a worker in this process, and one worker process (loaded while the first tests run: a process
 * start costs seconds). Scrape (and a cache hit) with BullMQ keys under the queue's own hash tag,
 * team admission, cancellation marks across slots, the cluster gauges, and a crawl (followed on its
 * WebSocket stream: crawl events over pub/sub) during which the worker process is SIGKILLed (the
 * in-process worker takes over its pages): every page once.
 */
const PAGES = 80;
/** The key layout of the API and workers (default TRAWL_REDIS_PREFIX). */
const DEPLOYMENT_KEYS = new RedisKeys('trawl', { cluster: true });

let redisCluster: RedisClusterFixture;
let cluster: TestCluster;
let site: GeneratedSite;
let origin: FixtureSite;
const workers: WorkerProcess[] = [];
/** The worker process, started in beforeAll and awaited by the crawl test (it loads while the first tests run). */
let workerProcess: Promise<WorkerProcess>;
/** Every worker process started (the killed one too), for CLUSTER_DEBUG. */
const everyWorker: WorkerProcess[] = [];
const gate = new EventEmitter();
let held = true;

beforeAll(async () => {
  [redisCluster, site, origin] = await Promise.all([
    RedisClusterFixture.start({ masters: 3 }),
    GeneratedSite.start({ pages: PAGES, branching: 6, latencyMs: 10, robots: false, sitemap: 'none' }),
    new FixtureSite()
      .page('/hello', '<html><head><title>Hello</title></head><body><main><h1>Hello cluster</h1><p>Served for a scrape on Redis Cluster.</p></main></body></html>')
      .route('/held', async (_req, res) => {
        gate.emit('arrived');
        if (held) await once(gate, 'release');
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html><head><title>Held</title></head><body><main><h1>Held</h1><p>Answered once released.</p></main></body></html>');
      })
      .start(),
  ]);
  cluster = await TestCluster.start({
    TRAWL_JOB_LOCK_MS: '2000',
    TRAWL_CRAWL_WATCH_INTERVAL_MS: '500',
    TRAWL_CRAWL_STALE_AFTER_MS: '3000',
    TRAWL_CRAWL_HOST_RATE_PER_SEC: '1000',
    TRAWL_WORKER_CONCURRENCY: '4',
  }, { redisUrl: redisCluster.url });
  workerProcess = spawnWorker();
  workerProcess.then((w) => workers.push(w), () => undefined);
}, 60_000);

async function spawnWorker(): Promise<WorkerProcess> {
  const w = await spawnWorkerProcess(cluster.env);
  everyWorker.push(w);
  return w;
}

afterAll(async () => {
  if (process.env.CLUSTER_DEBUG && cluster) {
    // How the work spread over the primaries (each BullMQ queue has its own hash tag), and which
    // queues each primary holds.
    const all: Array<{ port: number | undefined; calls: number; queues: string[]; cpu: string | undefined }> = [];
    for (const node of redisPrimaries(cluster.redis)) {
      const stats = await node.info('commandstats');
      const calls = [...stats.matchAll(/calls=(\d+)/g)].reduce((n, m) => n + Number(m[1]), 0);
      const cpu = /used_cpu_user:([\d.]+)/.exec(await node.info('cpu'))?.[1];
      const slots = (await node.call('CLUSTER', 'SLOTS')) as Array<[number, number, [string, number]]>;
      const own = slots.filter(([, , master]) => master[1] === node.options.port);
      const queues: string[] = [];
      for (const q of QUEUE_NAMES) {
        const slot = (await node.call('CLUSTER', 'KEYSLOT', `${DEPLOYMENT_KEYS.bullPrefix(q)}:${q}:wait`)) as number;
        if (own.some(([from, to]) => slot >= from && slot <= to)) queues.push(q);
      }
      all.push({ port: node.options.port, calls, queues, cpu });
    }
    const total = all.reduce((n, p) => n + p.calls, 0);
    for (const p of all) {
      process.stderr.write(`primary ${p.port}: ${p.calls} calls (${(100 * p.calls / total).toFixed(0)}%), queues ${p.queues.join(',') || '-'}; ${p.cpu} s user cpu\n`);
    }
  }
  if (process.env.CLUSTER_DEBUG) {
    for (const w of everyWorker) {
      for (const line of w.output().split('\n')) if (/"level":(?:[4-9]\d)|CROSSSLOT|MOVED|Error/.test(line)) process.stderr.write(`worker: ${line.slice(0, 400)}\n`);
    }
  }
  held = false;
  gate.emit('release');
  await workerProcess?.catch(() => undefined);
  for (const w of workers) await kill(w.child, 'SIGKILL');
  await cluster?.stop();
  await site?.close();
  await origin?.stop();
  await redisCluster?.stop();
}, 30_000);

describe('on a 3-master Redis Cluster', () => {
  it('the API talks to a Cluster client; a scrape answers, and its repeat is a cache hit', async () => {
    expect(isRedisCluster(cluster.redis)).toBe(true);
    const first = await cluster.call('POST', '/v2/scrape', { body: { url: origin.url('/hello'), formats: ['markdown'] } });
    expect(first.status).toBe(200);
    expect(first.body.data.markdown).toContain('Hello cluster');
    const again = await cluster.call('POST', '/v2/scrape', { body: { url: origin.url('/hello'), formats: ['markdown'] } });
    expect(again.status).toBe(200);
    expect(again.body.data.metadata.cacheState).toBe('hit');
    expect(origin.hits.get('/hello')).toBe(1);
    // The scrape queue lives under its own hash tag (not the one tag all queues share on a single
    // Redis), and the cluster gauges read it there.
    const scrapeIds = `${DEPLOYMENT_KEYS.bullPrefix('scrape')}:scrape:id`;
    expect(DEPLOYMENT_KEYS.bullPrefix('scrape')).toBe('{trawl:scrape}:bull');
    expect(await cluster.redis.exists(scrapeIds)).toBe(1);
    expect(await cluster.redis.exists('{trawl}:bull:scrape:id')).toBe(0);
    const scrapeStats = (await new ClusterStats(cluster.redis, DEPLOYMENT_KEYS).queues()).find((q) => q.queue === 'scrape');
    expect(scrapeStats?.counts.completed).toBeGreaterThanOrEqual(1);
  });

  it('admission: a team limited to 1 runs one job at a time; the second waits and says so', async () => {
    const t = await cluster.team({ concurrency: 1 });
    origin.resetCounters();
    const arrived = once(gate, 'arrived');
    const first = cluster.call('POST', '/v2/scrape', { key: t.key, body: { url: origin.url('/held'), maxAge: 0, timeout: 60_000 } });
    await arrived;
    const second = cluster.call('POST', '/v2/scrape', { key: t.key, body: { url: origin.url('/held'), maxAge: 0, timeout: 60_000 } });
    // The second is in the team's backlog (admission state of one slot), not at the target.
    await waitFor(async () => (await cluster.call('GET', '/v2/concurrency-check', { key: t.key })).body.concurrency === 1
      && (await cluster.redis.zcard(DEPLOYMENT_KEYS.admBacklog(t.id))) === 1, { what: 'the second scrape to wait in the backlog' });
    held = false;
    gate.emit('release');
    const results = await Promise.all([first, second]);
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    expect(origin.maxInFlight).toBe(1);
    expect(results.map((r) => r.body.data.metadata.concurrencyLimited === true)).toEqual([false, true]);
    await waitFor(async () => (await cluster.call('GET', '/v2/concurrency-check', { key: t.key })).body.concurrency === 0, { what: 'the slot back' });
  });

  it('cancellation marks, admission gauges and cache bytes in different slots are all read (no CROSSSLOT); memory of every primary', async () => {
    const keys = new RedisKeys(`cl${randomUUID().slice(0, 8)}`);
    const cancellations = new JobCancellations(cluster.redis, keys, { markTtlSec: 60 });
    // Ids whose marks hash to different slots (and, with 3 masters, most likely nodes).
    const [job, crawl] = [randomUUID(), randomUUID()];
    expect(await cancellations.anyCancelled([job, crawl])).toBe(false);
    await cancellations.cancel(crawl);
    expect(await cancellations.anyCancelled([job, crawl])).toBe(true);
    expect(await cancellations.anyCancelled([job])).toBe(false);

    // Admission gauges summed over teams whose keys live on different nodes; memory of every primary.
    const teams = Array.from({ length: 6 }, () => randomUUID());
    await cluster.redis.sadd(keys.admTeams(), ...teams);
    for (const [i, t] of teams.entries()) {
      await cluster.redis.zadd(keys.admActive(t), 1, 'job-a', 2, 'job-b');
      if (i % 2 === 0) await cluster.redis.zadd(keys.admBacklog(t), 1, 'job-c');
    }
    const stats = await new ClusterStats(cluster.redis, keys).snapshot();
    expect(stats.slots).toEqual({ active: 12, backlogged: 3 });
    expect(stats.redis.queue?.usedBytes).toBeGreaterThan(0);
    // The page cache's byte total reads its 16 buckets (16 slots).
    expect(await new PageCache(cluster.redis, { prefix: keys.prefix, maxBytes: 0, maxEntryBytes: 1_000_000, ttlSec: 0 }).storedBytes()).toBe(0);
  });

  it('a crawl during which a worker is SIGKILLed: every page exactly once, slots back to 0', async () => {
    const victim = await workerProcess;
    const team = await cluster.team({ concurrency: 6, ratePerMinute: 100_000 });
    const expected = site.reachable();
    const start = await cluster.call('POST', '/v2/crawl', {
      key: team.key, body: { url: site.url('/'), limit: expected.length * 2, sitemap: 'skip', scrapeOptions: { formats: ['markdown'], maxAge: 0 } },
    });
    expect(start.status).toBe(200);
    const id = start.body.id as string;
    // The status stream rides on the crawl-events pub/sub channel (subscribed through the Cluster client).
    const stream = watchCrawl(cluster, id, { key: team.key, timeoutMs: 120_000 });
    const status = async () => (await cluster.call('GET', `/v2/crawl/${id}?limit=1`, { key: team.key })).body as { status: string; completed: number };
    const mid = await waitFor(async () => {
      const s = await status();
      return s.completed >= 20 || s.status !== 'scraping' ? s : undefined;
    }, { what: 'the crawl to reach 20 pages', timeoutMs: 60_000 });
    expect(mid.status).toBe('scraping');
    await kill(victim.child, 'SIGKILL');

    const final = await waitFor(async () => {
      const s = await status();
      return s.status !== 'scraping' ? s : undefined;
    }, { what: 'the crawl to end', timeoutMs: 90_000 });
    expect(final.status).toBe('completed');
    expect((await stream).final?.status).toBe('completed');
    const { status: body, docs } = await allDocuments(cluster, id, 'crawl', team.key);
    const paths = docs.map(pathOf);
    expect(new Set(paths).size).toBe(paths.length);
    expect([...paths].sort()).toEqual([...expected].sort());
    expect(body).toMatchObject({ total: expected.length, completed: expected.length, creditsUsed: expected.length });
    await waitFor(async () => (await cluster.call('GET', '/v2/concurrency-check', { key: team.key })).body.concurrency === 0, { what: 'the crawl team\'s slots back', timeoutMs: 20_000 });
  }, 150_000);
});
