import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FixtureSite, GeneratedSite } from '@trawl/testing';
import { TestCluster } from './helpers/cluster.js';
import { allDocuments, pathOf } from './helpers/crawl-watch.js';
import { kill, spawnWorkerProcess, type WorkerProcess } from './helpers/worker-process.js';

/**
 * Faults during real work: a 1,000-page crawl and a stream of sync scrapes run while worker processes
 * are SIGKILLed five times and Redis restarts once (AOF). Bounded: loopback only, about a minute.
 */
const PAGES = 1000;
const SYNC_TIMEOUT_MS = 5000;
/** What the API adds to a sync scrape's timeout before answering 408 (TestCluster sets it). */
const SYNC_GRACE_MS = 1000;

let cluster: TestCluster;
let site: GeneratedSite;
let origin: FixtureSite;
const workers: WorkerProcess[] = [];
/** Stops the sync stream if the test ends early. */
let stopSync: (() => Promise<void>) | undefined;

beforeAll(async () => {
  site = await GeneratedSite.start({ pages: PAGES, branching: 8, latencyMs: 10, robots: false, sitemap: 'none' });
  origin = await new FixtureSite()
    .route('/sync', async (_req, res) => {
      await new Promise((r) => setTimeout(r, 40));
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><head><title>Sync</title></head><body><main><h1>Sync</h1><p>A page scraped while workers die.</p></main></body></html>');
    })
    .start();
  cluster = await TestCluster.start({
    TRAWL_JOB_LOCK_MS: '2000',
    TRAWL_REAPER_INTERVAL_MS: '500',
    TRAWL_CRAWL_WATCH_INTERVAL_MS: '500',
    TRAWL_CRAWL_STALE_AFTER_MS: '3000',
    // About 40 s of crawling: room for every fault to land mid-crawl.
    TRAWL_CRAWL_HOST_RATE_PER_SEC: '30',
    TRAWL_WORKER_CONCURRENCY: '6',
  }, { worker: false });
  for (let i = 0; i < 2; i++) workers.push(await spawnWorkerProcess(cluster.env));
}, 60_000);

afterAll(async () => {
  await stopSync?.();
  for (const w of workers) await kill(w.child, 'SIGKILL');
  await cluster.stop();
  await site.close();
  await origin.stop();
}, 30_000);

interface SyncRecord { status: number; ms: number; code?: string }

/** Sync scrapes back to back from `clients` callers until `stop()`. */
function syncStream(key: string, clients: number) {
  const records: SyncRecord[] = [];
  let running = true;
  const loop = async () => {
    while (running) {
      const t0 = Date.now();
      let rec: SyncRecord;
      try {
        const res = await cluster.call('POST', '/v2/scrape', { key, body: { url: origin.url('/sync'), timeout: SYNC_TIMEOUT_MS, maxAge: 0 } });
        rec = { status: res.status, ms: Date.now() - t0, ...(res.body.code ? { code: String(res.body.code) } : {}) };
      } catch (err) {
        rec = { status: 0, ms: Date.now() - t0, code: String((err as Error).message) };
      }
      records.push(rec);
    }
  };
  const done = Promise.all(Array.from({ length: clients }, loop));
  return { records, stop: async () => { running = false; await done; } };
}

