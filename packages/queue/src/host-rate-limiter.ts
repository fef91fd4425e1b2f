import type { Redis } from 'ioredis';
import { defineScript } from './redis-script.js';
import type { RedisKeys } from './redis-keys.js';

/**
 * Politeness per target host, shared by every worker (state in Redis, one script call per request
 * start and one per request end). Two modes:
 *
 * - adaptive (default), after Scrapy's AutoThrottle: the delay between two request starts to a host
 *   tends to `latency / targetConcurrency` (it rises at once, falls by halves), doubles on 429/503,
 *   never goes below `minDelayMs` nor above `maxDelayMs`; robots.txt `Crawl-delay` is a floor;
 * - fixed: `ratePerSec` requests per second (`TRAWL_CRAWL_HOST_RATE_PER_SEC` set; 0 turns every
 *   per-host limit off).
 *
 * In both modes a `Retry-After` on 429/503 holds the host that long, and at most `maxInFlight`
 * requests run against a host at once: each holds a lease that ends when its request does, or
 * expires (`leaseMs`) when its worker died. A request whose turn is in the future is delayed by the
 * caller (BullMQ delayed job), so politeness never holds a worker idle.
 */
export interface HostPolitenessOptions {
  /** Fixed mode: requests per second per host (0 = no per-host limit at all); undefined = adaptive. */
  ratePerSec?: number | undefined;
  /** Requests in flight per host; 0 = no cap. */
  maxInFlight: number;
  /** Adaptive mode: the requests the delay aims to keep in flight per host. */
  targetConcurrency: number;
  /** Adaptive mode: floor of the delay between two request starts, ms. */
  minDelayMs: number;
  /** Cap of the adaptive delay and of `Crawl-delay`, ms. */
  maxDelayMs: number;
}

/** What a request start got: go (holding `lease`), or come back at `until` (`reserved`: a slot is held for it then). */
export type HostTicket = { kind: 'go' } | { kind: 'wait'; until: number; reserved: boolean };

/** A finished request as the controller sees it. */
export interface HostResponse {
  /** Time to the response's headers, ms; undefined when the request failed without a response. */
  latencyMs?: number | undefined;
  /** HTTP status; 0 when there was no response. */
  statusCode: number;
  /** `Retry-After` of a 429/503, ms. */
  retryAfterMs?: number | undefined;
}

/** First delay after a 429/503 when the delay was below it, ms. */
export const BACKOFF_FLOOR_MS = 250;
/** Longest `Retry-After` honoured, ms. */
export const MAX_RETRY_AFTER_MS = 10 * 60_000;
/** Idle host state is dropped after this long, ms (a crawl's kickoff sets Crawl-delay again). */
const STATE_TTL_MS = 30 * 60_000;
/** A turn this close to now is now, ms. */
const SLOT_TOLERANCE_MS = 5;

/** Whether a status says "too much, slow down". */
export function isHostBusy(statusCode: number): boolean {
  return statusCode === 429 || statusCode === 503;
}

/**
 * The adaptive delay after one response (the maths of the COMPLETE script, which mirrors it): a
 * 429/503 doubles it (at least {@link BACKOFF_FLOOR_MS}); otherwise it moves halfway to
 * `latency / targetConcurrency` and never stays below that target; a non-2xx answer never lowers it
 * (error pages are small and fast); no response leaves it. Clamped to [minDelayMs, maxDelayMs].
 */
export function nextHostDelay(prevMs: number, res: HostResponse, opts: Pick<HostPolitenessOptions, 'targetConcurrency' | 'minDelayMs' | 'maxDelayMs'>): number {
  let next = prevMs;
  if (isHostBusy(res.statusCode)) next = Math.max(prevMs * 2, BACKOFF_FLOOR_MS);
  else if (res.latencyMs !== undefined) {
    const target = res.latencyMs / opts.targetConcurrency;
    next = Math.max(target, (prevMs + target) / 2);
    if ((res.statusCode < 200 || res.statusCode >= 300) && next < prevMs) next = prevMs;
  }
  return Math.min(opts.maxDelayMs, Math.max(opts.minDelayMs, next));
}

