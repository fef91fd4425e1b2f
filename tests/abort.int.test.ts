import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { EventEmitter, once } from 'node:events';
import { FixtureSite, waitFor } from '@trawl/testing';
import { BOOT_KEY, TestCluster } from './helpers/cluster.js';

/**
 * Work on a request whose answer nobody will read any more stops: the target sees its request
 * aborted (the socket closed) and nothing after it. Everything is observed from the target's side,
 * through its events, never through timing.
 */
let cluster: TestCluster;
let site: FixtureSite;
/** `arrived:<path>` when a request reaches a hanging route, `closed:<path>` when its socket closes. */
const events = new EventEmitter();
const HANGING = ['/never', '/disconnect', '/batch-held', '/held', '/held2', '/robots.txt'];
/** Paths whose hanging requests are answered now (the held page of a backlog test). */
const released = new Set<string>();

/** A route that answers only once released (never, for most tests) and reports its request's life. */
const hanging = (path: string) => site.route(path, (req, res) => {
  req.socket.once('close', () => events.emit(`closed:${path}`));
  events.emit(`arrived:${path}`);
  const answer = () => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html><body><main><p>Answered after being held.</p></main></body></html>');
  };
  if (released.has(path)) answer();
  else events.once(`release:${path}`, answer);
});

beforeAll(async () => {
  site = await new FixtureSite().page('/quick', '<html><body><main><p>Quick page.</p></main></body></html>').start();
  for (const p of HANGING) hanging(p);
  site.page('/late', '<html><body><main><p>Late page.</p></main></body></html>');
  site.page('/late2', '<html><body><main><p>Late page.</p></main></body></html>');
  // One scrape at a time per worker: a second job admitted to BullMQ waits there (not in a backlog).
  cluster = await TestCluster.start({ TRAWL_WORKER_CONCURRENCY: '1' });
});
afterAll(async () => {
  for (const p of HANGING) events.emit(`release:${p}`);
  await cluster.stop();
  await site.stop();
}, 30_000);

/** Resolves once the team has no job admitted or waiting: whatever ran has ended for good. */
async function settled(key: string, on: TestCluster = cluster): Promise<void> {
  await waitFor(async () => {
    const qs = await on.call('GET', '/v2/team/queue-status', { key });
    return qs.body.activeJobsInQueue === 0 && qs.body.waitingJobsInQueue === 0;
  }, { what: 'the team to have no job admitted or waiting' });
}

