import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { EventEmitter, once } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import { FixtureSite, waitFor } from '@trawl/testing';
import { TestCluster } from './helpers/cluster.js';
import { kill, spawnWorker } from './helpers/worker-process.js';

let cluster: TestCluster;
let site: FixtureSite;
const events = new EventEmitter();
const workers: ChildProcess[] = [];
let hits = 0;

beforeAll(async () => {
  site = await new FixtureSite()
    .route('/crash-once', async (_req, res) => {
      hits += 1;
      if (hits === 1) {
        events.emit('first-hit');
        return; // hang: the worker serving it gets killed
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><head><title>Recovered</title></head><body><p>Served on the retry after a crash.</p></body></html>');
    })
    .start();
  cluster = await TestCluster.start({ TRAWL_JOB_LOCK_MS: '2000', TRAWL_REAPER_INTERVAL_MS: '300' }, { worker: false });
}, 30_000);
afterAll(async () => {
  for (const w of workers) await kill(w, 'SIGKILL');
  await cluster.stop();
  await site.stop();
}, 30_000);

describe('worker crash recovery', () => {
  it('a SIGKILLed worker\'s job is retried elsewhere, its slot comes back, the team drains to zero', async () => {
    const team = await cluster.team({ concurrency: 1 });
    workers.push(await spawnWorker(cluster.env));
    const firstHit = once(events, 'first-hit');
    const pending = cluster.call('POST', '/v2/scrape', { key: team.key, body: { url: site.url('/crash-once'), timeout: 30_000 } });
    await firstHit;
    const during = await cluster.call('GET', '/v2/concurrency-check', { key: team.key });
    expect(during.body.concurrency).toBe(1);
    await kill(workers[0]!, 'SIGKILL');
    workers.push(await spawnWorker(cluster.env));
    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.body.data.metadata.title).toBe('Recovered');
    expect(hits).toBe(2);
    // The slot comes back once the job's release lands, a round trip after the outcome that answered
    // the caller (the worker releases only what it recorded).
    const after = await waitFor(async () => {
      const r = await cluster.call('GET', '/v2/concurrency-check', { key: team.key });
      return r.body.concurrency === 0 ? r : undefined;
    }, { what: 'the slot back', timeoutMs: 10_000 });
    expect(after.body).toMatchObject({ concurrency: 0, maxConcurrency: 1 });
    // The slot really is free: a second scrape is admitted at once.
    const next = await cluster.call('POST', '/v2/scrape', { key: team.key, body: { url: site.url('/crash-once') } });
    expect(next.status).toBe(200);
    expect(next.body.data.metadata.concurrencyLimited).toBeUndefined();
  }, 40_000);
});
