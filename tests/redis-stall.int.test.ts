import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TestCluster } from './helpers/cluster.js';
import { freezeUntilRefused } from './helpers/stall.js';

/**
 * A Redis that stops answering while its connections stay open (a frozen server, or a network
 * partition that TCP notices only after many minutes): once it has left the gateway's PING
 * unanswered for TRAWL_REDIS_STALL_MS, new requests are answered 503 at once instead of each being
 * held for as long as the stall lasts; when Redis answers again, so does the gateway, and the
 * requests that waited through the stall complete.
 */
let cluster: TestCluster;

beforeAll(async () => {
  cluster = await TestCluster.start({ TRAWL_REDIS_STALL_MS: '1000' }, { worker: false });
}, 60_000);

afterAll(async () => {
  cluster?.redisServer.resume();
  await cluster?.stop();
}, 30_000);

describe('a Redis that stops answering', () => {
  it('gets new requests 503 at once while it is frozen, and the gateway serves again when it answers', async () => {
    expect((await cluster.call('GET', '/v2/concurrency-check')).status).toBe(200);
    const { refused, sent, resumedByBound } = await freezeUntilRefused(cluster, {
      freeze: () => cluster.redisServer.pause(), resume: () => cluster.redisServer.resume(),
    });
    expect(resumedByBound).toBe(false);
    expect(refused?.body).toEqual({ success: false, code: 'SERVICE_UNAVAILABLE', error: 'Redis is not answering; try again shortly' });
    expect(refused?.headers.get('retry-after')).toMatch(/^\d+$/);
    cluster.redisServer.resume();
    // Nothing is lost: every request held before the stall was noticed is answered once Redis is back.
    const answers = await Promise.all(sent);
    const held = answers.filter((a) => a.status === 200);
    expect(held.length).toBeGreaterThan(0);
    expect(answers.every((a) => a.status === 200 || a.status === 503)).toBe(true);
    const again = await cluster.call('GET', '/v2/concurrency-check');
    expect(again.status).toBe(200);
  }, 60_000);
});
