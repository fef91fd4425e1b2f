import { Redis, type RedisOptions } from 'ioredis';

/** How to reach Redis: a URL, or Sentinel endpoints plus the master name. */
export interface RedisConnectionOptions {
  url?: string;
  /** `host:port` entries; when non-empty, Sentinel is used and `url` only supplies password/db/TLS. */
  sentinels?: string[];
  sentinelName?: string;
  /** Connection name shown in CLIENT LIST (role of the process). */
  connectionName?: string;
}

/** The shared Redis environment fields (`commonEnv` of @trawl/config) as connection options. */
export function redisConnectionFromEnv(env: { REDIS_URL?: string | undefined; REDIS_SENTINELS: string[]; REDIS_SENTINEL_NAME: string }): RedisConnectionOptions {
  return { url: env.REDIS_URL, sentinels: env.REDIS_SENTINELS, sentinelName: env.REDIS_SENTINEL_NAME };
}

/**
 * Creates an ioredis client. `maxRetriesPerRequest: null` because BullMQ's blocking connections
 * require it, and a command waiting through a Redis restart is what we want everywhere: callers
 * bound their waits with deadlines, not with retry counts.
 */
export function createRedisClient(opts: RedisConnectionOptions): Redis {
  const base: RedisOptions = {
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    connectionName: opts.connectionName,
    retryStrategy: (times) => Math.min(times * 100, 2000),
  };
  if (opts.sentinels && opts.sentinels.length > 0) {
    const fromUrl = opts.url ? new URL(opts.url) : undefined;
    return new Redis({
      ...base,
      sentinels: opts.sentinels.map((s) => {
        const [host, port] = s.split(':');
        return { host: host ?? s, port: Number(port ?? 26379) };
      }),
      name: opts.sentinelName ?? 'mymaster',
      password: fromUrl?.password ? decodeURIComponent(fromUrl.password) : undefined,
      db: fromUrl?.pathname && fromUrl.pathname.length > 1 ? Number(fromUrl.pathname.slice(1)) : 0,
    });
  }
  if (!opts.url) throw new Error('createRedisClient: a Redis URL or Sentinel endpoints are required');
  return new Redis(opts.url, base);
}
