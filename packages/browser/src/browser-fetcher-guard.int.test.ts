import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { TrawlError } from '@trawl/api-schema';
import { TargetGuard } from '@trawl/net-guard';
import { EgressProxy, parseProxyList, type ProxyEndpoint } from '@trawl/scrape-engine';
import { ForwardProxyFixture, startServer, type LocalServer } from '@trawl/testing';
import { BrowserFetcher, type BrowserFetchRequest } from './browser-fetcher.js';
import { BrowserPool } from './browser-pool.js';
import { adBlockPlugin, cookieConsentPlugin } from './browser-plugins.js';
import { AdBlocker } from './blocking/ad-blocker.js';
import { loadConsentAssets } from './blocking/cookie-consent.js';

jest.setTimeout(30_000);

// 127.0.0.2, exempted, plays a public site; 127.0.0.1 stays blocked (as in the egress tests).
const PUBLIC_IP = '127.0.0.2';

async function failure(promise: Promise<unknown>): Promise<TrawlError> {
  const err = await promise.then(() => undefined, (e: unknown) => e);
  if (!(err instanceof TrawlError)) throw new Error(`expected a TrawlError, got ${String(err)}`);
  return err;
}

describe('BrowserFetcher target guard', () => {
  let pub: LocalServer;
  let internal: LocalServer;
  let upstream: ForwardProxyFixture;
  let gone: number;
  let egress: EgressProxy;
  let pool: BrowserPool;
  let fetcher: BrowserFetcher;
  const request = (url: string): BrowserFetchRequest => ({ url, signal: AbortSignal.timeout(20_000), timeoutMs: 20_000, maxBytes: 1_000_000 });

  beforeAll(async () => {
    internal = await startServer((_r, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<p>internal secret</p>'));
    pub = await startServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const to = url.searchParams.get('to');
      if (url.pathname === '/redirect' && to) res.writeHead(302, { location: to }).end();
      else if (url.pathname === '/script' && to) res.writeHead(200, { 'content-type': 'text/html' }).end(`<p>leaving</p><script>location.href = ${JSON.stringify(to)}</script>`);
      else if (url.pathname === '/subresource') res.writeHead(200, { 'content-type': 'text/html' }).end(`<p>public page</p><img src="http://127.0.0.1:${internal.port}/x.png">`);
      else res.writeHead(200, { 'content-type': 'text/html' }).end('<p>public page</p>');
    }, { host: PUBLIC_IP });
    // Names: `flaky.test`, whose DNS server did not answer (EAI_AGAIN); every other one does not exist.
    const resolver = {
      resolve: (host: string) => Promise.reject(Object.assign(new Error(`lookup ${host}`), { code: host === 'flaky.test' ? 'EAI_AGAIN' : 'ENOTFOUND' })),
    };
    upstream = await new ForwardProxyFixture({ credentials: { username: 'scraper', password: 'pw' } }).start();
    const closed = await startServer(() => undefined);
    gone = closed.port;
    await closed.close();
    egress = new EgressProxy({ guard: new TargetGuard({ exemptAddresses: [PUBLIC_IP], resolver }) });
    await egress.start();
    pool = new BrowserPool();
    fetcher = new BrowserFetcher({ pool, egress, smartWaitMaxMs: 1500, plugins: [cookieConsentPlugin(await loadConsentAssets()), adBlockPlugin(await AdBlocker.load())] });
  });

  afterAll(async () => {
    await pool.close();
    await egress.close();
    await Promise.all([pub.close(), internal.close(), upstream.close()]);
  });

  it('fails a navigation to a blocked address with SCRAPE_BLOCKED_TARGET', async () => {
    const err = await failure(fetcher.fetch(request(`http://127.0.0.1:${internal.port}/`)));
    expect(err.code).toBe('SCRAPE_BLOCKED_TARGET');
  });

  it('fails a redirect to a blocked address with SCRAPE_BLOCKED_TARGET', async () => {
    const err = await failure(fetcher.fetch(request(`http://${PUBLIC_IP}:${pub.port}/redirect?to=${encodeURIComponent(`http://127.0.0.1:${internal.port}/`)}`)));
    expect(err.code).toBe('SCRAPE_BLOCKED_TARGET');
  });

  it('fails a script navigation to a blocked address with SCRAPE_BLOCKED_TARGET', async () => {
    const err = await failure(fetcher.fetch(request(`http://${PUBLIC_IP}:${pub.port}/script?to=${encodeURIComponent(`http://127.0.0.1:${internal.port}/`)}`)));
    expect(err.code).toBe('SCRAPE_BLOCKED_TARGET');
  });

  it('fails a script navigation to a blocked https address (a refused tunnel) with SCRAPE_BLOCKED_TARGET', async () => {
    const err = await failure(fetcher.fetch(request(`http://${PUBLIC_IP}:${pub.port}/script?to=${encodeURIComponent(`https://127.0.0.1:${internal.port}/`)}`)));
    expect(err.code).toBe('SCRAPE_BLOCKED_TARGET');
  });

  it.each([
    ['http://flaky.test', true],
    ['https://flaky.test', true],
    ['http://missing.test', false],
  ])('fails %s with SCRAPE_DNS_RESOLUTION_ERROR, retryable %s as the lookup was', async (origin, retryable) => {
    const err = await failure(fetcher.fetch(request(`${origin}:${pub.port}/`)));
    expect([err.code, err.retryable]).toEqual(['SCRAPE_DNS_RESOLUTION_ERROR', retryable]);
  });

  it.each([
    ['refuses the credentials (407: configuration, not retried)', () => `http://scraper:wrong@127.0.0.1:${upstream.port}`, false],
    ['cannot be reached (retried)', () => `http://127.0.0.1:${gone}`, true],
  ])('fails an https page whose upstream proxy %s with SCRAPE_PROXY_ERROR, retryable as the egress judged', async (_label, proxyUrl, retryable) => {
    const [proxy] = parseProxyList(proxyUrl()) as [ProxyEndpoint];
    const err = await failure(fetcher.fetch({ ...request(`https://${PUBLIC_IP}:${pub.port}/`), proxy }));
    expect([err.code, err.retryable]).toEqual(['SCRAPE_PROXY_ERROR', retryable]);
  });

  it('scrapes a page whose blocked subresource is refused', async () => {
    const r = await fetcher.fetch(request(`http://${PUBLIC_IP}:${pub.port}/subresource`));
    expect(r.text).toContain('public page');
    expect(internal.hits).toEqual([]);
  });
});
