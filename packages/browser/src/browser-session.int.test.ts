import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { EventEmitter, once } from 'node:events';
import { readFile, readdir } from 'node:fs/promises';
import { TrawlError } from '@trawl/api-schema';
import { TargetGuard } from '@trawl/net-guard';
import { EgressProxy, type EgressRoute, type ProxyEndpoint } from '@trawl/scrape-engine';
import { FixtureSite, waitFor } from '@trawl/testing';
import type { BrowserContext } from 'playwright-core';
import { BrowserFetcher, SESSION_COLLECT_EVERY, type BrowserFetchRequest } from './browser-fetcher.js';
import { BrowserPool, childBrowserPids } from './browser-pool.js';

jest.setTimeout(30_000);

/** Counts the routes the fetcher opens and closes. */
class CountingEgress extends EgressProxy {
  routesOpened = 0;
  routesClosed = 0;

  override async openRoute(upstream: ProxyEndpoint | null): Promise<EgressRoute> {
    const route = await super.openRoute(upstream);
    this.routesOpened += 1;
    const close = route.close.bind(route);
    route.close = async () => {
      this.routesClosed += 1;
      await close();
    };
    return route;
  }
}

/** Renderer processes below this process's Chromium children. */
async function rendererPids(): Promise<number[]> {
  const browsers = new Set(await childBrowserPids());
  const out: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '');
    if (!cmdline.includes('--type=renderer')) continue;
    const status = await readFile(`/proc/${name}/status`, 'utf8').catch(() => '');
    let ppid = Number(/^PPid:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    // Renderers are children of the zygote, itself below the browser.
    for (let hops = 0; ppid > 1 && hops < 8; hops += 1) {
      if (browsers.has(ppid)) { out.push(Number(name)); break; }
      const parent = await readFile(`/proc/${ppid}/status`, 'utf8').catch(() => '');
      ppid = Number(/^PPid:\s+(\d+)/m.exec(parent)?.[1] ?? 0);
    }
  }
  return out;
}

