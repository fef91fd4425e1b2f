import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { EventEmitter, once } from 'node:events';
import { apiConfigSchema, startApi, type ApiHandle } from '@trawl/api';
import { loadConfig } from '@trawl/config';
import { createLogger, createMetricsRegistry } from '@trawl/observability';
import { FixtureSite, waitFor } from '@trawl/testing';
import { ADMIN_KEY, BOOT_KEY, TestCluster } from './helpers/cluster.js';
import { exited, kill, spawnWorkerProcess, type WorkerProcess } from './helpers/worker-process.js';

let cluster: TestCluster;
let site: FixtureSite;
const events = new EventEmitter();
const hits = new Map<string, number>();
const workers: WorkerProcess[] = [];
const apis: ApiHandle[] = [];

/**
 * A page that tells the test it was asked (`hit:<path>`) and answers after `ms`, or with `'held'` once
 * the test emits `release:<path>`.
 */
const slow = (ms: number | 'held') => async (req: { url?: string }, res: { writeHead: (s: number, h: Record<string, string>) => void; end: (b: string) => void; writableEnded: boolean }) => {
  const path = req.url!.split('?')[0]!;
  const n = (hits.get(path) ?? 0) + 1;
  hits.set(path, n);
  const released = ms === 'held' ? once(events, `release:${path}`) : new Promise((r) => setTimeout(r, ms));
  events.emit(`hit:${path}`, n);
  await released;
  if (!res.writableEnded) {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<html><head><title>${path} #${n}</title></head><body><p>Served to attempt ${n}.</p></body></html>`);
  }
};

beforeAll(async () => {
  site = await new FixtureSite()
    .route('/finish', slow('held'))
    .route('/queued', slow(0))
    .route('/hang', slow(60_000))
    .route('/api-drain', slow(1200))
    .route('/api-cut', slow(2500))
    .start();
  cluster = await TestCluster.start({ TRAWL_JOB_LOCK_MS: '30000' }, { worker: false });
}, 30_000);
afterAll(async () => {
  for (const w of workers) await kill(w.child, 'SIGKILL');
  for (const a of apis) await a.close({ graceMs: 100 }).catch(() => undefined);
  await cluster.stop();
  await site.stop();
}, 30_000);

const startWorker = async (env: Record<string, string> = {}) => {
  const w = await spawnWorkerProcess({ ...cluster.env, ...env });
  workers.push(w);
  return w;
};
const ready = (port: number) => fetch(`http://127.0.0.1:${port}/health/ready`).then(async (r) => ({ status: r.status, body: await r.json() as { status: string } }));
const scrape = (path: string, base?: string) => {
  const body = JSON.stringify({ url: site.url(path), timeout: 60_000, maxAge: 0 });
  return fetch(`${base ?? cluster.api.url}/v2/scrape`, { method: 'POST', headers: { authorization: `Bearer ${BOOT_KEY}`, 'content-type': 'application/json' }, body })
    .then(async (r) => ({ status: r.status, headers: r.headers, body: await r.json() as Record<string, any> })); // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience
};