/**
 * ACQUIRE: a request start.
 * KEYS[1] next free start time of the host (string ms), KEYS[2] state hash (d: adaptive delay ms,
 * l: latency EWMA ms, cd: Crawl-delay ms, until: held until ms, Retry-After), KEYS[3] leases zset
 * (lease id -> expiry ms).
 * ARGV: now, lease id, lease ms, fixed interval ms (-1 adaptive), min delay, max delay, max in flight
 * (0 no cap), reserved (1: the caller comes back to a slot reserved earlier), burst.
 * The schedule is a GCRA: KEYS[1] is the theoretical arrival time; a start may run up to
 * `burst - 1` delays ahead of it (adaptive: burst = target concurrency, so the delay only binds when
 * more than that many requests would be in flight; fixed: burst 1, strict spacing).
 * Returns {0} go (lease taken), {1, t} slot reserved at t, {2, t} come back at t (held or full).
 */
const ACQUIRE_LUA = `
local now = tonumber(ARGV[1])
local fixed = tonumber(ARGV[4])
local minD = tonumber(ARGV[5])
local maxD = tonumber(ARGV[6])
local cap = tonumber(ARGV[7])
local st = redis.call('HMGET', KEYS[2], 'd', 'l', 'cd', 'until')
local delay = fixed
if fixed < 0 then delay = math.min(maxD, math.max(minD, tonumber(st[1] or minD))) end
local burst = tonumber(ARGV[9])
local cd = tonumber(st[3] or '0')
if cd > delay then
  -- robots.txt Crawl-delay: strict spacing, no burst.
  delay = math.min(cd, math.max(maxD, delay))
  burst = 1
end
local held = tonumber(st[4] or '0')
local tat = now
if ARGV[8] ~= '1' then
  tat = math.max(now, tonumber(redis.call('GET', KEYS[1]) or '0'), held)
  local slot = math.max(held, tat - (burst - 1) * delay)
  if slot > now + ${SLOT_TOLERANCE_MS} then
    redis.call('SET', KEYS[1], tostring(tat + delay), 'PX', math.ceil(tat + delay - now + 60000))
    return {1, tostring(slot)}
  end
elseif held > now then
  return {2, tostring(held)}
end
if cap > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
  if redis.call('ZCARD', KEYS[3]) >= cap then
    return {2, tostring(now + math.max(10, delay, tonumber(st[2] or '0') / cap))}
  end
  redis.call('ZADD', KEYS[3], now + tonumber(ARGV[3]), ARGV[2])
  redis.call('PEXPIRE', KEYS[3], tonumber(ARGV[3]) + 60000)
end
if ARGV[8] ~= '1' and delay > 0 then
  redis.call('SET', KEYS[1], tostring(tat + delay), 'PX', math.ceil(tat + delay - now + 60000))
end
return {0}
`;

/**
 * COMPLETE: a request end (keys as ACQUIRE).
 * ARGV: now, lease id, latency ms (-1: no response), status (0: none), Retry-After ms (-1: none),
 * adaptive (1/0), min delay, max delay, target concurrency, burst.
 * Returns the host's next free start time (ms, at least now).
 */
const COMPLETE_LUA = `
local now = tonumber(ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[2])
local latency = tonumber(ARGV[3])
local status = tonumber(ARGV[4])
local minD = tonumber(ARGV[7])
local maxD = tonumber(ARGV[8])
local st = redis.call('HMGET', KEYS[2], 'd', 'l', 'until')
local busy = status == 429 or status == 503
local fields = {}
local nd = 0
if ARGV[6] == '1' then
  local d = tonumber(st[1] or minD)
  nd = d
  if busy then nd = math.max(d * 2, ${BACKOFF_FLOOR_MS})
  elseif latency >= 0 then
    local target = latency / tonumber(ARGV[9])
    nd = math.max(target, (d + target) / 2)
    if (status < 200 or status >= 300) and nd < d then nd = d end
  end
  nd = math.min(maxD, math.max(minD, nd))
  table.insert(fields, 'd')
  table.insert(fields, tostring(nd))
end
if latency >= 0 then
  local l = tonumber(st[2] or tostring(latency))
  table.insert(fields, 'l')
  table.insert(fields, tostring(0.8 * l + 0.2 * latency))
end
local nextFree = tonumber(redis.call('GET', KEYS[1]) or '0')
if busy and ARGV[6] == '1' then
  -- No burst right after a refusal: the next start waits one (backed-off) delay.
  local pushed = now + tonumber(ARGV[10]) * nd
  if pushed > nextFree then
    nextFree = pushed
    redis.call('SET', KEYS[1], tostring(pushed), 'PX', math.ceil(pushed - now + 60000))
  end
end
local held = tonumber(st[3] or '0')
local ra = tonumber(ARGV[5])
if busy and ra >= 0 then
  held = math.max(held, now + math.min(ra, ${MAX_RETRY_AFTER_MS}))
  table.insert(fields, 'until')
  table.insert(fields, tostring(held))
end
if #fields > 0 then
  redis.call('HSET', KEYS[2], unpack(fields))
  redis.call('PEXPIRE', KEYS[2], math.ceil(math.max(${STATE_TTL_MS}, held - now + 60000)))
end
return tostring(math.max(now, held, nextFree - (tonumber(ARGV[10]) - 1) * nd))
`;

