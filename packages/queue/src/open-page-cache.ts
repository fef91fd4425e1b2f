import type { Redis } from 'ioredis';
import { PageCache } from './page-cache.js';
import { closeRedisClient, createRedisClient } from './redis-connection.js';

/**
 * The settings the page cache is built from: `cacheEnv` of @trawl/config and the queue's prefix.
 * Every one is required, so the API and the worker build the same cache from the same settings.
 */
export interface PageCacheConfig {
  TRAWL_CACHE_ENABLED: boolean;
  CACHE_REDIS_URL?: string | undefined;
  TRAWL_CACHE_PREFIX?: string | undefined;
  TRAWL_REDIS_PREFIX: string;
  TRAWL_CACHE_MAX_BYTES: number;
  TRAWL_CACHE_MAX_ENTRY_BYTES: number;
  TRAWL_CACHE_TTL_SEC: number;
  TRAWL_CACHE_TIMEOUT_MS: number;
}

/** Options of {@link openPageCache}. */
export interface OpenPageCacheOptions {
  /** CLIENT LIST name of the cache's own connection (`CACHE_REDIS_URL`). */
  connectionName: string;
  /** Connection errors of the cache's own connection (throttle it: while Redis is down each reconnection fails). */
  onRedisError?: (err: unknown) => void;
  /** Reconnection attempts a command of the cache's own connection waits through. Default: no limit. */
  maxRetriesPerRequest?: number;
  /** Where the cache Redis going silent, and answering again, is logged (a pino logger fits). */
  log: { warn(fields: object, message: string): void; info(fields: object, message: string): void };
}

/** The page cache of a process and the Redis it lives in. */
export interface OpenedPageCache {
  cache: PageCache;
  /** The cache's Redis: its own (`CACHE_REDIS_URL`) or the queue's. */
  redis: Redis;
  /** Whether the cache has a Redis of its own. */
  separate: boolean;
  /** Closes the cache's own Redis connection (never the queue's). */
  close(): Promise<void>;
}

/**
 * The page cache as `config` sets it (undefined when `TRAWL_CACHE_ENABLED` is false): in its own
 * Redis with `CACHE_REDIS_URL`, else in the queue's (`queueRedis`). A cache Redis that is down or
 * frozen is logged once, when it goes silent and when it answers again; meanwhile the cache is
 * skipped (see PageCache).
 */
export function openPageCache(config: PageCacheConfig, queueRedis: Redis, opts: OpenPageCacheOptions): OpenedPageCache | undefined {
  if (!config.TRAWL_CACHE_ENABLED) return undefined;
  const separate = config.CACHE_REDIS_URL !== undefined && config.CACHE_REDIS_URL !== '';
  const redis = separate
    ? createRedisClient({
      url: config.CACHE_REDIS_URL!, connectionName: opts.connectionName,
      ...(opts.onRedisError ? { onError: opts.onRedisError } : {}),
      ...(opts.maxRetriesPerRequest !== undefined ? { maxRetriesPerRequest: opts.maxRetriesPerRequest } : {}),
    })
    : queueRedis;
  const cache = new PageCache(redis, {
    prefix: config.TRAWL_CACHE_PREFIX ?? config.TRAWL_REDIS_PREFIX, maxBytes: config.TRAWL_CACHE_MAX_BYTES,
    maxEntryBytes: config.TRAWL_CACHE_MAX_ENTRY_BYTES, ttlSec: config.TRAWL_CACHE_TTL_SEC, timeoutMs: config.TRAWL_CACHE_TIMEOUT_MS,
    onAvailability: ({ available, reason }) => {
      if (available) opts.log.info({ separate }, 'page cache Redis answers again; the cache is used again');
      else opts.log.warn({ reason, separate }, 'page cache Redis not answering; scrapes skip the cache until it does');
    },
  });
  return { cache, redis, separate, close: async () => (separate ? closeRedisClient(redis) : undefined) };
}
