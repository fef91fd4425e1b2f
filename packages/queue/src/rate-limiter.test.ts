import { describe, expect, it } from '@jest/globals';
import { waitUntilAllowed } from './rate-limiter.js';

/** The sliding estimate `t` windows after now (no new requests), plus the request being tried. */
function estimateAfter(prev: number, cur: number, elapsed: number, t: number): number {
  const at = elapsed + t;
  if (at < 1) return prev * (1 - at) + cur + 1;
  if (at < 2) return cur * (1 - (at - 1)) + 1;
  return 1;
}

describe('waitUntilAllowed', () => {
  it('is the first moment the sliding window has room again: allowed then, refused just before', () => {
    let seed = 7;
    const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let i = 0; i < 2000; i++) {
      const limit = 1 + Math.floor(rand() * 100);
      const prev = Math.floor(rand() * limit * 1.5);
      const cur = Math.floor(rand() * (limit + 1));
      const elapsed = rand();
      if (prev * (1 - elapsed) + cur + 1 <= limit) continue; // allowed now: not a refusal
      const w = waitUntilAllowed(prev, cur, limit, elapsed);
      expect(estimateAfter(prev, cur, elapsed, w)).toBeLessThanOrEqual(limit + 1e-9);
      if (w > 0.001) expect(estimateAfter(prev, cur, elapsed, w - 0.001)).toBeGreaterThan(limit);
    }
  });

  it('waits past the calendar minute when this minute alone used the limit', () => {
    // 60 requests in the first half of the minute, limit 60: the next fits once the fading count allows it.
    expect(waitUntilAllowed(0, 60, 60, 0.5)).toBeCloseTo(0.5 + 1 / 60, 6);
  });
});
