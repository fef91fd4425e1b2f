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
    const answer = cluster.call('POST', '/v2/scrape', { body: { url: origin.url('/counted'), timeout: 1500, maxAge: 0 } });
    // Redis stays frozen until the answer arrives, or (without the bound) for 15 s, far past timeout + grace.
    let resumed = false;
    const bound = new Promise<'no answer while Redis was frozen'>((resolve) => {
      const t = setTimeout(() => {
        resumed = true;
        cluster.redisServer.resume();
        resolve('no answer while Redis was frozen');
      }, 15_000);
      void answer.finally(() => clearTimeout(t));
    });
    expect(await Promise.race([answer, bound])).not.toBe('no answer while Redis was frozen');
    expect(resumed).toBe(false);
    const res = await answer;
    expect(res.status).toBe(408);
    expect(res.body).toMatchObject({ success: false, code: 'SCRAPE_TIMEOUT', error: 'Scrape timed out after 1500 ms' });
    cluster.redisServer.resume();
    // Once Redis answers, the stalled rate limit's round trip completes first: this request's own rate
    // limit and its count go through the same connection after it, so a scrape the answered request
    // had submitted would hold a slot by then. It submitted nothing.
    expect((await cluster.call('GET', '/v2/concurrency-check')).body.concurrency).toBe(0);
    expect(counted).toBe(before);
  }, 60_000);
});
