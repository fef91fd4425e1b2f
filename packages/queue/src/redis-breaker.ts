import type { Cluster, Redis } from 'ioredis';
import { isRedisCluster, redisPrimaries, whenUnanswered } from './redis-connection.js';

/** Least time between two slot-map refreshes of an open breaker on a Redis Cluster, ms. */
const CLUSTER_REFRESH_EVERY_MS = 5000;

/** Why a {@link RedisBreaker} turns calls away: its connection is lost, or it left a call unanswered. */
export type RedisBreakerReason = 'down' | 'stalled';

/** A call a {@link RedisBreaker} did not wait for: the Redis behind it is down or not answering. */
export class RedisBreakerOpenError extends Error {
  constructor(
    readonly reason: RedisBreakerReason,
    message: string,
  ) {
    super(message);
    this.name = 'RedisBreakerOpenError';
  }
}

/** Options of {@link RedisBreaker}. */
export interface RedisBreakerOptions {
  /** What the calls are for, in error messages (`page cache`). */
  name: string;
  /**
   * Longest wait for a call's answer, ms: past it the call fails and the breaker opens. 0: calls
   * wait as long as Redis takes, and a call made while a connection that was ready is lost (the
   * client reconnecting) fails at once.
   */
  timeoutMs: number;
  /** Least time between two PINGs while the breaker is open for a stall, ms. Default 1000. */
  probeEveryMs?: number;
  /** Told when the breaker opens (with why) and when it closes again. */
  onChange?: (change: { available: boolean; reason?: RedisBreakerReason }) => void;
}

/** Options of one {@link RedisBreaker.run}. */
export interface RedisBreakerRunOptions {
  /** This call's own limit, ms, instead of the breaker's. */
  timeoutMs?: number;
  /** Whether this call's timing out opens the breaker. Default true. */
  opens?: boolean;
}

/**
 * Calls to a Redis that is optional to the work (the page cache: a miss costs a fetch) fail at once
 * instead of waiting while that Redis is down or frozen. Without it a command waits through every
 * reconnection (the clients retry forever) and, with a frozen server or a partition, for as long as
 * the connection stays open: every scrape would wait on its cache until its own timeout.
 *
 * A call left unanswered for `timeoutMs` fails and opens the breaker: `stalled` when the connection
 * is still up (it closes once a PING, one at a time every `probeEveryMs`, is answered), `down` when
 * the client is reconnecting (it closes at the first call that finds the client ready again). While
 * open, calls fail at once. So a short reconnection (a restart, an idle connection cut) only delays
 * the calls made meanwhile, and is not reported. The wait is {@link whenUnanswered}'s: from when the
 * call's commands left, judged after a poll phase, so that this process's own blocked loop is not
 * taken for a stall. A call that timed out is not withdrawn: Redis may still run it later (harmless
 * for a cache). It reads the client's state when called: no listener is added to the client.
 *
 * On a Redis Cluster every primary gets its PING (the client's own goes to a node of its choosing),
 * and the breaker closes once each has answered: one frozen shard keeps it open (a cache miss costs a
 * fetch) instead of closing after a probe answered elsewhere, each call to that shard then waiting
 * `timeoutMs` again. While a primary leaves its PING unanswered, the client's slot map is refreshed
 * (at most every 5 s), so a primary that failed over to its replica leaves the list. The whole cache
 * is skipped meanwhile, keys of healthy shards too: until the cluster fails the frozen primary over,
 * or for as long as it is frozen when it has no replica.
 */
