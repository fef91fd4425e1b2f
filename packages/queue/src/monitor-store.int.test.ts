import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { createMonitorRequestSchema, type MonitorPageStatus } from '@trawl/api-schema';
import { redisPerFile } from '@trawl/testing';
import { EMPTY_SUMMARY, MonitorStore, type MonitorCheckRecord, type MonitorPageRecord, type MonitorRecord } from './monitor-store.js';
import { RedisKeys } from './redis-keys.js';

const db = redisPerFile();

function setup() {
  const keys = new RedisKeys(`t${randomUUID().slice(0, 8)}`);
  return { keys, store: new MonitorStore(db.redis, keys) };
}

function monitor(teamId = 'team', createdAt = 1_000): MonitorRecord {
  const req = createMonitorRequestSchema.parse({ name: 'm', schedule: { cron: '0 * * * *' }, targets: [{ type: 'scrape', urls: ['https://a.test/'] }] });
  return {
    id: randomUUID(), teamId, status: 'active', currentCheckId: null, currentCheckAt: null, lastRunAt: null, lastCheckSummary: null,
    config: { name: req.name, schedule: req.schedule, retentionDays: req.retentionDays, targets: req.targets.map((t) => ({ ...t, id: 't1' })) as never },
    createdAt, updatedAt: createdAt,
  };
}

function check(m: MonitorRecord, overrides: Partial<MonitorCheckRecord> = {}): MonitorCheckRecord {
  return {
    id: randomUUID(), monitorId: m.id, status: 'running', trigger: 'manual', scheduledFor: null, startedAt: 5_000, finishedAt: null,
    actualCredits: null, billingStatus: 'not_applicable', summary: EMPTY_SUMMARY, targetResults: [{ targetId: 't1', type: 'scrape', crawlId: randomUUID() }],
    notificationStatus: null, error: null, createdAt: 5_000, updatedAt: 5_000, ...overrides,
  };
}

function page(status: MonitorPageStatus, n: number): MonitorPageRecord {
  return { id: randomUUID(), targetId: 't1', url: `https://a.test/${n}`, status, currentScrapeId: null, statusCode: 200, error: null, diff: null, createdAt: 1 };
}

async function start(store: MonitorStore, c: MonitorCheckRecord, staleBefore = 0) {
  return store.startCheck(c, { ...c, status: 'skipped_overlap' }, staleBefore);
}

