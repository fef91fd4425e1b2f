import type { Redis } from 'ioredis';
import type { RedisKeys } from './redis-keys.js';
import { defineScript } from './redis-script.js';
import { parseTeam, type Team } from './team-store.js';

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
const WINDOW_FN = `
local function window(curKey, prevKey, limit, elapsed, windowMs)
  local cur = tonumber(redis.call('GET', curKey) or '0')
  local prev = tonumber(redis.call('GET', prevKey) or '0')
  local estimate = prev * (1 - elapsed) + cur
  if estimate + 1 > limit then
    return {0, math.floor(estimate), prev, cur}
  end
  redis.call('INCR', curKey)
  redis.call('PEXPIRE', curKey, windowMs * 2)
  return {1, math.floor(estimate + 1), prev, cur}
end
`;

const SLIDING_WINDOW_LUA = `${WINDOW_FN}
return window(KEYS[1], KEYS[2], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]))
`;

const slidingWindowScript = defineScript({
  name: 'trawlRateWindow', numberOfKeys: 2, lua: SLIDING_WINDOW_LUA,
  decode: (reply) => {
    const [allowed, count, prev, cur] = (reply as number[]).map(Number);
    return { allowed: allowed === 1, count: count ?? 0, prev: prev ?? 0, cur: cur ?? 0 };
  },
});

/*
 * The team record and its request counted in one call (same hash tag: one slot on Redis Cluster): the
 * same sliding window, with the limit read from the record. A team that does not exist (no name)
 * or is disabled is returned without counting anything (the caller refuses the request).
 * KEYS[1] team hash, KEYS[2] current window counter, KEYS[3] previous window counter
 * ARGV[1] multiplier of the team's ratePerMinute, ARGV[2] elapsed fraction of the window, ARGV[3] window ms
 * Returns {team fields (HGETALL)} alone when nothing was counted, else
 * {fields, allowed (1|0), estimated count after this request, previous count, current count}
 */
const TEAM_WINDOW_LUA = `${WINDOW_FN}
local t = redis.call('HGETALL', KEYS[1])
local name, rate, disabled
for i = 1, #t, 2 do
  local f = t[i]
  if f == 'name' then name = t[i + 1] elseif f == 'ratePerMinute' then rate = t[i + 1] elseif f == 'disabled' then disabled = t[i + 1] end
end
if name == nil or name == '' or disabled == '1' then return {t} end
local w = window(KEYS[2], KEYS[3], (tonumber(rate) or 0) * tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]))
return {t, w[1], w[2], w[3], w[4]}
`;

const teamWindowScript = defineScript({
  name: 'trawlTeamRateWindow', numberOfKeys: 3, lua: TEAM_WINDOW_LUA,
  decode: (reply) => {
    const [flat, allowed, count, prev, cur] = reply as [string[], ...number[]];
    const fields: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
    return { fields, counted: allowed !== undefined, allowed: Number(allowed) === 1, count: Number(count ?? 0), prev: Number(prev ?? 0), cur: Number(cur ?? 0) };
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
    const { allowed, count, prev, cur } = await slidingWindowScript.run(
      this.redis,
      [this.keys.rate(teamId, bucket, window), this.keys.rate(teamId, bucket, window - 1)],
      [String(limitPerMinute), String(elapsed), String(this.windowMs)],
    );
    return this.decision(limitPerMinute, allowed, count, prev, cur, elapsed);
  }

  /**
   * Reads the team and counts one request of it in `bucket` against its `ratePerMinute * multiplier`,
   * in one round trip ({@link consume} after {@link TeamStore.get}, atomically). A team that does not
   * exist is null; a disabled team is returned with no decision: neither is counted.
   */
  async consumeWithTeam(teamId: string, bucket: string, multiplier: number): Promise<{ team: Team | null; decision: RateDecision | null }> {
    const now = this.now();
    const window = Math.floor(now / this.windowMs);
    const elapsed = (now % this.windowMs) / this.windowMs;
    const r = await teamWindowScript.run(
      this.redis,
      [this.keys.team(teamId), this.keys.rate(teamId, bucket, window), this.keys.rate(teamId, bucket, window - 1)],
      [String(multiplier), String(elapsed), String(this.windowMs)],
    );
    const team = parseTeam(teamId, r.fields);
    if (!team || !r.counted) return { team, decision: null };
    return { team, decision: this.decision(team.ratePerMinute * multiplier, r.allowed, r.count, r.prev, r.cur, elapsed) };
  }

  private decision(limit: number, allowed: boolean, count: number, prev: number, cur: number, elapsed: number): RateDecision {
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - count),
      retryAfterSec: allowed ? 0 : Math.max(1, Math.ceil(waitUntilAllowed(prev, cur, limit, elapsed) * this.windowMs / 1000)),
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
