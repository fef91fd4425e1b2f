import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { redisPerFile } from '@trawl/testing';
import { Admission, type DispatchSpec } from './admission.js';
import { RedisKeys } from './redis-keys.js';
import { TeamStore } from './team-store.js';

const db = redisPerFile();

function spec(teamId: string, priorityClass: 'interactive' | 'bulk' = 'interactive', enqueuedAt = Date.now()): DispatchSpec {
  return { jobId: randomUUID(), teamId, queue: 'scrape', name: 'scrape', data: {}, priorityClass, enqueuedAt };
}

async function setup(concurrency: number) {
  const keys = new RedisKeys(`t${randomUUID().slice(0, 8)}`);
  const team = await new TeamStore(db.redis, keys).create({ name: 'a', concurrency });
  let clock = 1_000_000;
  const admission = new Admission(db.redis, keys, { backlogCap: 5, now: () => clock });
  return { keys, team, admission, tick: (ms: number) => (clock += ms) };
}

describe('Admission', () => {
  it('admits up to the team concurrency, then queues in order and reports the wait', async () => {
    const { team, admission, tick } = await setup(2);
    const a = await admission.admit(spec(team.id));
    const b = await admission.admit(spec(team.id));
    const c = spec(team.id, 'interactive', 1_000_000);
    const cOut = await admission.admit(c);
    expect(a.status).toBe('admitted');
    expect(b.status).toBe('admitted');
    expect(cOut).toMatchObject({ status: 'queued', position: 1 });
    expect(a.promoted).toHaveLength(1);
    expect(a.promoted[0]).toMatchObject({ limited: false, waitMs: 0 });
    tick(250);
    const rel = await admission.release(team.id, a.promoted[0]!.spec.jobId);
    expect(rel.released).toBe(true);
    expect(rel.promoted.map((p) => p.spec.jobId)).toEqual([c.jobId]);
    expect(rel.promoted[0]).toMatchObject({ limited: true, waitMs: 250 });
    expect(await admission.counts(team.id)).toEqual({ active: 2, waiting: 0 });
  });

  it('runs interactive jobs before bulk ones, then first come first served', async () => {
    const { team, admission } = await setup(1);
    const first = spec(team.id);
    await admission.admit(first);
    const bulk1 = spec(team.id, 'bulk');
    const bulk2 = spec(team.id, 'bulk');
    const inter = spec(team.id, 'interactive');
    await admission.admit(bulk1);
    await admission.admit(bulk2);
    await admission.admit(inter);
    const order: string[] = [];
    let current = first.jobId;
    for (let i = 0; i < 3; i++) {
      const r = await admission.release(team.id, current);
      current = r.promoted[0]!.spec.jobId;
      order.push(current);
    }
    expect(order).toEqual([inter.jobId, bulk1.jobId, bulk2.jobId]);
  });

  it('refuses duplicates, fills the backlog up to its cap, and withdraws waiting jobs only', async () => {
    const { team, admission } = await setup(1);
    const running = spec(team.id);
    await admission.admit(running);
    expect((await admission.admit(running)).status).toBe('duplicate');
    const waiting: DispatchSpec[] = [];
    for (let i = 0; i < 5; i++) {
      const s = spec(team.id);
      waiting.push(s);
      expect((await admission.admit(s)).status).toBe('queued');
    }
    expect((await admission.admit(spec(team.id))).status).toBe('backlog-full');
    expect(await admission.withdraw(team.id, waiting[0]!.jobId)).toBe(true);
    expect(await admission.withdraw(team.id, running.jobId)).toBe(false);
    expect(await admission.counts(team.id)).toEqual({ active: 1, waiting: 4 });
  });

  it('keeps one team from delaying another', async () => {
    const { team, admission } = await setup(1);
    const other = await new TeamStore(db.redis, (admission as unknown as { keys: RedisKeys }).keys).create({ name: 'b', concurrency: 1 });
    await admission.admit(spec(team.id));
    for (let i = 0; i < 4; i++) await admission.admit(spec(team.id));
    expect((await admission.admit(spec(other.id))).status).toBe('admitted');
  });

  it('never exceeds concurrency and drains to zero under a random mix of operations', async () => {
    const { team, admission } = await setup(3);
    let seed = 42;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const running = new Set<string>();
    const waiting = new Set<string>();
    const track = (promoted: { spec: DispatchSpec }[]) => {
      for (const p of promoted) {
        waiting.delete(p.spec.jobId);
        running.add(p.spec.jobId);
      }
    };
    for (let step = 0; step < 400; step++) {
      const r = rand();
      if (r < 0.45) {
        const s = spec(team.id, rand() < 0.5 ? 'interactive' : 'bulk');
        const out = await admission.admit(s);
        if (out.status === 'queued') waiting.add(s.jobId);
        track(out.promoted);
      } else if (r < 0.8 && running.size > 0) {
        // success, failure, timeout or crash all end in a release; sometimes twice (duplicate event)
        const id = [...running][Math.floor(rand() * running.size)]!;
        running.delete(id);
        track((await admission.release(team.id, id)).promoted);
        if (rand() < 0.2) track((await admission.release(team.id, id)).promoted);
      } else if (r < 0.9 && waiting.size > 0) {
        const id = [...waiting][Math.floor(rand() * waiting.size)]!;
        if (await admission.withdraw(team.id, id)) waiting.delete(id);
      } else if (waiting.size > 0) {
        // cancellation of a waiting job goes through release as well
        const id = [...waiting][0]!;
        waiting.delete(id);
        track((await admission.release(team.id, id)).promoted);
      }
      const c = await admission.counts(team.id);
      expect(c.active).toBeLessThanOrEqual(3);
      expect(c.active).toBe(running.size);
      expect(c.waiting).toBe(waiting.size);
      if (c.waiting > 0) expect(c.active).toBe(3);
    }
    while (running.size > 0) {
      const id = [...running][0]!;
      running.delete(id);
      track((await admission.release(team.id, id)).promoted);
    }
    expect(await admission.counts(team.id)).toEqual({ active: 0, waiting: 0 });
  });
});
