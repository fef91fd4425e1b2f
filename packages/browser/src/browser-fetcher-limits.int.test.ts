import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { TrawlError, actionSchema, type ActionInput } from '@trawl/api-schema';
import { FixtureSite } from '@trawl/testing';
import { BrowserFetcher, type BrowserFetchRequest } from './browser-fetcher.js';
import { BrowserPool, type BrowserPoolEvent } from './browser-pool.js';

jest.setTimeout(60_000);

const site = new FixtureSite();
const events: BrowserPoolEvent[] = [];
let pool: BrowserPool;
let fetcher: BrowserFetcher;

function request(path: string, extra: Partial<BrowserFetchRequest> = {}): BrowserFetchRequest {
  return { url: site.url(path), signal: AbortSignal.timeout(45_000), timeoutMs: 45_000, maxBytes: 2_000_000, ...extra };
}

const actions = (list: ActionInput[]) => list.map((a) => actionSchema.parse(a));

/** Keeps a hog page open until it dies, however slowly it grows on a busy machine (no capture before). */
const untilKilled = actions([{ type: 'wait', selector: '#never' }]);

async function failure(promise: Promise<unknown>): Promise<TrawlError> {
  const err = await promise.then(() => undefined, (e: unknown) => e);
  if (!(err instanceof TrawlError)) throw new Error(`expected a TrawlError, got ${String(err)}`);
  return err;
}

beforeAll(async () => {
  site
    .page('/plain', '<html><body><p>Plain page</p></body></html>')
    // Grows its JavaScript heap without end, in steps, so the page loads first.
    .page('/heap-hog', `<html><body><p>hog</p><script>
      const keep = []; (function grow() { for (let i = 0; i < 20; i += 1) keep.push(new Array(250000).fill(i + Math.random())); setTimeout(grow, 0); })();
      </script></body></html>`)
    // Grows memory outside the JavaScript heap (ArrayBuffers, touched so they are resident).
    .page('/buffer-hog', `<html><body><p>hog</p><script>
      const keep = []; (function grow() { keep.push(new Uint8Array(32 * 1024 * 1024).fill(7)); setTimeout(grow, 0); })();
      </script></body></html>`)
    .page('/popups', `<html><body><p>Page with popups</p><script>
      for (let i = 0; i < 1000; i += 1) window.open('/plain', '_blank');
      document.body.insertAdjacentHTML('beforeend', '<p id="after">After the storm</p>');
      </script><button id="open" onclick="for (let i = 0; i < 20; i += 1) window.open('/plain', '_blank')">open</button></body></html>`);
  await site.start();
  pool = new BrowserPool({ pageMaxRssBytes: 256 * 1024 ** 2, onEvent: (e) => events.push(e) });
  fetcher = new BrowserFetcher({ pool, smartWaitMaxMs: 1000 });
});

afterAll(async () => {
  await pool.close();
  await site.stop();
});

describe('BrowserFetcher limits', () => {
  it('refuses an executeJavascript return over the limit, measured in the page', async () => {
    const err = await failure(fetcher.fetch(request('/plain', {
      maxActionReturnBytes: 64 * 1024,
      actions: actions([
        { type: 'executeJavascript', script: "'small'" },
        { type: 'executeJavascript', script: "'x'.repeat(50 * 1024 * 1024)" },
      ]),
    })));
    expect(err.code).toBe('SCRAPE_ACTION_RESULT_TOO_LARGE');
    expect(err.details).toEqual({ index: 1, type: 'executeJavascript', limitBytes: 64 * 1024 });
  });

  it('serializes a cyclic executeJavascript return with [Circular] in place of the cycle', async () => {
    const r = await fetcher.fetch(request('/plain', {
      actions: actions([
        { type: 'executeJavascript', script: "const a = { name: 'root', list: [1, 2n] }; a.self = a; a.list.push(a); const s = { k: 1 }; a.shared = [s, s]; return a;" },
        { type: 'executeJavascript', script: 'window' },
      ]),
    }));
    expect(r.actions?.javascriptReturns[0]).toEqual({
      type: 'object',
      value: { name: 'root', list: [1, '2', '[Circular]'], self: '[Circular]', shared: [{ k: 1 }, { k: 1 }] },
    });
    expect(r.actions?.javascriptReturns[1]?.type).toBe('object');
  });

  it('refuses a scrape action whose HTML is over the limit', async () => {
    const err = await failure(fetcher.fetch(request('/plain', {
      maxBytes: 5_000,
      actions: actions([{ type: 'executeJavascript', script: "document.body.append('y'.repeat(20000))" }, { type: 'scrape' }]),
    })));
    expect(err.code).toBe('SCRAPE_ACTION_RESULT_TOO_LARGE');
    expect(err.details).toMatchObject({ index: 1, type: 'scrape' });
  });

  it('fails a page that fills its JavaScript heap with SCRAPE_PAGE_CRASHED; the pool serves the next page', async () => {
    const err = await failure(fetcher.fetch(request('/heap-hog', { actions: untilKilled })));
    // The pool's events name the browser and what happened to it if the page did not crash.
    expect({ code: err.code, events }).toMatchObject({ code: 'SCRAPE_PAGE_CRASHED' });
    const next = await fetcher.fetch(request('/plain'));
    expect(next.text).toContain('Plain page');
    expect(pool.stats().crashes).toBe(0);
  });

  it('kills a renderer whose memory outside the heap passes the limit', async () => {
    const err = await failure(fetcher.fetch(request('/buffer-hog', { actions: untilKilled })));
    expect({ code: err.code, events }).toMatchObject({ code: 'SCRAPE_PAGE_CRASHED' });
    expect(events.some((e) => e.type === 'page-killed')).toBe(true);
    const next = await fetcher.fetch(request('/plain'));
    expect(next.text).toContain('Plain page');
    expect(pool.stats().crashes).toBe(0);
  });

  it('scrapes a page that opens a storm of popups', async () => {
    // The click is a user gesture: the popup it may open is closed by the fetcher.
    const r = await fetcher.fetch(request('/popups', { actions: actions([{ type: 'click', selector: '#open' }]) }));
    expect(r.text).toContain('After the storm');
    expect(r.url).toBe(site.url('/popups'));
  });
});
