import { Redis, type RedisOptions } from 'ioredis';

/** How to reach Redis: a URL, or Sentinel endpoints plus the master name. */
export interface RedisConnectionOptions {
  url?: string;
  /** `host:port` entries; when non-empty, Sentinel is used and `url` only supplies password/db/TLS. */
  sentinels?: string[];
  sentinelName?: string;
  /** Connection name shown in CLIENT LIST (role of the process). */
  connectionName?: string;
  /**
   * Reconnection attempts a command waits through before it fails (MaxRetriesPerRequestError).
   * Default null: it waits for Redis, as BullMQ's worker connections require. Clients serving HTTP
   * requests set a number, so a request never hangs on a Redis that is down.
   */
  maxRetriesPerRequest?: number | null;
  /**
   * Connection errors (one per reconnection attempt while Redis is down). Without it they are
   * ignored; give a throttled logger (`throttledErrorLog` of @trawl/observability), not a plain one.
   */
  onError?: (err: Error) => void;
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
    maxRetriesPerRequest: opts.maxRetriesPerRequest ?? null,
    enableReadyCheck: true,
    connectionName: opts.connectionName,
    retryStrategy: (times) => Math.min(times * 100, 2000),
  };
  const client = newClient(opts, base);
  // An `error` listener also keeps ioredis from printing every reconnection failure to stderr.
  client.on('error', (err: Error) => opts.onError?.(err));
  return client;
}

/**
 * Closes a client without ever waiting on a dead Redis: QUIT (pending replies flushed) when it is
 * connected, bounded by `timeoutMs`, then a plain disconnect.
 */
export async function closeRedisClient(client: Redis, timeoutMs = 2000): Promise<void> {
  if (client.status === 'end') return;
  if (client.status === 'ready') {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    await Promise.race([client.quit().then(() => undefined, () => undefined), timedOut]);
    clearTimeout(timer);
  }
  client.disconnect();
}

function newClient(opts: RedisConnectionOptions, base: RedisOptions): Redis {
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
