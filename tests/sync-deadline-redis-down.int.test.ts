import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FixtureSite } from '@trawl/testing';
import { TestCluster } from './helpers/cluster.js';

/**
 * A sync scrape whose deadline comes while Redis is away (restarting) is answered at its deadline:
 * the gateway does not wait for Redis to come back before its 408. The chaos test found sync answers
 * 4-5 s past timeout + grace when its Redis restart was slow on a busy machine.
 */
let cluster: TestCluster;
let origin: FixtureSite;
let reached: () => void;
const targetReached = new Promise<void>((resolve) => (reached = resolve));
/** Requests the origin got for `/counted`. */
let counted = 0;

beforeAll(async () => {
  origin = await new FixtureSite()
    // Never answers while the test runs: the scrape can only end at its deadline.
    .route('/hang', async (req) => {
      reached();
      await new Promise((resolve) => req.socket.once('close', resolve));
    })
    .route('/counted', (_req, res) => {
      counted += 1;
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<p>counted</p>');
    })
    .start();
  cluster = await TestCluster.start({ TRAWL_SYNC_GRACE_MS: '500' });
}, 60_000);

afterAll(async () => {
  cluster?.redisServer.resume();
  await cluster?.redisServer.up().catch(() => undefined);
  await cluster?.stop();
  await origin?.stop();
}, 30_000);

describe('a sync scrape whose deadline comes while Redis is down', () => {
  it('answers 408 without waiting for Redis to come back', async () => {
    const answer = cluster.call('POST', '/v2/scrape', { body: { url: origin.url('/hang'), timeout: 1500, maxAge: 0 } });
    await targetReached;
    await cluster.redisServer.down();
    // Redis stays down until the answer arrives, or (the bug) for 15 s, far past timeout + grace.
    let redisBack = false;
    const bound = new Promise<'no answer while Redis was down'>((resolve) => {
      const t = setTimeout(() => {
        redisBack = true;
        resolve('no answer while Redis was down');
      }, 15_000);
      void answer.finally(() => clearTimeout(t));
    });
    const first = await Promise.race([answer, bound]);
    expect(first).not.toBe('no answer while Redis was down');
    expect(redisBack).toBe(false);
    const res = await answer;
    expect(res.status).toBe(408);
    expect(res.body.code).toBe('SCRAPE_TIMEOUT');
    await cluster.redisServer.up();
  }, 60_000);

  it('answers 408 at its timeout when Redis stalls under its rate limit, and never submits the scrape', async () => {
    // A key this gateway authenticated a moment ago: its body is read beside the rate limit, whose
    // round trip then waits for a frozen Redis (connections open, no answers). The request's timeout
    // counts from its arrival.
    expect((await cluster.call('POST', '/v2/scrape', { body: { url: origin.url('/counted'), maxAge: 0 } })).status).toBe(200);
    const before = counted;
    cluster.redisServer.pause();
    const t0 = Date.now();
    const res = await cluster.call('POST', '/v2/scrape', { body: { url: origin.url('/counted'), timeout: 1500, maxAge: 0 } });
    const ms = Date.now() - t0;
    expect(res.status).toBe(408);
    expect(res.body).toMatchObject({ success: false, code: 'SCRAPE_TIMEOUT', error: 'Scrape timed out after 1500 ms' });
    // timeout + grace (500 ms here), with room for a busy machine; Redis stayed frozen throughout.
    expect(ms).toBeLessThan(1500 + 500 + 1500);
    cluster.redisServer.resume();
    // Once Redis answers, the rate limit's round trip completes: the answered request submits nothing.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(counted).toBe(before);
    expect((await cluster.call('GET', '/v2/concurrency-check')).body.concurrency).toBe(0);
  }, 60_000);
});
