import { describe, expect, it } from '@jest/globals';
import { BACKOFF_FLOOR_MS, nextHostDelay } from './host-rate-limiter.js';

const opts = { targetConcurrency: 4, minDelayMs: 0, maxDelayMs: 10_000 };

describe('nextHostDelay (adaptive politeness, after AutoThrottle)', () => {
  it('rises at once to latency / target concurrency', () => {
    expect(nextHostDelay(0, { statusCode: 200, latencyMs: 400 }, opts)).toBe(100);
  });

  it('falls by halves towards the target when the host gets faster', () => {
    expect(nextHostDelay(1000, { statusCode: 200, latencyMs: 400 }, opts)).toBe(550);
    let d = 1000;
    for (let i = 0; i < 30; i++) d = nextHostDelay(d, { statusCode: 200, latencyMs: 40 }, opts);
    expect(d).toBeCloseTo(10, 3);
  });

  it('doubles on 429 and 503, from a floor', () => {
    expect(nextHostDelay(0, { statusCode: 429 }, opts)).toBe(BACKOFF_FLOOR_MS);
    expect(nextHostDelay(800, { statusCode: 503, latencyMs: 1 }, opts)).toBe(1600);
    expect(nextHostDelay(8000, { statusCode: 429 }, opts)).toBe(10_000);
  });

  it('a fast error page never lowers the delay; a slow one raises it', () => {
    expect(nextHostDelay(500, { statusCode: 404, latencyMs: 4 }, opts)).toBe(500);
    expect(nextHostDelay(10, { statusCode: 500, latencyMs: 400 }, opts)).toBe(100);
  });

  it('a request without a response leaves it; bounds apply', () => {
    expect(nextHostDelay(123, { statusCode: 0 }, opts)).toBe(123);
    expect(nextHostDelay(0, { statusCode: 200, latencyMs: 1 }, { ...opts, minDelayMs: 50 })).toBe(50);
    expect(nextHostDelay(0, { statusCode: 200, latencyMs: 1e9 }, opts)).toBe(10_000);
  });
});