async function waitFor<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`${what}: still ${JSON.stringify(v).slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('chaos', () => {
  it('a 1,000-page crawl and sync scrapes survive 5 worker SIGKILLs and a Redis restart: every page once, no sync past its timeout, slots back to 0', async () => {
    const crawlTeam = await cluster.team({ concurrency: 8, ratePerMinute: 100_000 });
    const syncTeam = await cluster.team({ concurrency: 2, ratePerMinute: 100_000 });
    const expected = site.reachable();
    expect(expected.length).toBeGreaterThanOrEqual(PAGES);

    const start = await cluster.call('POST', '/v2/crawl', {
      key: crawlTeam.key,
      body: { url: site.url('/'), limit: expected.length * 2, sitemap: 'skip', scrapeOptions: { formats: ['markdown'], maxAge: 0 } },
    });
    expect(start.status).toBe(200);
    const id = start.body.id as string;
    const sync = syncStream(syncTeam.key, 2);
    stopSync = sync.stop;
    // A poll during the Redis restart may answer 503 (retry it, as its Retry-After says).
    const completed = async () => {
      for (;;) {
        const r = await cluster.call('GET', `/v2/crawl/${id}?limit=1`, { key: crawlTeam.key });
        if (r.status !== 503) return r.body as { status: string; completed: number };
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };

    // Faults at fixed points of progress: five worker kills (each replaced) and one Redis restart.
    const faults: Array<{ at: number; fault: 'kill' | 'redis' }> = [
      { at: 80, fault: 'kill' }, { at: 220, fault: 'kill' }, { at: 380, fault: 'redis' },
      { at: 480, fault: 'kill' }, { at: 640, fault: 'kill' }, { at: 800, fault: 'kill' },
    ];
    const log: string[] = [];
    for (const [i, f] of faults.entries()) {
      const s = await waitFor(`crawl reaching ${f.at} pages`, completed, (v) => v.completed >= f.at || v.status !== 'scraping', 60_000);
      expect(s.status).toBe('scraping');
      if (f.fault === 'kill') {
        const victim = workers.splice(i % workers.length, 1)[0]!;
        await kill(victim.child, 'SIGKILL');
        workers.push(await spawnWorkerProcess(cluster.env));
      } else {
        await cluster.redisServer.restart();
      }
      log.push(`${f.fault}@${s.completed}`);
      if (process.env.CHAOS_DEBUG) process.stderr.write(`chaos: ${log.at(-1)}\n`);
    }
    expect(log).toHaveLength(6);

    const final = await waitFor('crawl completion', completed, (v) => v.status !== 'scraping', 120_000);
    await sync.stop();
    expect(final.status).toBe('completed');

    // Every page exactly once: no page missing, none twice, none failed, each billed once.
    const { status, docs } = await allDocuments(cluster, id, 'crawl', crawlTeam.key);
    const paths = docs.map(pathOf);
    expect(new Set(paths).size).toBe(paths.length);
    expect([...paths].sort()).toEqual([...expected].sort());
    expect(status).toMatchObject({ status: 'completed', total: expected.length, completed: expected.length, creditsUsed: expected.length });
    const errors = await cluster.call('GET', `/v2/crawl/${id}/errors`, { key: crawlTeam.key });
    expect(errors.body.errors).toEqual([]);

    // No sync scrape outlived its timeout (plus the API's answer grace); none ended in a 5xx or a
    // broken connection, except 503 while Redis itself was down.
    const records = sync.records;
    if (process.env.CHAOS_DEBUG) {
      const statuses: Record<string, number> = {};
      for (const r of records) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      process.stderr.write(`chaos: sync ${JSON.stringify(statuses)} max ${Math.max(...records.map((r) => r.ms))} ms\n`);
    }
    expect(records.length).toBeGreaterThan(20);
    const late = records.filter((r) => r.ms > SYNC_TIMEOUT_MS + SYNC_GRACE_MS + 1500);
    expect(late).toEqual([]);
    const bad = records.filter((r) => r.status !== 200 && r.status !== 408 && !(r.status === 503 && r.code === 'SERVICE_UNAVAILABLE'));
    expect(bad).toEqual([]);
    expect(records.filter((r) => r.status === 200).length).toBeGreaterThan(records.length * 0.8);

    // Every team's slots come back to zero, and the cluster gauges agree.
    for (const team of [crawlTeam, syncTeam]) {
      await waitFor('team slots back to 0', async () => (await cluster.call('GET', '/v2/concurrency-check', { key: team.key })).body.concurrency as number, (n) => n === 0, 20_000);
    }
    const metrics = await fetch(`${cluster.api.url}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/^trawl_concurrency_slots\{state="active"[^}]*\} 0$/m);
    expect(metrics).toMatch(/^trawl_concurrency_slots\{state="backlogged"[^}]*\} 0$/m);
  }, 240_000);
});