describe('work for answers nobody reads is stopped', () => {
  it('after a sync scrape\'s 408 the target saw its request aborted, and no further request', async () => {
    const t = await cluster.team();
    const closed = once(events, 'closed:/never');
    const r = await cluster.call('POST', '/v2/scrape', { key: t.key, body: { url: site.url('/never'), timeout: 1500, maxAge: 0 } });
    expect([r.status, r.body.code]).toEqual([408, 'SCRAPE_TIMEOUT']);
    await closed;
    await settled(t.key);
    expect(site.hits.get('/never')).toBe(1);
  });

  it('a client that disconnects from a sync scrape stops the fetch it was waiting for', async () => {
    const arrived = once(events, 'arrived:/disconnect');
    const closed = once(events, 'closed:/disconnect');
    const client = new AbortController();
    const pending = fetch(cluster.api.url + '/v2/scrape', {
      method: 'POST', signal: client.signal,
      headers: { authorization: `Bearer ${BOOT_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: site.url('/disconnect'), timeout: 120_000, maxAge: 0 }),
    }).catch(() => 'aborted');
    await arrived;
    client.abort();
    expect(await pending).toBe('aborted');
    // Without cancellation the target would hold this request for the full two minutes.
    await closed;
    await settled(BOOT_KEY);
    expect(site.hits.get('/disconnect')).toBe(1);
  });

  it('cancelling a batch aborts the page it is scraping', async () => {
    const arrived = once(events, 'arrived:/batch-held');
    const closed = once(events, 'closed:/batch-held');
    const start = await cluster.call('POST', '/v2/batch/scrape', { body: { urls: [site.url('/batch-held')], timeout: 120_000, maxAge: 0 } });
    expect(start.status).toBe(200);
    await arrived;
    expect((await cluster.call('DELETE', `/v2/batch/scrape/${start.body.id}`)).status).toBe(200);
    await closed;
    await settled(BOOT_KEY);
    expect(site.hits.get('/batch-held')).toBe(1);
    // The aborted page is not recorded as an error of the cancelled batch.
    expect((await cluster.call('GET', `/v2/batch/scrape/${start.body.id}/errors`)).body.errors).toEqual([]);
    expect((await cluster.call('GET', `/v2/batch/scrape/${start.body.id}`)).body.status).toBe('cancelled');
  });

  it('a client that disconnects from a map stops its fetches', async () => {
    const arrived = once(events, 'arrived:/robots.txt');
    const closed = once(events, 'closed:/robots.txt');
    const client = new AbortController();
    const pending = fetch(cluster.api.url + '/v2/map', {
      method: 'POST', signal: client.signal,
      headers: { authorization: `Bearer ${BOOT_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: site.url('/quick'), timeout: 120_000 }),
    }).catch(() => 'aborted');
    await arrived;
    client.abort();
    expect(await pending).toBe('aborted');
    await closed;
    // The map job has ended (nothing active on the crawl queue): no fetch followed the aborted one.
    await waitFor(async () => {
      const [active, waiting] = await Promise.all([cluster.redis.llen('{trawl}:bull:crawl:active'), cluster.redis.zcard('{trawl}:bull:crawl:prioritized')]);
      return active === 0 && waiting === 0;
    }, { what: 'the crawl queue to have no active or waiting job' });
    expect(site.hits.get('/robots.txt')).toBe(1);
    expect(site.hits.get('/quick')).toBeUndefined();
  });

  it('a job whose deadline passed while it waited in the team backlog never reaches the target', async () => {
    const t = await cluster.team({ concurrency: 1 });
    const arrived = once(events, 'arrived:/held');
    const held = cluster.call('POST', '/v2/scrape', { key: t.key, body: { url: site.url('/held'), timeout: 120_000, maxAge: 0 } });
    await arrived;
    const late = await cluster.call('POST', '/v2/scrape', { key: t.key, body: { url: site.url('/late'), timeout: 1000, maxAge: 0 } });
    expect([late.status, late.body.code]).toEqual([408, 'SCRAPE_TIMEOUT']);
    released.add('/held');
    events.emit('release:/held');
    expect((await held).status).toBe(200);
    await settled(t.key);
    expect(site.hits.get('/late')).toBeUndefined();
  });

  it('a job whose deadline passed while it waited in the queue for a busy worker is not started', async () => {
    // Two slots for the team, one worker slot: the second job waits in BullMQ, not in the backlog.
    const t = await cluster.team({ concurrency: 2 });
    const arrived = once(events, 'arrived:/held2');
    const held = cluster.call('POST', '/v2/scrape', { key: t.key, body: { url: site.url('/held2'), timeout: 120_000, maxAge: 0 } });
    await arrived;
    const late = await cluster.call('POST', '/v2/scrape', { key: t.key, body: { url: site.url('/late2'), timeout: 1000, maxAge: 0 } });
    expect([late.status, late.body.code]).toEqual([408, 'SCRAPE_TIMEOUT']);
    released.add('/held2');
    events.emit('release:/held2');
    expect((await held).status).toBe(200);
    await settled(t.key);
    expect(site.hits.get('/late2')).toBeUndefined();
  });
});

describe('with the browser engine', () => {
  let browserCluster: TestCluster;
  beforeAll(async () => {
    for (const p of ['/browser-never', '/browser-disconnect']) hanging(p);
    browserCluster = await TestCluster.start({ TRAWL_WORKER_ROLES: 'http,browser' });
  }, 60_000);
  afterAll(async () => {
    for (const p of ['/browser-never', '/browser-disconnect']) events.emit(`release:${p}`);
    await browserCluster?.stop();
  }, 30_000);

  it('a plain-HTTP scrape past its deadline is not moved to the browser: one request, aborted', async () => {
    const closed = once(events, 'closed:/browser-never');
    const r = await browserCluster.call('POST', '/v2/scrape', { body: { url: site.url('/browser-never'), timeout: 1500, maxAge: 0 } });
    expect([r.status, r.body.code]).toEqual([408, 'SCRAPE_TIMEOUT']);
    await closed;
    await settled(BOOT_KEY, browserCluster);
    expect(site.hits.get('/browser-never')).toBe(1);
  });

  it('a client that disconnects from a browser scrape stops the page load', async () => {
    const arrived = once(events, 'arrived:/browser-disconnect');
    const closed = once(events, 'closed:/browser-disconnect');
    const client = new AbortController();
    const pending = fetch(browserCluster.api.url + '/v2/scrape', {
      method: 'POST', signal: client.signal,
      headers: { authorization: `Bearer ${BOOT_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: site.url('/browser-disconnect'), formats: ['markdown', 'screenshot'], timeout: 120_000, maxAge: 0 }),
    }).catch(() => 'aborted');
    await arrived;
    client.abort();
    expect(await pending).toBe('aborted');
    await closed;
  });
});