export class RedisBreaker {
  private openFor: RedisBreakerReason | undefined;
  /** Whether the client was found ready once (a later other status is a lost connection). */
  private connected: boolean;
  private probeTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly opts: RedisBreakerOptions,
  ) {
    this.connected = redis.status === 'ready';
  }

  /** Whether calls go through (the breaker is closed). */
  get available(): boolean {
    return this.openFor === undefined;
  }

  /**
   * Runs `call` (one or more commands of this breaker's client) unless the breaker is open, and
   * fails it with {@link RedisBreakerOpenError} if no answer came within the limit.
   */
  run<T>(call: () => Promise<T>, runOpts: RedisBreakerRunOptions = {}): Promise<T> {
    const status = this.redis.status;
    if (this.openFor === 'down' && status === 'ready') this.close();
    if (this.openFor) return Promise.reject(this.error(this.openFor));
    // Closed on purpose (the process is stopping): nothing to wait for, and nothing to report.
    if (status === 'end') return Promise.reject(this.error('down'));
    if (status === 'ready') this.connected = true;
    const timeoutMs = runOpts.timeoutMs ?? this.opts.timeoutMs;
    if (timeoutMs <= 0) {
      // No time limit: a call waits for an answer, not for a connection that was lost.
      const lost = status === 'reconnecting' || (this.connected && status !== 'ready' && status !== 'wait');
      if (!lost) return call();
      if (runOpts.opens !== false) this.open('down');
      return Promise.reject(this.error('down'));
    }
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      /** Ends the wait for an answer (set once the call is sent). */
      const wait = { answered: (): void => undefined };
      const settle = (done: () => void): void => {
        if (settled) return;
        settled = true;
        wait.answered();
        done();
      };
      let pending: Promise<T>;
      try {
        pending = call();
      } catch (err) {
        settle(() => reject(err));
        return;
      }
      // After the call: its commands are written in this turn's flush, which the wait follows.
      wait.answered = whenUnanswered(timeoutMs, () => settle(() => {
        const reason = this.redis.status === 'ready' ? 'stalled' : 'down';
        if (runOpts.opens !== false) this.open(reason);
        reject(this.error(reason, timeoutMs));
      }));
      pending.then((value) => settle(() => resolve(value)), (err: unknown) => settle(() => reject(err)));
    });
  }

  private error(reason: RedisBreakerReason, timeoutMs = this.opts.timeoutMs): RedisBreakerOpenError {
    return new RedisBreakerOpenError(reason, reason === 'down'
      ? `The ${this.opts.name} Redis is unreachable`
      : `The ${this.opts.name} Redis is not answering (no reply within ${timeoutMs} ms)`);
  }

  private open(reason: RedisBreakerReason): void {
    // A lost connection stays the reason until it is back (a call sent before it was lost times out later).
    if (this.openFor === reason || this.openFor === 'down') return;
    const wasOpen = this.openFor !== undefined;
    this.openFor = reason;
    if (reason === 'stalled') this.startProbing();
    else this.stopProbing();
    if (!wasOpen) this.opts.onChange?.({ available: false, reason });
  }

  private close(): void {
    this.stopProbing();
    if (this.openFor === undefined) return;
    this.openFor = undefined;
    this.opts.onChange?.({ available: true });
  }

  private startProbing(): void {
    if (this.probeTimer) return;
    // This episode's own: a PING of an earlier one that answers late touches nothing here.
    const answered = new WeakSet<Redis>();
    const pinging = new WeakSet<Redis>();
    const cluster = isRedisCluster(this.redis) ? (this.redis as unknown as Cluster) : undefined;
    let refreshedAt = 0;
    /** Closes the breaker once every current primary has answered. */
    const check = (): void => {
      const primaries = redisPrimaries(this.redis);
      if (this.openFor === 'stalled' && primaries.length > 0 && primaries.every((node) => answered.has(node))) this.close();
    };
    this.probeTimer = setInterval(() => {
      const status = this.redis.status;
      if (status === 'end') return this.stopProbing();
      if (status !== 'ready') return;
      const primaries = redisPrimaries(this.redis);
      // A failover is learnt from a redirection or a closed connection, which calls turned away never
      // get: while a primary leaves its PING unanswered, ask the cluster (at most every 5 s: each
      // asking opens a connection).
      const now = Date.now();
      if (cluster && now - refreshedAt >= CLUSTER_REFRESH_EVERY_MS && primaries.some((node) => pinging.has(node))) {
        refreshedAt = now;
        void cluster.refreshSlotsCache();
      }
      for (const node of primaries) {
        // At most one PING out a node; one that answered is not asked again.
        if (answered.has(node) || pinging.has(node)) continue;
        pinging.add(node);
        node.ping().then(() => {
          pinging.delete(node);
          answered.add(node);
          check();
        }, () => pinging.delete(node));
      }
      check();
    }, this.opts.probeEveryMs ?? 1000);
    this.probeTimer.unref();
  }

  private stopProbing(): void {
    clearInterval(this.probeTimer);
    this.probeTimer = undefined;
  }
}