describe('worker SIGTERM', () => {
  it('turns readiness off, takes no new job, finishes the running one and exits 0', async () => {
    const w = await startWorker({ TRAWL_SHUTDOWN_GRACE_MS: '15000' });
    const started = once(events, 'hit:/finish');
    const running = scrape('/finish');
    await started;
    expect((await ready(w.metricsPort)).status).toBe(200);
    w.child.kill('SIGTERM');
    const exit = exited(w.child);
    expect(await waitFor(async () => {
      const r = await ready(w.metricsPort);
      return r.status === 503 && r;
    }, { what: 'readiness to turn off after SIGTERM' })).toEqual({ status: 503, body: { status: 'shutting-down' } });
    const metrics = await fetch(`http://127.0.0.1:${w.metricsPort}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/^trawl_worker_shutting_down\{[^}]*\} 1$/m);
    expect(metrics).toMatch(/^trawl_jobs_in_flight\{queue="scrape"[^}]*\} 1$/m);
    // Submitted while the only worker stops: it waits for the next worker.
    const queued = scrape('/queued');
    // Both jobs admitted (the second one queued behind the stopping worker) before /finish answers.
    await waitFor(async () => (await cluster.call('GET', '/v2/team/queue-status')).body.activeJobsInQueue === 2, { what: 'the second job admitted' });
    events.emit('release:/finish');
    const first = await running;
    expect(first.status).toBe(200);
    expect(first.body.data.metadata.title).toBe('/finish #1');
    expect(await exit).toBe(0);
    expect(hits.get('/queued')).toBeUndefined();
    await startWorker();
    const second = await queued;
    expect(second.status).toBe(200);
    expect(hits.get('/finish')).toBe(1);
  }, 40_000);

  it('past the grace period the job goes back to the queue at once (no lock expiry, no attempt spent) and runs once to completion elsewhere', async () => {
    for (const w of workers.splice(0)) await kill(w.child, 'SIGTERM');
    const w = await startWorker({ TRAWL_SHUTDOWN_GRACE_MS: '300' });
    const started = once(events, 'hit:/hang');
    const pending = scrape('/hang');
    await started;
    w.child.kill('SIGTERM');
    expect(await exited(w.child)).toBe(0);
    expect(w.output()).toContain('worker stopping');
    site.route('/hang', slow(100));
    await startWorker();
    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.body.data.metadata.title).toBe('/hang #2');
    // BullMQ's record of the job: started twice, one attempt made (the completed one), and never found
    // stalled: only stalled-job recovery writes `stc`, so the job came back by the shutdown return path
    // (job.moveToWait), not by its lock expiring. The answer can come before BullMQ has recorded the
    // job's completion: wait for that record.
    const record = await waitFor(async () => {
      for (const key of await cluster.redis.keys('*:bull:scrape:*')) {
        if ((await cluster.redis.type(key)) !== 'hash') continue;
        const h = await cluster.redis.hgetall(key);
        if (h.data?.includes('/hang') && h.finishedOn) return h;
      }
      return undefined;
    }, { what: 'BullMQ\'s record of the finished /hang job', timeoutMs: 15_000 });
    expect({ started: record?.ats, made: record?.atm, stalled: record?.stc }).toEqual({ started: '2', made: '1', stalled: undefined });
    // One outcome: the team's slots are back to zero and the result is the second attempt's.
    const conc = await cluster.call('GET', '/v2/concurrency-check');
    expect(conc.body.concurrency).toBe(0);
  }, 40_000);
});

describe('API SIGTERM', () => {
  const startSecondApi = async () => {
    const config = loadConfig(apiConfigSchema, cluster.env);
    const api = await startApi(config, { logger: createLogger({ role: 'api', level: 'silent' }), registry: createMetricsRegistry({ role: 'api', collectDefaults: false }) });
    apis.push(api);
    return api;
  };

  it('readiness off at once, keeps serving through the delay, lets a sync scrape finish, then stops listening', async () => {
    if (workers.every((w) => w.child.exitCode !== null)) await startWorker();
    const api = await startSecondApi();
    const started = once(events, 'hit:/api-drain');
    const pending = scrape('/api-drain', api.url);
    await started;
    const closing = api.close({ delayMs: 400, graceMs: 10_000 });
    const readyRes = await fetch(`${api.url}/health/ready`);
    expect(readyRes.status).toBe(503);
    // Still serving during the delay, asking keep-alive clients to go elsewhere.
    const live = await fetch(`${api.url}/health/live`);
    expect(live.status).toBe(200);
    expect(live.headers.get('connection')).toBe('close');
    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.body.data.metadata.title).toBe('/api-drain #1');
    await closing;
    await expect(fetch(`${api.url}/health/live`)).rejects.toThrow();
  }, 30_000);

  it('a sync scrape still waiting past the grace period gets 503 with its job id; the result is kept', async () => {
    const api = await startSecondApi();
    const started = once(events, 'hit:/api-cut');
    const pending = scrape('/api-cut', api.url);
    await started;
    await api.close({ graceMs: 300 });
    const res = await pending;
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.body).toMatchObject({ success: false, code: 'SERVICE_UNAVAILABLE', details: { reason: 'shutting-down' } });
    const jobId = res.body.details.jobId as string;
    const doc = await waitFor(async () => {
      const r = await cluster.call('GET', `/v2/scrape/${jobId}`);
      return r.status === 200 && r;
    }, { what: 'the kept result', timeoutMs: 20_000 });
    expect(doc.body.data.metadata.title).toBe('/api-cut #1');
  }, 30_000);
});

describe('queue UI (Bull Board)', () => {
  const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

  it('asks a browser for the admin key, refuses API keys, and serves the board to the admin', async () => {
    const none = await fetch(`${cluster.api.url}/admin/queues`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Basic realm="Trawl admin"/);
    expect((await fetch(`${cluster.api.url}/admin/queues`, { headers: { authorization: basic('x', BOOT_KEY) } })).status).toBe(403);
    expect((await fetch(`${cluster.api.url}/admin/queues`, { headers: { authorization: basic('admin', 'wrong') } })).status).toBe(401);
    const page = await fetch(`${cluster.api.url}/admin/queues`, { headers: { authorization: basic('admin', ADMIN_KEY) } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(await page.text()).toContain('/admin/queues');
  });

  it('lists every queue with its counts, read-only, and hides zero-data-retention payloads', async () => {
    const zdr = await cluster.call('POST', '/v2/scrape', { body: { url: site.url('/queued?zdr'), zeroDataRetention: true, maxAge: 0 } });
    expect(zdr.status).toBe(200);
    const res = await fetch(`${cluster.api.url}/admin/queues/api/queues?activeQueue=scrape&status=completed&page=1`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    expect(res.status).toBe(200);
    const body = await res.json() as { queues: Array<{ name: string; readOnlyMode: boolean; counts: Record<string, number>; jobs: Array<{ data: Record<string, unknown> }> }> };
    expect(body.queues.map((q) => q.name).sort()).toEqual(['browser', 'crawl', 'documents', 'extract', 'monitor', 'scrape', 'webhook']);
    const scrapeQueue = body.queues.find((q) => q.name === 'scrape')!;
    expect(scrapeQueue.readOnlyMode).toBe(true);
    expect(scrapeQueue.counts.completed).toBeGreaterThan(0);
    const jobs = scrapeQueue.jobs;
    expect(jobs.length).toBeGreaterThan(0);
    const hidden = jobs.filter((j) => j.data.zeroDataRetention === true);
    expect(hidden.length).toBe(1);
    expect(JSON.stringify(hidden[0])).not.toContain('zdr');
    expect(hidden[0]!.data.redacted).toMatch(/zero data retention/);
    expect(jobs.some((j) => JSON.stringify(j.data).includes('/queued'))).toBe(true);
  });
});
