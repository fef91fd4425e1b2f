import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RedisClusterFixture, RedisServerFixture, waitFor } from '@trawl/testing';
import { once } from 'node:events';
import { Redis, type Cluster } from 'ioredis';
import { RedisBreaker, RedisBreakerOpenError, type RedisBreakerReason } from './redis-breaker.js';
import { createRedisClient } from './redis-connection.js';

let server: RedisServerFixture;
let redis: Redis;

beforeAll(async () => {
  server = await RedisServerFixture.start({ appendonly: false });
  redis = createRedisClient({ url: server.url, connectionName: 'breaker-test' });
  await redis.ping();
});

afterAll(async () => {
  redis.disconnect();
  await server.stop();
});

/** A breaker whose changes are recorded; `next()` resolves with the next change (an event, not a timer). */
function watched(timeoutMs: number) {
  return watchedOn(redis, timeoutMs, 50);
}

function watchedOn(client: Redis, timeoutMs: number, probeEveryMs: number) {
  const changes: Array<{ available: boolean; reason?: RedisBreakerReason }> = [];
  let wake: (() => void) | undefined;
  const breaker = new RedisBreaker(client, {
    name: 'test', timeoutMs, probeEveryMs,
    onChange: (c) => {
      changes.push(c);
      wake?.();
    },
  });
  const next = (count: number): Promise<void> => (changes.length >= count ? Promise.resolve() : new Promise((r) => {
    wake = () => {
      if (changes.length >= count) r();
    };
  }));
  return { breaker, changes, next };
}

/** Keeps this process's event loop busy for `ms` (a worker busy converting a page). */
function blockLoop(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) { /* busy */ }
}

/** Runs `check` while the server is down and the client reconnecting; returns once the client is ready again. */
async function whileDown(check: () => Promise<void>): Promise<void> {
  await server.down();
  try {
    if (redis.status !== 'reconnecting') await once(redis, 'reconnecting');
    await check();
  } finally {
    await server.up();
  }
  if (redis.status !== 'ready') await once(redis, 'ready');
}

/** The error a call failed with (it must fail). */
async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('the call did not fail');
}

describe('RedisBreaker', () => {
  it('passes answers and Redis errors through without opening', async () => {
    const { breaker, changes } = watched(1000);
    expect(await breaker.run(() => redis.echo('hello'))).toBe('hello');
    const err = await failure(breaker.run(() => redis.call('NO-SUCH-COMMAND')));
    expect(err).not.toBeInstanceOf(RedisBreakerOpenError);
    expect(breaker.available).toBe(true);
    expect(changes).toEqual([]);
  });

  it('fails a call left unanswered, fails the next at once, and closes once Redis answers a PING', async () => {
    const { breaker, changes, next } = watched(200);
    server.pause();
    try {
      const err = await failure(breaker.run(() => redis.echo('frozen')));
      expect(err).toBeInstanceOf(RedisBreakerOpenError);
      expect((err as RedisBreakerOpenError).reason).toBe('stalled');
      expect(changes).toEqual([{ available: false, reason: 'stalled' }]);
      // Open: the next call is not sent at all.
      expect(breaker.available).toBe(false);
      expect(((await failure(breaker.run(() => redis.echo('not sent')))) as RedisBreakerOpenError).reason).toBe('stalled');
    } finally {
      server.resume();
    }
    await next(2);
    expect(changes[1]).toEqual({ available: true });
    expect(await breaker.run(() => redis.echo('again'))).toBe('again');
  });

  it('does not count its own blocked event loop as a stall', async () => {
    const { breaker, changes } = watched(1000);
    // Blocked before the command has even been written (the client flushes in the check phase)...
    const first = breaker.run(() => redis.echo('one'));
    blockLoop(1300);
    expect(await first).toBe('one');
    // ...and after: the answer came during the block and is read before the verdict.
    const second = breaker.run(() => redis.echo('two'));
    await new Promise((r) => setImmediate(r));
    blockLoop(1300);
    expect(await second).toBe('two');
    expect(changes).toEqual([]);
  });

  it('a call made while the connection is lost fails once its time is out; the breaker then stays open until a call finds it back', async () => {
    const { breaker, changes } = watched(200);
    await whileDown(async () => {
      expect(((await failure(breaker.run(() => redis.echo('down')))) as RedisBreakerOpenError).reason).toBe('down');
      expect(changes).toEqual([{ available: false, reason: 'down' }]);
      expect(breaker.available).toBe(false);
    });
    expect(await breaker.run(() => redis.echo('back'))).toBe('back');
    expect(changes).toEqual([{ available: false, reason: 'down' }, { available: true }]);
  });

  it('a reconnection shorter than the limit only delays the calls made meanwhile', async () => {
    const { breaker, changes } = watched(30_000);
    let during: Promise<string> | undefined;
    await whileDown(async () => {
      during = breaker.run(() => redis.echo('queued'));
    });
    expect(await during).toBe('queued');
    expect(changes).toEqual([]);
  });

  it('with no time limit, a call made while the connection is lost fails at once', async () => {
    const { breaker, changes } = watched(0);
    await whileDown(async () => {
      expect(((await failure(breaker.run(() => redis.echo('down')))) as RedisBreakerOpenError).reason).toBe('down');
      expect(changes).toEqual([{ available: false, reason: 'down' }]);
    });
    expect(await breaker.run(() => redis.echo('back'))).toBe('back');
  });
});

