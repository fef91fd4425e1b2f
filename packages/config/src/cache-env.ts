import { z } from 'zod';
import { envBoolean, envInt, envOptionalString } from './env-fields.js';

/**
 * Page cache environment, read by the API (which options it can serve: `lockdown`, `minAge`) and by
 * the workers (which read and fill the cache around every fetch).
 */
export const cacheEnv = {
  /** Keep scraped pages and serve them again within `maxAge`; false also refuses `lockdown` and `minAge`. Default true. */
  TRAWL_CACHE_ENABLED: envBoolean(true),
  /**
   * A separate Redis for the cache (`redis://`), which may evict (set `maxmemory-policy allkeys-lru`
   * on it); the queue Redis never may. Default none: the cache shares `REDIS_URL` (or the embedded
   * Redis), bounded by `TRAWL_CACHE_MAX_BYTES`.
   */
  CACHE_REDIS_URL: envOptionalString(),
  /**
   * Compressed bytes the cache keeps; past it the least recently used pages are dropped. 0 leaves
   * the bound to the cache Redis' own `maxmemory` (only sensible with `CACHE_REDIS_URL`). Default 512 MiB.
   */
  TRAWL_CACHE_MAX_BYTES: envInt(512 * 1024 * 1024, { min: 0 }),
  /** Largest compressed page stored; bigger pages are served but not kept. Default 8 MiB. */
  TRAWL_CACHE_MAX_ENTRY_BYTES: envInt(8 * 1024 * 1024, { min: 1024 }),
  /**
   * Longest wait for the cache Redis to answer one read or write, ms. Past it the read is a miss (the
   * page is fetched) or the write is dropped, and the cache is skipped at once until that Redis
   * answers again: a cache Redis that is down or frozen costs fetches, never scrapes. 0: wait as long
   * as it takes (a call made while the connection is lost and being re-established still skips the
   * cache). Default 1000.
   */
  TRAWL_CACHE_TIMEOUT_MS: envInt(1000, { min: 0, max: 600_000 }),
  /** Seconds a cached page lives at most; 0 keeps it until evicted (lockdown accepts pages up to two years old). Default 0. */
  TRAWL_CACHE_TTL_SEC: envInt(0, { min: 0 }),
  /**
   * One cache for every team (the same public page is fetched once for all). Opt-in: a shared cache
   * lets one team learn which URLs another scraped and read their content (`lockdown`, `minAge`,
   * `maxAge` hits). Default false: pages are keyed by team too, so no team sees another's pages.
   */
  TRAWL_CACHE_SHARED: envBoolean(false),
  /** The cache Redis' key prefix. Default: `TRAWL_REDIS_PREFIX`. */
  TRAWL_CACHE_PREFIX: z.string().regex(/^[A-Za-z0-9_-]+$/).optional(),
};
