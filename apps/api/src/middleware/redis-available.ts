import type { RequestHandler } from 'express';
import type { Cluster, Redis } from 'ioredis';
import { TrawlError } from '@trawl/api-schema';
import { isRedisCluster, redisPrimaries, whenUnanswered } from '@trawl/queue';

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
  /**
   * Told when Redis stops answering a connected client, and when it answers again; `nodes`: the
   * `host:port` of the primaries that do not answer (on a Cluster, the frozen ones; else the server).
   */
  onStall?: (stalled: boolean, nodes: string[]) => void;
}

/** The PINGs of one connection: the client, or one primary of a Redis Cluster. */
class NodePing {
  /** The PING out, if any, and what ends its wait. */
  private out: { answered: () => void } | undefined;
  private lastAnsweredAt = 0;
  stalled = false;

  /**
   * @param clusterNode a primary of a Cluster: its connection is made on first use (`wait`), and it
   *   is pinged (and judged) while it connects too, since the client's commands to it wait for it.
   */
  constructor(
    readonly node: Redis,
    private readonly stallMs: number,
    private readonly changed: () => void,
    private readonly clusterNode: boolean,
  ) {}

  /** `host:port` of the node for the log (the primary's group name under Sentinel). */
  get name(): string {
    const { host, port, sentinels, name } = this.node.options;
    return sentinels?.length ? `sentinel:${name ?? ''}` : `${host ?? ''}:${port ?? ''}`;
  }

  /** Whether the node's connection is one a PING can be judged on. */
  private watchable(): boolean {
    const status = this.node.status;
    return this.clusterNode ? status === 'ready' || status === 'wait' || status === 'connecting' || status === 'connect' : status === 'ready';
  }

  /** Sends a PING when none is out and the last was answered over a second ago. */
  send(now: number): void {
    if (this.out || now - this.lastAnsweredAt < PING_EVERY_MS || !this.watchable()) return;
    const sent = { answered: (): void => undefined };
    this.out = sent;
    // A rejection (the connection closed under it) ends the ping as well: the client reconnects.
    const settle = (): void => {
      if (this.out === sent) this.answered();
    };
    void this.node.ping().then(settle, settle);
    // Counted from when the PING left, judged after a poll phase (@trawl/queue's whenUnanswered).
    sent.answered = whenUnanswered(this.stallMs, () => {
      if (this.out !== sent || !this.watchable()) return;
      this.stalled = true;
      this.changed();
    });
  }

  /** Ends the PING out, if any (answered, or its connection replaced). */
  answered(): void {
    if (!this.out) return;
    this.out.answered();
    this.out = undefined;
    this.lastAnsweredAt = Date.now();
    if (!this.stalled) return;
    this.stalled = false;
    this.changed();
  }
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
 * `stallMs` plus a second before it is noticed. The wait is @trawl/queue's `whenUnanswered`: from
 * when the PING left, judged after a poll phase, so that a gateway whose own loop was blocked past
 * `stallMs` reads an answer that came meanwhile first and does not turn requests away for it.
 *
 * On a Redis Cluster every primary gets its own PING (the client's own PING reaches one node of its
 * choosing), and one frozen primary turns requests away: a request reads and writes keys of several
 * slots (its key, its team, its queue), so most would wait on that primary anyway. While one is
 * silent the client's slot map is refreshed (at most once a second), so a primary that fails over to
 * its replica leaves the list and stops counting.
 */
export function redisAvailable(redis: Redis, opts: RedisAvailableOptions = {}): RequestHandler {
  const graceMs = opts.graceMs ?? REDIS_DOWN_GRACE_MS;
  const stallMs = opts.stallMs ?? REDIS_STALL_MS;
  const cluster = isRedisCluster(redis) ? (redis as unknown as Cluster) : undefined;
  let downSince: number | undefined;
  let stalled = false;
  /** One per primary (the client itself for a single Redis), kept as an array for the per-request loop. */
  let pings: NodePing[] = [];
  const changed = (): void => {
    const silent = pings.filter((p) => p.stalled);
    const nowStalled = silent.length > 0;
    if (stalled === nowStalled) return;
    stalled = nowStalled;
    opts.onStall?.(stalled, silent.map((p) => p.name));
  };
  if (!cluster) pings = [new NodePing(redis, stallMs, changed, false)];
  let listedAt = 0;
  /** A Cluster's primaries, listed afresh: a node that is no longer one (failed over) is dropped. */
  const listPrimaries = (): void => {
    const primaries = redisPrimaries(redis);
    const known = new Map(pings.map((p) => [p.node, p]));
    const next = primaries.map((node) => known.get(node) ?? new NodePing(node, stallMs, changed, true));
    const dropped = pings.some((p) => !primaries.includes(p.node));
    pings = next;
    if (dropped) changed();
    // The client learns of a failover only from a redirection or a closed connection, and the
    // requests turned away meanwhile send it neither: while a primary is silent, ask the cluster.
    if (stalled) cluster?.refreshSlotsCache();
  };
  const down = () => {
    downSince ??= Date.now();
  };
  redis.on('close', down);
  redis.on('reconnecting', down);
  redis.on('ready', () => {
    downSince = undefined;
    // A new connection: a PING out on the old one has no answer to wait for.
    for (const ping of pings) ping.answered();
  });
  return (_req, _res, next) => {
    if (stallMs > 0 && redis.status === 'ready') {
      const now = Date.now();
      if (cluster && now - listedAt >= PING_EVERY_MS) {
        listedAt = now;
        listPrimaries();
      }
      for (const ping of pings) ping.send(now);
    }
    if (stalled) {
      next(new TrawlError('SERVICE_UNAVAILABLE', 'Redis is not answering; try again shortly', { retryable: true }));
      return;
    }
    if (redis.status === 'ready' || downSince === undefined || Date.now() - downSince < graceMs) return next();
    next(new TrawlError('SERVICE_UNAVAILABLE', 'Redis is unreachable; try again shortly', { retryable: true }));
  };
}
