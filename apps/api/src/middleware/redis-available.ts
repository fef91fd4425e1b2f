import type { RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import { TrawlError } from '@trawl/api-schema';

/**
 * While the Redis connection is down (reconnecting), every request that needs it fails at once with
 * 503 SERVICE_UNAVAILABLE (and Retry-After) instead of queueing behind a Redis that may not return.
 */
export function redisAvailable(redis: Pick<Redis, 'status'>): RequestHandler {
  return (_req, _res, next) => {
    if (redis.status === 'ready') return next();
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
