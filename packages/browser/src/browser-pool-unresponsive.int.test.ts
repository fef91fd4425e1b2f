import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TrawlError } from '@trawl/api-schema';
import { FixtureSite } from '@trawl/testing';
import { BrowserFetcher, type BrowserFetchRequest } from './browser-fetcher.js';
import { BrowserPool, type BrowserPoolEvent } from './browser-pool.js';

const site = new FixtureSite();
const events: BrowserPoolEvent[] = [];
let pool: BrowserPool;
let fetcher: BrowserFetcher;

function request(timeoutMs: number): BrowserFetchRequest {
  return { url: site.url('/plain'), signal: AbortSignal.timeout(timeoutMs), timeoutMs, maxBytes: 1_000_000 };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  site.page('/plain', '<html><body><p>Plain page</p></body></html>');
  await site.start();
  pool = new BrowserPool({ unresponsiveAfterMs: 1000, onEvent: (e) => events.push(e) });
  fetcher = new BrowserFetcher({ pool, smartWaitMaxMs: 500 });
});

afterAll(async () => {
  await pool.close();
  await site.stop();
});

describe('BrowserPool with a browser that stops answering', () => {
  it('ends the job at its deadline, kills the hung browser and serves the next job from a new one', async () => {
    expect((await fetcher.fetch(request(20_000))).text).toContain('Plain page');
    const launched = events.find((e) => e.type === 'launched');
    const pid = launched?.type === 'launched' ? launched.pid : undefined;
    if (pid === undefined) throw new Error('the pool found no browser pid');
    // A stopped process answers nothing: every call to it (a new context first) waits for ever.
    process.kill(pid, 'SIGSTOP');

    const err = await fetcher.fetch(request(1500)).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(TrawlError);
    expect((err as TrawlError).code).toBe('SCRAPE_TIMEOUT');
    expect(events).toContainEqual({ type: 'recycled', flavor: 'standard', reason: 'unresponsive' });

    expect((await fetcher.fetch(request(20_000))).text).toContain('Plain page');
    expect(events.filter((e) => e.type === 'launched')).toHaveLength(2);
    expect(pool.stats()).toMatchObject({ browsers: 1, crashes: 0 });
    expect(alive(pid)).toBe(false);
  });
});