const acquireScript = defineScript({
  name: 'trawlHostAcquire', numberOfKeys: 3, lua: ACQUIRE_LUA,
  decode: (reply): HostTicket => {
    const [kind, at] = reply as [number, string?];
    if (Number(kind) === 0) return { kind: 'go' };
    return { kind: 'wait', until: Math.ceil(Number(at)), reserved: Number(kind) === 1 };
  },
});

const completeScript = defineScript({
  name: 'trawlHostComplete', numberOfKeys: 3, lua: COMPLETE_LUA,
  decode: (reply) => Math.ceil(Number(reply)),
});

/** Politeness per target host shared by every worker; see {@link HostPolitenessOptions}. */
export class HostRateLimiter {
  private readonly fixedIntervalMs: number;
  /** Starts that may go at once ahead of the schedule: fixed mode 1, adaptive the target concurrency. */
  private readonly burst: number;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly opts: HostPolitenessOptions,
  ) {
    // Whole milliseconds: Redis `PX` takes integers only. -1: adaptive.
    this.fixedIntervalMs = opts.ratePerSec === undefined ? -1 : opts.ratePerSec > 0 ? Math.max(1, Math.ceil(1000 / opts.ratePerSec)) : 0;
    this.burst = this.fixedIntervalMs < 0 ? Math.max(1, Math.ceil(opts.targetConcurrency)) : 1;
  }

  /** False when `TRAWL_CRAWL_HOST_RATE_PER_SEC=0`: no per-host limit, no Redis call. */
  get enabled(): boolean {
    return this.fixedIntervalMs !== 0;
  }

  /**
   * A request to `host` wants to start. `go`: it holds lease `leaseId` (end it with {@link complete});
   * `wait`: come back at `until`, with `reserved` true when a slot is held for it then (pass
   * `reserved` on that return).
   */
  async acquire(host: string, leaseId: string, opts: { now?: number; reserved?: boolean; leaseMs: number }): Promise<HostTicket> {
    if (!this.enabled) return { kind: 'go' };
    const now = opts.now ?? Date.now();
    return acquireScript.run(this.redis, this.hostKeys(host), [
      now, leaseId, Math.max(1, Math.ceil(opts.leaseMs)), this.fixedIntervalMs, this.opts.minDelayMs, this.opts.maxDelayMs,
      this.opts.maxInFlight, opts.reserved ? 1 : 0, this.burst,
    ]);
  }

  /** The request holding `leaseId` ended: frees its lease, adapts the delay. Returns the host's next free start time. */
  async complete(host: string, leaseId: string, res: HostResponse, now = Date.now()): Promise<number> {
    if (!this.enabled) return now;
    return completeScript.run(this.redis, this.hostKeys(host), [
      now, leaseId, res.latencyMs === undefined ? -1 : Math.max(0, res.latencyMs), res.statusCode,
      res.retryAfterMs === undefined ? -1 : Math.max(0, res.retryAfterMs), this.fixedIntervalMs < 0 ? 1 : 0,
      this.opts.minDelayMs, this.opts.maxDelayMs, this.opts.targetConcurrency, this.burst,
    ]);
  }

  /** robots.txt `Crawl-delay` of `host` (ms): a floor of the delay between its request starts. */
  async setCrawlDelay(host: string, delayMs: number): Promise<void> {
    if (!this.enabled) return;
    const state = this.hostKeys(host)[1]!;
    await this.redis.multi().hset(state, 'cd', String(Math.max(0, delayMs))).pexpire(state, STATE_TTL_MS).exec();
  }

  private hostKeys(host: string): string[] {
    const h = host.toLowerCase();
    return [this.keys.hostRate(h), this.keys.hostState(h), this.keys.hostLeases(h)];
  }
}
