import { afterAll, describe, expect, it } from '@jest/globals';
import { once } from 'node:events';
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { TrawlError } from '@trawl/api-schema';
import { redisPerFile } from '@trawl/testing';
import { CancellationWatcher, JobCancellations } from './job-cancellations.js';
import { RedisKeys } from './redis-keys.js';

const db = redisPerFile();
const subscribers: Redis[] = [];
afterAll(() => {
  for (const s of subscribers) s.disconnect();
});

async function setup() {
  const keys = new RedisKeys(`t${randomUUID().slice(0, 8)}`);
  const cancellations = new JobCancellations(db.redis, keys, { markTtlSec: 60 });
  const subscriber = db.redis.duplicate();
  subscribers.push(subscriber);
  const watcher = new CancellationWatcher(subscriber, keys, cancellations);
  await watcher.start();
  return { keys, cancellations, watcher };
}

describe('job cancellations', () => {
  it('a running job\'s signal fires when its id or its crawl\'s id is cancelled, with JOB_CANCELLED', async () => {
    const { cancellations, watcher } = await setup();
    const [job, crawl] = [randomUUID(), randomUUID()];
    const watch = await watcher.watch([job, crawl]);
    expect(watch.signal.aborted).toBe(false);
    const fired = once(watch.signal, 'abort');
    await cancellations.cancel(crawl);
    await fired;
    expect(watch.signal.reason).toBeInstanceOf(TrawlError);
    expect((watch.signal.reason as TrawlError).code).toBe('JOB_CANCELLED');
    watch.dispose();
  });

  it('a job cancelled before it was picked up starts aborted; other ids and disposed watches are untouched', async () => {
    const { cancellations, watcher, keys } = await setup();
    const [early, other, disposed] = [randomUUID(), randomUUID(), randomUUID()];
    await cancellations.cancel(early);
    expect((await watcher.watch([early])).signal.aborted).toBe(true);
    expect(await db.redis.ttl(keys.cancelled(early))).toBeGreaterThan(0);

    const untouched = await watcher.watch([other]);
    const gone = await watcher.watch([disposed]);
    gone.dispose();
    // A watch that is cancelled after both: its firing proves the earlier messages were delivered.
    const last = randomUUID();
    const lastWatch = await watcher.watch([last]);
    const fired = once(lastWatch.signal, 'abort');
    await cancellations.cancel(disposed);
    await cancellations.cancel(last);
    await fired;
    expect(untouched.signal.aborted).toBe(false);
    expect(gone.signal.aborted).toBe(false);
    expect(await cancellations.anyCancelled([other])).toBe(false);
    expect(await cancellations.anyCancelled([other, early])).toBe(true);
  });

  it('a watch without the mark read (a crawl page) starts unaborted and still hears a later cancellation', async () => {
    const { cancellations, watcher } = await setup();
    const crawl = randomUUID();
    await cancellations.cancel(crawl);
    // The page learns of the earlier cancellation from its crawl's status instead.
    const watch = await watcher.watch([randomUUID(), crawl], { readMarks: false });
    expect(watch.signal.aborted).toBe(false);
    const fired = once(watch.signal, 'abort');
    await cancellations.cancel(crawl);
    await fired;
    watch.dispose();
  });
});