describe('RedisBreaker on a Redis Cluster', () => {
  let redisCluster: RedisClusterFixture;
  let client: Redis;

  beforeAll(async () => {
    redisCluster = await RedisClusterFixture.start({ masters: 3 });
    client = createRedisClient({ url: redisCluster.url, connectionName: 'breaker-cluster-test' });
    await client.ping();
  }, 60_000);

  afterAll(async () => {
    for (const i of [0, 1, 2]) redisCluster?.resume(i);
    client?.disconnect();
    await redisCluster?.stop();
  }, 30_000);

  /** A key whose slot primary `index` serves. */
  async function keyOn(index: number): Promise<string> {
    const slots = (client as unknown as Cluster).slots;
    for (let i = 0; ; i++) {
      const slot = Number(await client.call('CLUSTER', 'KEYSLOT', `breaker-${i}`));
      if (slots[slot]?.[0] === `127.0.0.1:${redisCluster.ports[index]}`) return `breaker-${i}`;
    }
  }

  it('stays open while one primary is frozen (every primary is probed), and closes once it answers', async () => {
    const key = await keyOn(1);
    const elsewhere = [await keyOn(0), await keyOn(2)];
    await client.set(key, 'cached');
    const { breaker, changes, next } = watchedOn(client, 300, 100);
    expect(await breaker.run(() => client.get(key))).toBe('cached');
    redisCluster.pause(1);
    try {
      expect(await failure(breaker.run(() => client.get(key)))).toBeInstanceOf(RedisBreakerOpenError);
      // Once both other primaries have answered a probe's PING, it is still open: before, a PING
      // answered by another primary closed it, and the next call to the frozen one waited its time out again.
      const healthy = [0, 2].map((i) => new Redis(redisCluster.ports[i]!, { lazyConnect: false }));
      try {
        const pings = async (node: Redis) => Number(/cmdstat_ping:calls=(\d+)/.exec(await node.info('commandstats'))?.[1] ?? 0);
        const before = await Promise.all(healthy.map(pings));
        await waitFor(async () => (await Promise.all(healthy.map(pings))).every((n, i) => n > before[i]!), { what: 'both healthy primaries to be probed' });
        // Their answers have reached the breaker once a later call on the same connections is answered.
        await Promise.all(elsewhere.map((k) => client.get(k)));
      } finally {
        for (const node of healthy) node.disconnect();
      }
      expect(breaker.available).toBe(false);
      expect(changes).toEqual([{ available: false, reason: 'stalled' }]);
    } finally {
      redisCluster.resume(1);
    }
    await next(2);
    expect(changes[1]).toEqual({ available: true });
    expect(await breaker.run(() => client.get(key))).toBe('cached');
  }, 60_000);
});
