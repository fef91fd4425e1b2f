import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import { Worker } from 'bullmq';
import { createMetricsRegistry, registerClusterMetrics } from '@trawl/observability';
import { RedisServerFixture } from '@trawl/testing';
import { Admission } from './admission.js';
import { ClusterStats } from './cluster-stats.js';
import { JobDispatcher, type JobSpec } from './job-dispatcher.js';
import { QueueSet } from './queue-set.js';
import { RedisKeys } from './redis-keys.js';
import { TeamStore } from './team-store.js';

let server: RedisServerFixture;
let redis: Redis;

beforeAll(async () => {
  server = await RedisServerFixture.start({ appendonly: false });
  redis = new Redis(server.url, { maxRetriesPerRequest: null });
});
afterAll(async () => {
  redis.disconnect();
  await server.stop();
});

describe('ClusterStats', () => {
  it('counts jobs by state, what is ready (prioritized and due delayed included) and the oldest ready age', async () => {
    const keys = new RedisKeys(`s${randomUUID().slice(0, 8)}`);
    const queues = new QueueSet(redis, keys);
    const t0 = Date.now();
    const scrape = queues.get('scrape');
    await scrape.add('a', {}, { priority: 10, timestamp: t0 - 30_000 });
    await scrape.add('b', {}, { priority: 1, timestamp: t0 - 5_000 });
    await scrape.add('c', {}, { timestamp: t0 - 2_000 });
    await scrape.add('future', {}, { delay: 60_000 });
    await queues.get('documents').add('due', {}, { delay: 1, timestamp: t0 - 20_000 });

    const stats = new ClusterStats(redis, keys, { now: () => t0 });
    const byQueue = Object.fromEntries((await stats.queues()).map((q) => [q.queue, q]));
    expect(byQueue.scrape!.counts).toMatchObject({ waiting: 1, prioritized: 2, delayed: 1, active: 0 });
    // The future delayed job is not ready; the oldest ready one is the low-priority job of 30 s ago.
    expect(byQueue.scrape!.ready).toBe(3);
    expect(byQueue.scrape!.oldestReadySec).toBeCloseTo(30, 0);
    // A delayed job whose time has come counts as ready (no worker promoted it yet).
    expect(byQueue.documents!.counts.delayed).toBe(1);
    expect(byQueue.documents!.ready).toBe(1);
    expect(byQueue.documents!.oldestReadySec).toBeGreaterThan(19);
    expect(byQueue.browser).toMatchObject({ ready: 0, oldestReadySec: 0 });
    await queues.close();
  });

  it('sums active and backlogged slots over teams, and the gauges show them with Redis memory', async () => {
    const keys = new RedisKeys(`s${randomUUID().slice(0, 8)}`);
    const teams = new TeamStore(redis, keys);
    const queues = new QueueSet(redis, keys);
    const dispatcher = new JobDispatcher(redis, keys, new Admission(redis, keys), queues);
    for (const concurrency of [1, 2]) {
      const team = await teams.create({ name: 't', concurrency });
      const spec = (): JobSpec<'scrape'> => {
        const jobId = randomUUID();
        return {
          jobId, teamId: team.id, queue: 'scrape', name: 'scrape', priorityClass: 'bulk', enqueuedAt: Date.now(),
          data: { v: 1, jobId, teamId: team.id, request: { url: 'http://a.example/' }, deadline: Date.now() + 60_000, mode: 'async', zeroDataRetention: false },
        };
      };
      for (let i = 0; i < 3; i++) await dispatcher.submit(spec());
    }
    const stats = new ClusterStats(redis, keys);
    expect(await stats.slots()).toEqual({ active: 3, backlogged: 3 });

    const registry = createMetricsRegistry({ role: 'test', collectDefaults: false });
    registerClusterMetrics(registry, () => stats.snapshot());
    const text = await registry.metrics();
    expect(text).toContain('trawl_concurrency_slots{state="active",role="test"} 3');
    expect(text).toContain('trawl_concurrency_slots{state="backlogged",role="test"} 3');
    expect(text).toContain('trawl_queue_jobs{queue="scrape",state="prioritized",role="test"} 3');
    expect(text).toContain('trawl_queue_ready_jobs{queue="scrape",role="test"} 3');
    expect(text).toContain('trawl_redis_up{redis="queue",role="test"} 1');
    expect(text).toMatch(/trawl_redis_memory_used_bytes\{redis="queue",role="test"\} [1-9]\d+/);

    // A worker takes the jobs: they are active, no longer ready.
    // Each job holds until the checks are done; the third start means all three are active.
    const events = new EventEmitter();
    let running = 0;
    const allActive = once(events, 'all-active');
    const worker = new Worker('scrape', async () => {
      const release = once(events, 'release');
      if (++running === 3) events.emit('all-active');
      await release;
    }, { connection: redis, prefix: keys.bullPrefix('scrape'), concurrency: 5 });
    await allActive;
    const scrape = (await stats.queues()).find((q) => q.queue === 'scrape')!;
    expect(scrape.counts.active).toBe(3);
    expect(scrape.ready).toBe(0);
    events.emit('release');
    await worker.close();
    await queues.close();
  });

  it('drops the queue series and reports Redis down when the read fails, without failing /metrics', async () => {
    const registry = createMetricsRegistry({ role: 'test', collectDefaults: false });
    registerClusterMetrics(registry, () => Promise.reject(new Error('down')));
    const text = await registry.metrics();
    expect(text).toContain('trawl_redis_up{redis="queue",role="test"} 0');
    expect(text).not.toMatch(/^trawl_queue_jobs\{/m);
  });
});

describe('registerClusterMetrics', () => {
  it('registers once per registry; a second registration (API and worker in one process) replaces the reader', async () => {
    const registry = createMetricsRegistry({ role: 'test', collectDefaults: false });
    const snap = (active: number) => async () => ({ queues: [], slots: { active, backlogged: 0 }, redis: { queue: { usedBytes: 1, maxBytes: 0 } } });
    registerClusterMetrics(registry, snap(1));
    registerClusterMetrics(registry, snap(7), { cacheMs: 0 });
    expect(await registry.metrics()).toContain('trawl_concurrency_slots{state="active",role="test"} 7');
  });
});
