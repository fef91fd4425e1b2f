import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RedisClusterFixture, waitFor } from '@trawl/testing';
import { TestCluster } from './helpers/cluster.js';
import { freezeUntilRefused } from './helpers/stall.js';

/**
 * One primary of a 3-master Redis Cluster stops answering while its connections stay open (a frozen
 * node, a partition): the gateway pings every primary, so once that one has left its PING unanswered
 * for TRAWL_REDIS_STALL_MS, new requests are answered 503 at once instead of waiting on it; when it
 * answers again, so does the gateway. (The Cluster client's own PING reaches one node of its
 * choosing: before, a Cluster was not watched at all.) A frozen primary with a replica is failed over
 * by the cluster: the gateway then serves again while the old primary is still frozen.
 */
let redisCluster: RedisClusterFixture;
let cluster: TestCluster;

beforeAll(async () => {
  redisCluster = await RedisClusterFixture.start({ masters: 3 });
  await redisCluster.addReplica(2);
  cluster = await TestCluster.start({ TRAWL_REDIS_STALL_MS: '1000' }, { redisUrl: redisCluster.url, worker: false });
}, 60_000);

afterAll(async () => {
  for (const i of [0, 1, 2]) redisCluster?.resume(i);
  await cluster?.stop();
  await redisCluster?.stop();
}, 30_000);

describe('a Redis Cluster primary that stops answering', () => {
  it('gets new requests 503 at once while it is frozen, and the gateway serves again when it answers', async () => {
    expect((await cluster.call('GET', '/v2/concurrency-check')).status).toBe(200);
    const { refused, sent, resumedByBound } = await freezeUntilRefused(cluster, {
      freeze: () => redisCluster.pause(1), resume: () => redisCluster.resume(1),
    });
    expect(resumedByBound).toBe(false);
    expect(refused?.body).toEqual({ success: false, code: 'SERVICE_UNAVAILABLE', error: 'Redis is not answering; try again shortly' });
    redisCluster.resume(1);
    // Every request held meanwhile is answered, and the gateway serves again.
    await Promise.all(sent);
    await waitFor(async () => (await cluster.call('GET', '/v2/concurrency-check')).status === 200, {
      what: 'the gateway to serve again', timeoutMs: 30_000,
    });
  }, 90_000);

  it('serves again once a frozen primary has failed over to its replica, the old one still frozen', async () => {
    expect((await cluster.call('GET', '/v2/concurrency-check')).status).toBe(200);
    redisCluster.pause(2);
    try {
      // Refused first (the primary is silent), then served: its replica took its slots over (after the
      // cluster's node timeout, 5 s) and the gateway, refreshing its slot map, stopped counting it.
      let refused = false;
      await waitFor(async () => {
        const answer = await cluster.call('GET', '/v2/concurrency-check', { signal: AbortSignal.timeout(500) }).catch(() => undefined);
        if (answer?.status === 503) refused = true;
        return refused && answer?.status === 200;
      }, { what: 'a request served after the failover', timeoutMs: 60_000, intervalMs: 100 });
    } finally {
      redisCluster.resume(2);
    }
  }, 90_000);
});
