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

  it('hands admitted jobs to a local runner instead of BullMQ; the reaper recovers one whose runner died', async () => {
    const { dispatcher, queues, spec, team, tick } = await setup();
    const q = queues.get('scrape');
    const taken: string[] = [];
    let accept = true;
    dispatcher.runLocally((s, admission) => {
      if (!accept) return false;
      taken.push(`${s.jobId}:${admission.limited}`);
      return true;
    });
    const a = spec();
    const b = spec();
    await dispatcher.submit(a);
    await dispatcher.submit(b); // the team's one slot is taken: b waits
    expect(taken).toEqual([`${a.jobId}:false`]);
    expect(await q.getJobState(a.jobId)).toBe('unknown');
    // A slot freed by this dispatcher promotes b to the local runner too, as limited.
    await dispatcher.release(a.teamId, a.jobId);
    expect(taken).toEqual([`${a.jobId}:false`, `${b.jobId}:true`]);
    // A run still going is kept admitted: the reaper leaves it alone.
    tick(800);
    await dispatcher.keepAdmitted([{ teamId: team.id, jobId: b.jobId }]);
    tick(800);
    expect(await dispatcher.reconcile()).toMatchObject({ recovered: 0 });
    // Its process died (nothing keeps it admitted any more): the reaper enqueues it in BullMQ.
    tick(1500);
    expect(await dispatcher.reconcile()).toMatchObject({ recovered: 1 });
    expect(await q.getJobState(b.jobId)).not.toBe('unknown');
    // A runner that declines leaves the job to BullMQ.
    accept = false;
    await dispatcher.release(b.teamId, b.jobId);
    const c = spec();
    await dispatcher.submit(c);
    expect(await q.getJobState(c.jobId)).not.toBe('unknown');
    // requeue: a job a local runner gave back goes to BullMQ delayed, with its payload and attempts.
    await dispatcher.release(c.teamId, c.jobId);
    accept = true;
    const d = spec();
    await dispatcher.submit(d);
    await dispatcher.requeue(d, { ...d.data, hostSlotAt: 5 }, { delayMs: 60_000, attempts: 2 });
    const job = await q.getJob(d.jobId);
    expect(await job!.getState()).toBe('delayed');
    expect(job!.opts.attempts).toBe(2);
    expect(job!.data).toMatchObject({ jobId: d.jobId, hostSlotAt: 5 });
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
