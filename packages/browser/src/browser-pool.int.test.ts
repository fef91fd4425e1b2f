import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { FixtureSite } from '@trawl/testing';
import { BrowserFetcher } from './browser-fetcher.js';
import { BrowserPool, processTreeMemory, processTreeRss, type BrowserPoolEvent } from './browser-pool.js';

jest.setTimeout(60_000);

const site = new FixtureSite();
const pools: BrowserPool[] = [];

beforeAll(async () => {
  site.page('/plain', '<html><body><p>Plain page</p></body></html>');
  await site.start();
});

afterAll(async () => {
  for (const pool of pools) await pool.close();
  await site.stop();
});

/** A pool and the pid its first browser reports, after one page through it. */
async function launchedPid(): Promise<number | undefined> {
  const events: BrowserPoolEvent[] = [];
  const pool = new BrowserPool({ onEvent: (e) => events.push(e) });
  pools.push(pool);
  const r = await new BrowserFetcher({ pool, smartWaitMaxMs: 500 }).fetch({
    url: site.url('/plain'), signal: AbortSignal.timeout(45_000), timeoutMs: 45_000, maxBytes: 1_000_000,
  });
  expect(r.text).toContain('Plain page');
  const launched = events.find((e) => e.type === 'launched');
  return launched?.type === 'launched' ? launched.pid : undefined;
}

describe('BrowserPool', () => {
  it('finds its own browser process when another pool\'s browser already runs in the process', async () => {
    // The memory watch kills renderers below this pid: it must be this pool's browser, not the first
    // Chromium child of the process (another pool's, or one an earlier test left running).
    const first = await launchedPid();
    const second = await launchedPid();
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    expect(await processTreeRss(second ?? 0)).toBeGreaterThan(0);
  });

  it('measures a browser by PSS, which counts the pages its processes share once, not per process', async () => {
    // The RSS sum counts Chromium's shared libraries and shared memory in every renderer: a browser
    // recycled on it was relaunched every few pages of a crawl. PSS divides each shared page among
    // the processes mapping it.
    const pid = await launchedPid();
    const { rssBytes, pssBytes } = await processTreeMemory(pid ?? 0);
    expect(pssBytes).toBeGreaterThan(0);
    expect(pssBytes).toBeLessThan(rssBytes);
  });

  it('recycles a browser whose memory passes the limit, checked every 10 contexts', async () => {
    const events: BrowserPoolEvent[] = [];
    const pool = new BrowserPool({ recycleAboveRssBytes: 1, onEvent: (e) => events.push(e) });
    pools.push(pool);
    for (let i = 0; i < 10; i += 1) {
      await pool.withContext({ flavor: 'standard', contextOptions: {}, signal: AbortSignal.timeout(45_000) }, async () => undefined);
    }
    expect(events.filter((e) => e.type === 'recycled')).toEqual([{ type: 'recycled', flavor: 'standard', reason: 'memory' }]);
    expect(pool.stats().recycles).toBe(1);
  });
});
