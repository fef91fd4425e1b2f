import { Cluster, Redis, type ClusterNode, type RedisOptions } from 'ioredis';

/**
 * How to reach Redis: a URL, or Sentinel endpoints plus the master name. A Redis Cluster is given as
 * `redis+cluster://[user:password@]host:port,host:port,...` (`rediss+cluster://` for TLS): the listed
 * nodes are seeds, the client discovers the rest.
 */
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

/** The seed nodes and credentials of a `redis+cluster://` URL; undefined for any other URL. */
export function parseClusterUrl(url: string): { nodes: ClusterNode[]; tls: boolean; username?: string; password?: string } | undefined {
  const m = /^(rediss?)\+cluster:\/\/(?:([^@/]*)@)?([^/?#]+)\/?$/i.exec(url.trim());
  if (!m) return undefined;
  const [, scheme, auth, hosts] = m;
  const nodes = hosts!.split(',').map((entry) => entry.trim()).filter((entry) => entry.length > 0).map((entry) => {
    const at = entry.lastIndexOf(':');
    const host = at > 0 ? entry.slice(0, at) : entry;
    const port = at > 0 ? Number(entry.slice(at + 1)) : 6379;
    if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new Error(`REDIS_URL: bad cluster node "${entry}" (host:port expected)`);
    return { host: host.replace(/^\[(.*)\]$/, '$1'), port };
  });
  if (nodes.length === 0) throw new Error('REDIS_URL: a redis+cluster:// URL lists no nodes');
  const colon = auth?.indexOf(':') ?? -1;
  const username = auth && colon >= 0 ? decodeURIComponent(auth.slice(0, colon)) : undefined;
  const password = auth ? decodeURIComponent(colon >= 0 ? auth.slice(colon + 1) : auth) : undefined;
  return { nodes, tls: scheme!.toLowerCase() === 'rediss', ...(username ? { username } : {}), ...(password ? { password } : {}) };
}

/** Whether `client` is an ioredis Cluster (see {@link createRedisClient}). */
export function isRedisCluster(client: Redis): boolean {
  return (client as unknown as { isCluster?: boolean }).isCluster === true;
}

/**
 * The primaries behind `client`: itself for a single Redis, every master node of a Cluster. For
 * commands about a server rather than a key (INFO, CONFIG GET), which a Cluster sends to one node.
 */
export function redisPrimaries(client: Redis): Redis[] {
  return isRedisCluster(client) ? (client as unknown as Cluster).nodes('master') : [client];
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
  coalesceWrites(client);
  return client;
}

/** The socket of an ioredis connection (set when it connects; a new one on each reconnection). */
type WritableSocket = { cork(): void; uncork(): void; write: (...args: unknown[]) => boolean; trawlCoalesced?: true };

/**
 * Sends the commands a connection gets within one turn of the event loop in one socket write: ioredis
 * writes each command as it is issued, and the commands of a page (its start's reads, an admission's
 * two calls, ...) are issued together. The socket is corked at a turn's first write and uncorked at
 * the turn's end (`setImmediate`, which also keeps the poll phase from blocking meanwhile): one
 * system call per turn instead of one per command, and fewer reads for Redis: a crawl page cost Redis
 * a quarter to a third less CPU (`crawl.bench.mjs --mode cpu`, same-window A/B on loopback).
 * Order and replies are unchanged (the commands are written in order, as one stream). Every
 * connection of a Cluster gets the same.
 */
function coalesceWrites(client: Redis): void {
  const patch = (connection: Redis) => connection.on('connect', () => {
    const socket = (connection as unknown as { stream?: WritableSocket }).stream;
    if (!socket || socket.trawlCoalesced) return;
    socket.trawlCoalesced = true;
    const write = socket.write;
    let corked = false;
    const flush = () => {
      corked = false;
      socket.uncork();
    };
    socket.write = function coalescedWrite(this: WritableSocket, ...args: unknown[]): boolean {
      if (!corked) {
        corked = true;
        socket.cork();
        setImmediate(flush);
      }
      return write.apply(this, args);
    };
  });
  if (isRedisCluster(client)) (client as unknown as Cluster).on('+node', (node: Redis) => patch(node));
  else patch(client);
}

/**
 * Calls `unanswered` when a reply has not come `ms` after the commands of this turn left: the wait
 * starts after the turn's coalesced write ({@link coalesceWrites}: the commands go out in the check
 * phase), and the verdict is taken after a poll phase that followed the timer, so a process whose own
 * loop was blocked past `ms` reads a reply that came meanwhile before judging. Call the returned
 * function when the reply comes; `unanswered` is then never called.
 */
export function whenUnanswered(ms: number, unanswered: () => void): () => void {
  let answered = false;
  let timer: NodeJS.Timeout | undefined;
  setImmediate(() => {
    if (answered) return;
    timer = setTimeout(() => setImmediate(() => {
      if (!answered) unanswered();
    }), ms);
    timer.unref();
  });
  return () => {
    answered = true;
    clearTimeout(timer);
  };
}

/**
 * Errors of a Redis that cannot serve right now, not of a bug: a command that gave up reconnecting
 * or was sent on a closed connection, a server still loading its data after a restart (`LOADING`),
 * a Redis Cluster that is down or none of whose nodes answered, and a call a RedisBreaker did not
 * wait for (by name: the breaker's module imports this one).
 */
export function isRedisUnavailableError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  return err.name === 'MaxRetriesPerRequestError' || err.name === 'ClusterAllFailedError' || err.name === 'RedisBreakerOpenError'
    || /^(Connection is closed|Stream isn't writeable|LOADING |CLUSTERDOWN )/.test(err.message);
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
  const cluster = opts.url ? parseClusterUrl(opts.url) : undefined;
  if (cluster) {
    const client = new Cluster(cluster.nodes, {
      // Node connections: BullMQ reads maxRetriesPerRequest here (null on blocking connections).
      redisOptions: {
        ...base,
        ...(cluster.username ? { username: cluster.username } : {}),
        ...(cluster.password ? { password: cluster.password } : {}),
        ...(cluster.tls ? { tls: {} } : {}),
      },
      enableReadyCheck: true,
      clusterRetryStrategy: (times) => Math.min(times * 100, 2000),
    });
    // A Cluster has the command surface of a single client (every key routed to its slot's node);
    // the stores take it as one. Server-level commands go through redisPrimaries.
    return client as unknown as Redis;
  }
  if (opts.sentinels && opts.sentinels.length > 0) {
    const fromUrl = opts.url ? new URL(opts.url) : undefined;
    return new Redis({
      ...base,
      sentinels: opts.sentinels.map((s) => {
        const [host, port] = s.split(':');
        return { host: host ?? s, port: Number(port ?? 26379) };
      }),
      name: opts.sentinelName ?? 'mymaster',
      // Reconnects when a Sentinel announces a new primary (+switch-master): a primary that froze
      // (a stalled VM, a partition) keeps its connections open, and without it every client waited
      // on the old one until TCP gave up, minutes after its replica had taken over. The detector holds
      // a connection to each Sentinel (closed by disconnect(): close with closeRedisClient, not quit()
      // alone); it reconnects to a Sentinel that went away within 5 s, not ioredis' 60 s. A frozen
      // primary never closes its side of a connection: it is dropped after 300 ms, not 2 s.
      failoverDetector: true,
      sentinelReconnectStrategy: (times: number) => Math.min(times * 500, 5000),
      disconnectTimeout: 300,
      password: fromUrl?.password ? decodeURIComponent(fromUrl.password) : undefined,
      db: fromUrl?.pathname && fromUrl.pathname.length > 1 ? Number(fromUrl.pathname.slice(1)) : 0,
    });
  }
  if (!opts.url) throw new Error('createRedisClient: a Redis URL or Sentinel endpoints are required');
  return new Redis(opts.url, base);
}