describe('BrowserFetcher sessions (the pages of one crawl)', () => {
  const site = new FixtureSite();
  const hangArrived = new EventEmitter();
  let egress: CountingEgress;
  let pool: BrowserPool;
  let fetcher: BrowserFetcher;
  const request = (path: string, extra: Partial<BrowserFetchRequest> = {}): BrowserFetchRequest => ({
    url: site.url(path), signal: AbortSignal.timeout(20_000), timeoutMs: 20_000, maxBytes: 1_000_000, ...extra,
  });
  const cookieSeen = async (session: string | undefined): Promise<boolean> => {
    const page = await fetcher.fetch(request('/cookie', session ? { session } : {}));
    return /seen=yes/.test(page.text ?? '');
  };

  beforeAll(async () => {
    site
      .route('/set', (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'seen=yes; Path=/' });
        res.end('<p>cookie set</p>');
      })
      .route('/cookie', (req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(`<p>cookie: [${req.headers.cookie ?? ''}]</p><p id="js"></p><script>document.getElementById('js').textContent = 'rendered'</script>`);
      })
      .route('/hang', (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<p>busy</p><script>setTimeout(() => { while (true) {} }, 0)</script>');
        hangArrived.emit('arrived');
      });
    await site.start();
    egress = new CountingEgress({ guard: new TargetGuard({ exemptAddresses: ['127.0.0.1'] }) });
    await egress.start();
    // The egress's own direct route (opened by start) is not the fetcher's.
    egress.routesOpened = 0;
    egress.routesClosed = 0;
    pool = new BrowserPool({ sessionIdleMs: 60_000 });
    fetcher = new BrowserFetcher({ pool, egress, smartWaitMaxMs: 1000 });
  });

  afterAll(async () => {
    await pool.close();
    await egress.close();
    await site.stop();
  });

  it('shares a context among the pages of one crawl, never with another crawl or team', async () => {
    await fetcher.fetch(request('/set', { session: 'team-a:crawl-1' }));
    expect(pool.idleContexts()).toBe(1);
    const page = await fetcher.fetch(request('/cookie', { session: 'team-a:crawl-1' }));
    expect(page.text).toContain('seen=yes');
    expect(page.text).toContain('rendered');
    expect(await cookieSeen('team-a:crawl-2')).toBe(false);
    expect(await cookieSeen('team-b:crawl-1')).toBe(false);
    expect(await cookieSeen(undefined)).toBe(false);
    // Different browser settings make another context, even within the crawl.
    const mobile = await fetcher.fetch(request('/cookie', { session: 'team-a:crawl-1', mobile: true }));
    expect(mobile.text).not.toContain('seen=yes');
    // Actions never run in a shared context.
    const withActions = await fetcher.fetch(request('/cookie', { session: 'team-a:crawl-1', actions: [{ type: 'wait', milliseconds: 1 }] }));
    expect(withActions.text).not.toContain('seen=yes');
  });

  it('keeps one egress route for the pages of a session while its context is kept', async () => {
    const opened = egress.routesOpened;
    const closed = egress.routesClosed;
    const kept = pool.idleContexts();
    await fetcher.fetch(request('/cookie', { session: 'team-c:crawl-9' }));
    await fetcher.fetch(request('/cookie', { session: 'team-c:crawl-9' }));
    // One route for the two pages of the session, still open while its context is kept.
    expect(egress.routesOpened - opened).toBe(1);
    expect(egress.routesClosed - closed).toBe(0);
    expect(pool.idleContexts()).toBe(kept + 1);
  });

  it('follows a session page from one set of Playwright listeners, whatever the number of pages it serves', async () => {
    // Each listener added or removed was a Playwright call: the context's request tracking and the
    // page's main-frame watch stay for the context's life and start over with each page.
    const contexts = new Set<BrowserContext>();
    const withContext = pool.withContext.bind(pool);
    const spied: typeof pool.withContext = (opts, fn) => withContext(opts, (context, lease) => {
      contexts.add(context);
      return fn(context, lease);
    });
    pool.withContext = spied;
    try {
      for (let i = 0; i < 3; i++) expect((await fetcher.fetch(request('/cookie', { session: 'team-f:crawl-1' }))).text).toContain('rendered');
    } finally {
      pool.withContext = withContext;
    }
    expect(contexts.size).toBe(1);
    const [context] = [...contexts];
    // Playwright's objects are event emitters (its types do not say so).
    const listeners = (emitter: object, events: string[]) => events.map((e) => (emitter as EventEmitter).listenerCount(e));
    expect(listeners(context!, ['request', 'requestfinished', 'requestfailed'])).toEqual([1, 1, 1]);
    expect(context!.pages()).toHaveLength(1);
    expect(listeners(context!.pages()[0]!, ['response', 'requestfailed'])).toEqual([1, 1]);
  });

  it("collects a session page's JavaScript heap after every SESSION_COLLECT_EVERY fetches, and never a page of no session", async () => {
    const before = fetcher.sessionCollections;
    for (let i = 0; i < 2 * SESSION_COLLECT_EVERY; i++) await fetcher.fetch(request('/cookie', { session: 'team-e:crawl-1' }));
    // Counted once the browser has answered the collection (sent, not awaited, by the fetch).
    await waitFor(() => fetcher.sessionCollections - before === 2, { what: 'two collections done' });
    for (let i = 0; i < SESSION_COLLECT_EVERY; i++) await fetcher.fetch(request('/cookie'));
    // The collected page serves the session's next page as before.
    expect((await fetcher.fetch(request('/cookie', { session: 'team-e:crawl-1' }))).text).toContain('rendered');
    expect(fetcher.sessionCollections - before).toBe(2);
  });

  it('never reuses the context of a crashed page', async () => {
    const session = 'team-d:crawl-1';
    await fetcher.fetch(request('/set', { session }));
    const arrived = once(hangArrived, 'arrived');
    const hanging = fetcher.fetch(request('/hang', { session })).then(() => undefined, (e: unknown) => e);
    await arrived;
    for (const pid of await rendererPids()) process.kill(pid, 'SIGKILL');
    const err = await hanging;
    expect(err).toBeInstanceOf(TrawlError);
    expect((err as TrawlError).code).toBe('SCRAPE_PAGE_CRASHED');
    // The next page of the session gets a fresh context: no cookie, rendered.
    const page = await fetcher.fetch(request('/cookie', { session }));
    expect(page.text).not.toContain('seen=yes');
    expect(page.text).toContain('rendered');
  });

  it('closes every kept context and its route on pool close', async () => {
    await pool.close();
    expect(pool.idleContexts()).toBe(0);
    expect(egress.routesClosed).toBe(egress.routesOpened);
  });
});