describe('MonitorStore', () => {
  it('creates, reads, updates, lists per team newest first, and deletes with every check', async () => {
    const { store, keys } = setup();
    const a = monitor('team', 1_000);
    const b = monitor('team', 2_000);
    await store.create(a);
    await store.create(b);
    await store.create(monitor('other', 3_000));
    expect(await store.get(a.id)).toEqual(a);
    expect((await store.list('team', { offset: 0, limit: 10 })).map((m) => m.id)).toEqual([b.id, a.id]);
    expect((await store.list('team', { offset: 1, limit: 10 })).map((m) => m.id)).toEqual([a.id]);
    expect(await store.update(a.id, { status: 'paused', updatedAt: 1_500 })).toBe(true);
    expect(await store.get(a.id)).toMatchObject({ status: 'paused', updatedAt: 1_500, config: a.config });

    const c = check(a);
    await start(store, c);
    await store.finishCheck({ ...c, status: 'completed' }, [page('new', 1)]);
    await store.delete(a);
    expect(await store.get(a.id)).toBeNull();
    expect(await store.update(a.id, { status: 'active', updatedAt: 2 })).toBe(false);
    expect(await db.redis.exists(keys.monitor(a.id))).toBe(0); // an update after a delete brings nothing back
    expect(await db.redis.keys(`${keys.prefix}:{m:${a.id}}*`)).toEqual([]);
    expect((await store.list('team', { offset: 0, limit: 10 })).map((m) => m.id)).toEqual([b.id]);
  });

  it('runs one check at a time: a second one is skipped_overlap until the first finishes', async () => {
    const { store } = setup();
    const m = monitor();
    await store.create(m);
    const first = check(m);
    expect(await start(store, first)).toEqual({ kind: 'started', replacedCheckId: null });
    expect(await store.get(m.id)).toMatchObject({ currentCheckId: first.id, lastRunAt: 5_000 });
    // The same check again (a retried job) resumes instead.
    expect(await start(store, first)).toEqual({ kind: 'exists', status: 'running' });
    const second = check(m, { createdAt: 6_000 });
    expect(await start(store, second)).toEqual({ kind: 'overlap', currentCheckId: first.id });
    expect(await store.getCheck(m.id, second.id)).toMatchObject({ status: 'skipped_overlap' });

    const summary = { ...EMPTY_SUMMARY, totalPages: 1, new: 1 };
    expect(await store.finishCheck({ ...first, status: 'completed', summary }, [page('new', 1)])).toBe(true);
    expect(await store.finishCheck({ ...first, status: 'failed' }, [])).toBe(false); // once
    expect(await store.get(m.id)).toMatchObject({ currentCheckId: null, lastCheckSummary: summary });
    const third = check(m, { createdAt: 7_000 });
    expect(await start(store, third)).toEqual({ kind: 'started', replacedCheckId: null });
    expect((await store.listChecks(m.id, { offset: 0, limit: 10 })).map((c) => [c.id, c.status])).toEqual([
      [third.id, 'running'], [second.id, 'skipped_overlap'], [first.id, 'completed'],
    ]);
  });

  it('replaces a current check that started before the stale limit', async () => {
    const { store } = setup();
    const m = monitor();
    await store.create(m);
    const stuck = check(m, { startedAt: 1_000 });
    await start(store, stuck);
    const next = check(m, { startedAt: 9_000 });
    expect(await start(store, next, 2_000)).toEqual({ kind: 'started', replacedCheckId: stuck.id });
  });

  it('starts a queued check, puts checks only from the allowed statuses, and not for a missing monitor', async () => {
    const { store } = setup();
    const m = monitor();
    await store.create(m);
    const queued = check(m, { status: 'queued', startedAt: null });
    expect(await store.putCheck(queued, ['none'])).toBe(true);
    expect(await store.putCheck(queued, ['none'])).toBe(false);
    expect(await start(store, { ...queued, status: 'running', startedAt: 5_000 })).toEqual({ kind: 'started', replacedCheckId: null });
    expect(await store.putCheck({ ...queued, status: 'skipped_no_credits' }, ['none', 'queued'])).toBe(false);
    expect(await store.putCheck({ ...check(monitor()), status: 'queued' }, ['none'])).toBe(false);
    expect(await start(store, check(monitor()))).toEqual({ kind: 'missing' });
  });

  it('pages: in order, by status, with more; target done counts each target once', async () => {
    const { store } = setup();
    const m = monitor();
    await store.create(m);
    const c = check(m);
    await start(store, c);
    expect(await store.markTargetDone(m.id, c.id, 't1')).toBe(1);
    expect(await store.markTargetDone(m.id, c.id, 't1')).toBe(1);
    expect(await store.markTargetDone(m.id, c.id, 't2')).toBe(2);
    const pages = [page('same', 0), page('changed', 1), page('same', 2), page('error', 3), page('same', 4)];
    await store.finishCheck({ ...c, status: 'partial' }, pages);
    const urls = (r: { pages: MonitorPageRecord[] }) => r.pages.map((p) => p.url.slice(-1));
    expect(urls(await store.pages(m.id, c.id, { skip: 0, limit: 3 }))).toEqual(['0', '1', '2']);
    expect((await store.pages(m.id, c.id, { skip: 0, limit: 3 })).more).toBe(true);
    expect(await store.pages(m.id, c.id, { skip: 3, limit: 3 })).toMatchObject({ more: false });
    const same = await store.pages(m.id, c.id, { skip: 1, limit: 1, status: 'same' });
    expect([urls(same), same.more]).toEqual([['2'], true]);
    expect(urls(await store.pages(m.id, c.id, { skip: 0, limit: 5, status: 'error' }))).toEqual(['3']);
    expect(await store.pages(m.id, c.id, { skip: 0, limit: 5, status: 'removed' })).toEqual({ pages: [], more: false });
    expect((await store.pages(m.id, c.id, { skip: 0, limit: 10 })).pages).toEqual(pages);
  });

  it('prunes old checks but the running one', async () => {
    const { store } = setup();
    const m = monitor();
    await store.create(m);
    const old = check(m, { createdAt: 1_000 });
    await start(store, old);
    await store.finishCheck({ ...old, status: 'completed' }, [page('new', 1)]);
    await store.putCheck(check(m, { createdAt: 2_000, status: 'skipped_no_credits' }), ['none']);
    const current = check(m, { createdAt: 3_000 });
    await start(store, current);
    expect(await store.prune(m.id, 10_000, current.id)).toBe(2);
    expect((await store.listChecks(m.id, { offset: 0, limit: 10 })).map((c) => c.id)).toEqual([current.id]);
    expect(await store.pages(m.id, old.id, { skip: 0, limit: 10 })).toEqual({ pages: [], more: false });
    expect(await store.getCheck(m.id, old.id)).toBeNull();
  });
});
