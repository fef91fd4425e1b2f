import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { RedisServerFixture } from '@trawl/testing';
import { Admission } from './admission.js';
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

async function setup() {
  const keys = new RedisKeys(`d${randomUUID().slice(0, 8)}`);
  const team = await new TeamStore(redis, keys).create({ name: 't', concurrency: 1 });
  let clock = Date.now();
  const admission = new Admission(redis, keys, { checkAfterMs: 1000, now: () => clock });
  const queues = new QueueSet(redis, keys);
  const dispatcher = new JobDispatcher(redis, keys, admission, queues);
  const spec = (): JobSpec<'scrape'> => {
    const jobId = randomUUID();
    return {
      jobId, teamId: team.id, queue: 'scrape', name: 'scrape', priorityClass: 'interactive', enqueuedAt: clock,
      data: { v: 1, jobId, teamId: team.id, request: { url: 'http://a.example/' }, deadline: clock + 60_000, mode: 'async', zeroDataRetention: false },
    };
  };
  return { team, admission, queues, dispatcher, spec, tick: (ms: number) => (clock += ms) };
}

describe('JobDispatcher', () => {
  it('puts admitted jobs in BullMQ and keeps waiting ones out of it', async () => {
    const { dispatcher, queues, spec } = await setup();
    const a = spec();
    const b = spec();
    await dispatcher.submit(a);
    await dispatcher.submit(b);
    const q = queues.get('scrape');
    expect(await q.getJobState(a.jobId)).not.toBe('unknown');
    expect(await q.getJobState(b.jobId)).toBe('unknown');
    await dispatcher.release(a.teamId, a.jobId);
    expect(await q.getJobState(b.jobId)).not.toBe('unknown');
    const job = await q.getJob(b.jobId);
    expect(job?.data.admission.limited).toBe(true);
    await queues.close();
  });

  it('the reaper re-enqueues an admitted job that never reached BullMQ and frees slots of vanished jobs', async () => {
    const { admission, dispatcher, queues, spec, team, tick } = await setup();
    const lost = spec();
    // A producer that died between admission and enqueue: admitted in Redis, absent from BullMQ.
    await admission.admit(lost);
    const q = queues.get('scrape');
    expect(await q.getJobState(lost.jobId)).toBe('unknown');
    tick(1500);
    const r1 = await dispatcher.reconcile();
    expect(r1).toMatchObject({ recovered: 1, released: 0 });
    expect(await q.getJobState(lost.jobId)).not.toBe('unknown');
    // The job finished but its worker died before releasing: BullMQ says completed, the slot is given back.
    const job = await q.getJob(lost.jobId);
    await job!.remove();
    await redis.hdel(`${(dispatcher as unknown as { keys: RedisKeys }).keys.admPending(team.id)}`, lost.jobId);
    tick(1500);
    const r2 = await dispatcher.reconcile();
    expect(r2).toMatchObject({ released: 1 });
    expect(await dispatcher.counts(team.id)).toEqual({ active: 0, waiting: 0 });
    await queues.close();
  });
});
