import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { redisPerFile } from '@trawl/testing';
import { HostRateLimiter, nextHostDelay, type HostPolitenessOptions } from './host-rate-limiter.js';
import { RedisKeys } from './redis-keys.js';

// The per-host politeness scripts on a real Redis, with explicit clocks (`now` arguments).

const db = redisPerFile();

const ADAPTIVE: HostPolitenessOptions = { maxInFlight: 2, targetConcurrency: 4, minDelayMs: 0, maxDelayMs: 60_000 };
const NOW = 1_000_000;

function setup(opts: Partial<HostPolitenessOptions> = {}) {
  const keys = new RedisKeys(`t${randomUUID().slice(0, 8)}`);
  return { keys, limiter: new HostRateLimiter(db.redis, keys, { ...ADAPTIVE, ...opts }) };
}

describe('HostRateLimiter, fixed mode', () => {
  it('spaces request starts of one host by the interval, rounded up to whole ms (fractional rates)', async () => {
    const { limiter } = setup({ ratePerSec: 3, maxInFlight: 0 });
    const lease = { now: NOW, leaseMs: 1000 };
    expect(await limiter.acquire('a.example', 'p1', lease)).toEqual({ kind: 'go' });
    expect(await limiter.acquire('A.example', 'p2', lease)).toEqual({ kind: 'wait', until: NOW + 334, reserved: true });
    expect(await limiter.acquire('a.example', 'p3', lease)).toEqual({ kind: 'wait', until: NOW + 668, reserved: true });
    expect(await limiter.acquire('b.example', 'p4', lease)).toEqual({ kind: 'go' });
    // Back at its reserved slot: goes.
    expect(await limiter.acquire('a.example', 'p2', { ...lease, now: NOW + 334, reserved: true })).toEqual({ kind: 'go' });
  });

  it('0 turns every per-host limit off', async () => {
    const { limiter } = setup({ ratePerSec: 0, maxInFlight: 1 });
    expect(limiter.enabled).toBe(false);
    for (const id of ['p1', 'p2', 'p3']) expect(await limiter.acquire('a.example', id, { now: NOW, leaseMs: 1000 })).toEqual({ kind: 'go' });
  });
});

describe('HostRateLimiter, adaptive mode', () => {
  it('bounds requests in flight per host; a completion frees a lease, and so does expiry (a dead worker)', async () => {
    const { limiter } = setup();
    const at = (now: number) => ({ now, leaseMs: 5_000 });
    expect(await limiter.acquire('h.example', 'p1', at(NOW))).toEqual({ kind: 'go' });
    expect(await limiter.acquire('h.example', 'p2', at(NOW))).toEqual({ kind: 'go' });
    const full = await limiter.acquire('h.example', 'p3', at(NOW));
    expect(full).toMatchObject({ kind: 'wait', reserved: false });
    await limiter.complete('h.example', 'p1', { statusCode: 200, latencyMs: 0 }, NOW + 1);
    expect(await limiter.acquire('h.example', 'p3', at(NOW + 1))).toEqual({ kind: 'go' });
    // p2 and p3 hold the host; p2's worker dies: its lease expires.
    expect(await limiter.acquire('h.example', 'p4', at(NOW + 2))).toMatchObject({ kind: 'wait' });
    expect(await limiter.acquire('h.example', 'p4', at(NOW + 5_001))).toEqual({ kind: 'go' });
  });

  it('the delay follows latency / target concurrency, as nextHostDelay computes it', async () => {
    const { limiter, keys } = setup({ maxInFlight: 0 });
    expect(await limiter.acquire('l.example', 'p1', { now: NOW, leaseMs: 1000 })).toEqual({ kind: 'go' });
    await limiter.complete('l.example', 'p1', { statusCode: 200, latencyMs: 400 }, NOW + 400);
    const d = nextHostDelay(0, { statusCode: 200, latencyMs: 400 }, ADAPTIVE);
    expect(Number(await db.redis.hget(keys.hostState('l.example'), 'd'))).toBe(d);
    // A burst of `targetConcurrency` starts goes at once; the next waits one delay.
    for (const id of ['p2', 'p3', 'p4', 'p5']) expect(await limiter.acquire('l.example', id, { now: NOW + 400, leaseMs: 1000 })).toEqual({ kind: 'go' });
    expect(await limiter.acquire('l.example', 'p6', { now: NOW + 400, leaseMs: 1000 })).toEqual({ kind: 'wait', until: NOW + 400 + d, reserved: true });
    // A refusal doubles the delay, and no burst follows it.
    expect(await limiter.complete('l.example', 'p2', { statusCode: 429 }, NOW + 500)).toBe(NOW + 500 + nextHostDelay(d, { statusCode: 429 }, ADAPTIVE));
    expect(Number(await db.redis.hget(keys.hostState('l.example'), 'd'))).toBe(nextHostDelay(d, { statusCode: 429 }, ADAPTIVE));
  });

  it('Retry-After on a 429 holds the host, reserved slots included', async () => {
    const { limiter } = setup({ maxInFlight: 0 });
    expect(await limiter.acquire('r.example', 'p1', { now: NOW, leaseMs: 1000 })).toEqual({ kind: 'go' });
    const nextFree = await limiter.complete('r.example', 'p1', { statusCode: 429, latencyMs: 5, retryAfterMs: 30_000 }, NOW + 10);
    expect(nextFree).toBe(NOW + 10 + 30_000);
    expect(await limiter.acquire('r.example', 'p2', { now: NOW + 20, leaseMs: 1000 })).toEqual({ kind: 'wait', until: NOW + 30_010, reserved: true });
    expect(await limiter.acquire('r.example', 'p3', { now: NOW + 20, leaseMs: 1000, reserved: true })).toEqual({ kind: 'wait', until: NOW + 30_010, reserved: false });
    expect(await limiter.acquire('r.example', 'p3', { now: NOW + 30_010, leaseMs: 1000, reserved: true })).toEqual({ kind: 'go' });
    // A Retry-After on a 200 means nothing.
    expect(await limiter.complete('r.example', 'p3', { statusCode: 200, latencyMs: 5, retryAfterMs: 99_000 }, NOW + 30_020)).toBeLessThan(NOW + 99_000);
  });

  it('robots.txt Crawl-delay is a floor of the delay', async () => {
    const { limiter } = setup({ maxInFlight: 0 });
    await limiter.setCrawlDelay('c.example', 2_000);
    expect(await limiter.acquire('c.example', 'p1', { now: NOW, leaseMs: 1000 })).toEqual({ kind: 'go' });
    await limiter.complete('c.example', 'p1', { statusCode: 200, latencyMs: 1 }, NOW + 1);
    expect(await limiter.acquire('c.example', 'p2', { now: NOW + 1, leaseMs: 1000 })).toEqual({ kind: 'wait', until: NOW + 2_000, reserved: true });
    expect(await limiter.acquire('c.example', 'p3', { now: NOW + 1, leaseMs: 1000 })).toEqual({ kind: 'wait', until: NOW + 4_000, reserved: true });
  });
});
