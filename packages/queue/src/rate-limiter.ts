import type { Redis } from 'ioredis';
import type { RedisKeys } from './redis-keys.js';
import { defineScript } from './redis-script.js';

/** Result of counting one request against a limit. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until a request would be allowed again (0 when allowed). */
  retryAfterSec: number;
}

/*
 * Sliding-window counter: the previous fixed window's count, weighted by how much of it still
 * overlaps the sliding minute, plus the current window's count. Atomic in one script so concurrent
 * API processes never both take the last slot.
 * KEYS[1] current window counter, KEYS[2] previous window counter
 * ARGV[1] limit, ARGV[2] elapsed fraction of the current window (0..1), ARGV[3] window ms
 * Returns {allowed (1|0), estimated count after this request, previous count, current count}
 */
const SLIDING_WINDOW_LUA = `
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
local prev = tonumber(redis.call('GET', KEYS[2]) or '0')
local limit = tonumber(ARGV[1])
local estimate = prev * (1 - tonumber(ARGV[2])) + cur
if estimate + 1 > limit then
  return {0, math.floor(estimate), prev, cur}
end
redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) * 2)
return {1, math.floor(estimate + 1)}
`;

const slidingWindowScript = defineScript({
  name: 'trawlRateWindow', numberOfKeys: 2, lua: SLIDING_WINDOW_LUA,
  decode: (reply) => {
    const [allowed, count, prev, cur] = (reply as number[]).map(Number);
    return { allowed: allowed === 1, count: count ?? 0, prev: prev ?? 0, cur: cur ?? 0 };
  },
});

/** Per-team request rate limits, shared by every API process through Redis. */
export class RateLimiter {
  private readonly windowMs = 60_000;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Counts one request of `teamId` in `bucket` against `limitPerMinute`.
   * @param bucket `api` for ordinary requests, `status` for job-status polling.
   */
  async consume(teamId: string, bucket: string, limitPerMinute: number): Promise<RateDecision> {
    const now = this.now();
    const window = Math.floor(now / this.windowMs);
    const elapsed = (now % this.windowMs) / this.windowMs;
    const { allowed: ok, count, prev, cur } = await slidingWindowScript.run(
      this.redis,
      [this.keys.rate(teamId, bucket, window), this.keys.rate(teamId, bucket, window - 1)],
      [String(limitPerMinute), String(elapsed), String(this.windowMs)],
    );
    return {
      allowed: ok,
      limit: limitPerMinute,
      remaining: Math.max(0, limitPerMinute - count),
      retryAfterSec: ok ? 0 : Math.max(1, Math.ceil(waitUntilAllowed(prev, cur, limitPerMinute, elapsed) * this.windowMs / 1000)),
    };
  }
}

/**
 * How long (in windows) until the sliding estimate `prev * (1 - elapsed) + cur` leaves room for one
 * more request, if nothing else arrives: later in this window as the previous one's weight fades, or
 * in the next, where this window's count becomes the fading one.
 */
export function waitUntilAllowed(prev: number, cur: number, limit: number, elapsed: number): number {
  const room = limit - 1 - cur;
  if (room >= 0) {
    if (prev <= 0) return 0;
    return Math.max(0, 1 - room / prev - elapsed);
  }
  // This window alone is full: wait for the next one, then for this window's weight to fade enough.
  const next = cur <= 0 ? 0 : Math.max(0, 1 - (limit - 1) / cur);
  return 1 - elapsed + next;
}
