import type { RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import { TrawlError } from '@trawl/api-schema';
import { isRedisCluster, whenUnanswered } from '@trawl/queue';

/**
 * How long a lost Redis connection may be reconnecting before requests fail at once, ms. A restart
 * or failover shorter than this stays invisible (commands wait, bounded by the client's retries).
 */
export const REDIS_DOWN_GRACE_MS = 2000;

/**
 * How long a connected Redis may leave a PING unanswered before requests fail at once, ms (a frozen
 * or partitioned server: the connection stays open and nothing comes back). 0 turns it off.
 */
export const REDIS_STALL_MS = 5000;

/** Least time between two PINGs of {@link redisAvailable}, ms. */
const PING_EVERY_MS = 1000;

/** Options of {@link redisAvailable}. */
export interface RedisAvailableOptions {
  /** Reconnecting time after which requests fail at once, ms. Default {@link REDIS_DOWN_GRACE_MS}. */
  graceMs?: number;
  /** Unanswered PING time after which requests fail at once, ms; 0: never. Default {@link REDIS_STALL_MS}. */
  stallMs?: number;
  /** Told when Redis stops answering a connected client, and when it answers again. */
  onStall?: (stalled: boolean) => void;
}

/**
 * Once the Redis connection has been down (reconnecting) for `graceMs`, or has left a PING
 * unanswered for `stallMs` while connected, every request that needs it fails at once with 503
 * SERVICE_UNAVAILABLE (and Retry-After) instead of queueing behind a Redis that may not return: a
 * gateway taking heavy traffic would otherwise hold every request (its socket, its body, its queued
 * commands) for as long as the server is frozen (which TCP never notices) or the network is
 * partitioned (which TCP notices after many minutes).
 *
 * The PING rides on traffic: a request sends one when none is out and the last was answered over a
 * second ago, so an idle gateway sends nothing, and the first requests after a freeze wait up to
 * `stallMs` plus a second before it is noticed. The wait starts once the PING has been written, and
 * a ping counts as unanswered only when it still is after a poll phase that followed the wait: a
 * gateway whose own loop was blocked past `stallMs` reads an answer that came meanwhile first, and
 * does not turn requests away for it. A Redis Cluster client is not watched for stalls: its PING
 * goes to one node of its choosing.
 */
export function redisAvailable(redis: Redis, opts: RedisAvailableOptions = {}): RequestHandler {
  const graceMs = opts.graceMs ?? REDIS_DOWN_GRACE_MS;
  // A Redis Cluster client's PING goes to one node of its choice: one frozen shard would turn every
  // request away, those of healthy shards too. Not watched: its stalls wait, as before.
  const stallMs = isRedisCluster(redis) ? 0 : opts.stallMs ?? REDIS_STALL_MS;
  let downSince: number | undefined;
  /** The PING out, if any, and what tells its wait that it was answered. */
  let ping: { answered?: () => void } | undefined;
  let lastAnsweredAt = 0;
  let stalled = false;
  const setStalled = (on: boolean): void => {
    if (stalled === on) return;
    stalled = on;
    opts.onStall?.(on);
  };
  const answered = (): void => {
    if (!ping) return;
    ping.answered?.();
    ping = undefined;
    lastAnsweredAt = Date.now();
    setStalled(false);
  };
  const sendPing = (): void => {
    const sent: { answered?: () => void } = {};
    ping = sent;
    // A rejection (the connection closed under it) ends the ping as well: `downSince` takes over.
    const settle = (): void => {
      if (ping === sent) answered();
    };
    void redis.ping().then(settle, settle);
    // Counted from when the PING left, judged after a poll phase (@trawl/queue's whenUnanswered).
    sent.answered = whenUnanswered(stallMs, () => {
      if (ping === sent && redis.status === 'ready') setStalled(true);
    });
  };
  const down = () => {
    downSince ??= Date.now();
  };
  redis.on('close', down);
  redis.on('reconnecting', down);
  redis.on('ready', () => {
    downSince = undefined;
    answered();
  });
  return (_req, _res, next) => {
    if (stallMs > 0 && redis.status === 'ready' && !ping && Date.now() - lastAnsweredAt >= PING_EVERY_MS) sendPing();
    if (stalled) {
      next(new TrawlError('SERVICE_UNAVAILABLE', 'Redis is not answering; try again shortly', { retryable: true }));
      return;
    }
    if (redis.status === 'ready' || downSince === undefined || Date.now() - downSince < graceMs) return next();
    next(new TrawlError('SERVICE_UNAVAILABLE', 'Redis is unreachable; try again shortly', { retryable: true }));
  };
}

/**
 * ioredis errors of a lost connection (a command that gave up reconnecting, or sent on a closed
 * connection): the request failed because Redis is down, not because of a bug.
 */
export function isRedisUnavailableError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  return err.name === 'MaxRetriesPerRequestError' || /^Connection is closed|^Stream isn't writeable/.test(err.message);
}
