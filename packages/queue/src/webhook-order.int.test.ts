import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { redisPerFile } from '@trawl/testing';
import { RedisKeys } from './redis-keys.js';
import { WebhookOrder, type WebhookJobState } from './webhook-order.js';

// The pending page deliveries of a crawl on a real Redis, with an explicit clock; job states as the
// webhook queue would report them.

const db = redisPerFile();

describe('WebhookOrder', () => {
  it('counts the crawl\'s page jobs that may still POST, and drops those that ended without settling (a worker that died)', async () => {
    let now = 1_000_000;
    const keys = new RedisKeys(`t${randomUUID().slice(0, 8)}`);
    const order = new WebhookOrder(db.redis, keys, { graceMs: 30_000, now: () => now });
    const states: Record<string, WebhookJobState> = {
      delivered: 'completed', givenUp: 'failed', retrying: 'delayed', posting: 'active', queued: 'waiting', neverAdded: 'unknown', adding: 'unknown',
    };
    for (const jobId of ['delivered', 'givenUp', 'retrying', 'posting', 'queued', 'neverAdded']) await order.track('c1', jobId);
    now += 30_000;
    await order.track('c1', 'adding'); // tracked just before its add: not known to BullMQ yet
    await order.track('c2', 'other');
    const stateOf = async (jobId: string) => states[jobId] ?? 'unknown';

    expect(await order.pending('c1', stateOf)).toBe(4);
    expect((await db.redis.zrange(order.key('c1'), 0, -1)).sort()).toEqual(['adding', 'posting', 'queued', 'retrying']);
    expect(await db.redis.pttl(order.key('c1'))).toBeGreaterThan(0);

    for (const jobId of ['retrying', 'posting', 'queued']) await order.settled('c1', jobId);
    states.adding = 'completed';
    expect(await order.pending('c1', stateOf)).toBe(0);
    // The set goes with its last entry; another crawl's is its own (its own hash tag).
    expect(await db.redis.exists(order.key('c1'))).toBe(0);
    expect(order.key('c2')).toBe(`${keys.prefix}:{c:c2}:webhooks`);
    expect(await order.pending('c2', stateOf)).toBe(1);
  });
});
