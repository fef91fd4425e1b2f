import type { RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import { TrawlError } from '@trawl/api-schema';

/**
 * How long a lost Redis connection may be reconnecting before requests fail at once, ms. A restart
 * or failover shorter than this stays invisible (commands wait, bounded by the client's retries).
 */
export const REDIS_DOWN_GRACE_MS = 2000;

/**
 * Once the Redis connection has been down (reconnecting) for `graceMs`, every request that needs it
 * fails at once with 503 SERVICE_UNAVAILABLE (and Retry-After) instead of queueing behind a Redis
 * that may not return.
 */
export function redisAvailable(redis: Redis, opts: { graceMs?: number } = {}): RequestHandler {
  const graceMs = opts.graceMs ?? REDIS_DOWN_GRACE_MS;
  let downSince: number | undefined;
  const down = () => {
    downSince ??= Date.now();
  };
  redis.on('close', down);
  redis.on('reconnecting', down);
  redis.on('ready', () => {
    downSince = undefined;
  });
  return (_req, _res, next) => {
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
