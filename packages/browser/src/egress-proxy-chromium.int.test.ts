import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ForwardProxyFixture, startServer, type LocalServer } from '@trawl/testing';
import { chromium, type Browser } from 'playwright-core';
import { TargetGuard } from '@trawl/net-guard';
import { EgressProxy, parseProxyList, type ProxyEndpoint } from '@trawl/scrape-engine';
import { CHROMIUM_ARGS } from './browser-pool.js';
import { egressContextProxy } from './egress-context-proxy.js';

const CHROMIUM = '/usr/bin/chromium';
// 127.0.0.2, exempted, plays a public site; 127.0.0.1 stays blocked.
const PUBLIC_IP = '127.0.0.2';
// No launch-level proxy: each context gets its own egress route.
const ARGS = [...CHROMIUM_ARGS];

const endpoint = (url: string): ProxyEndpoint => {
  const [first] = parseProxyList(url);
  if (first === undefined) throw new Error('no endpoint');
  return first;
};

(existsSync(CHROMIUM) ? describe : describe.skip)('EgressProxy with Chromium', () => {
  let dir: string;
  let site: LocalServer;
  let tlsSite: LocalServer;
  let internal: LocalServer;
  let upstream: ForwardProxyFixture;
  let egress: EgressProxy;
  let browser: Browser;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trawl-egress-tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', `/CN=${PUBLIC_IP}`,
      '-addext', `subjectAltName=IP:${PUBLIC_IP},IP:127.0.0.1`], { stdio: 'ignore' });
    const tls = { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
    const page = (title: string) => (_r: unknown, res: import('node:http').ServerResponse) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><head><title>${title}</title></head><body>ok</body></html>`);
    site = await startServer(page('through the chain'), { host: PUBLIC_IP });
    tlsSite = await startServer(page('tls through the chain'), { host: PUBLIC_IP, tls });
    internal = await startServer(page('internal'), { tls });
    upstream = await new ForwardProxyFixture({ credentials: { username: 'scraper', password: 'pw' } }).start();
    egress = new EgressProxy({ guard: new TargetGuard({ exemptAddresses: [PUBLIC_IP] }) });
    await egress.start();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await egress.close();
    await Promise.all([site.close(), tlsSite.close(), internal.close(), upstream.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('loads loopback pages through egress and upstream proxy, over http and https', async () => {
    const route = await egress.routeFor(endpoint(upstream.urlWithCredentials));
    const context = await browser.newContext({ proxy: egressContextProxy(route), ignoreHTTPSErrors: true });
    try {
      const page = await context.newPage();
      const plain = await page.goto(`http://${PUBLIC_IP}:${site.port}/`);
      expect([plain?.status(), await page.title()]).toEqual([200, 'through the chain']);
      const secure = await page.goto(`https://${PUBLIC_IP}:${tlsSite.port}/`);
      expect([secure?.status(), await page.title()]).toEqual([200, 'tls through the chain']);
    } finally {
      await context.close();
    }
    // Chromium never saw the upstream's credentials: the egress added them.
    expect(upstream.requests).toEqual(expect.arrayContaining([
      { method: 'GET', target: `http://${PUBLIC_IP}:${site.port}/`, authorized: true },
      { method: 'CONNECT', target: `${PUBLIC_IP}:${tlsSite.port}`, authorized: true },
    ]));
    expect(upstream.requests.every((r) => r.authorized)).toBe(true);
  }, 30_000);

  it('refuses a blocked main navigation and tells which', async () => {
    const route = await egress.openRoute(null);
    const context = await browser.newContext({ proxy: egressContextProxy(route.url), ignoreHTTPSErrors: true });
    try {
      const page = await context.newPage();
      const err = await page.goto(`https://127.0.0.1:${internal.port}/`).then(() => undefined, (e: unknown) => e);
      expect(String(err)).toContain('net::ERR_TUNNEL_CONNECTION_FAILED');
      expect(route.lastRefusal).toEqual({ host: '127.0.0.1', port: internal.port, code: 'SCRAPE_BLOCKED_TARGET', retryable: false, status: 403 });
      // A fresh page: the first one is busy showing Chromium's error page.
      const plain = await (await context.newPage()).goto(`http://localhost:${internal.port}/`);
      expect([plain?.status(), plain?.headers()['x-trawl-error']]).toEqual([403, 'SCRAPE_BLOCKED_TARGET']);
      expect(route.stats.blocked).toBeGreaterThanOrEqual(2);
      expect(internal.hits).toEqual([]);
    } finally {
      await context.close();
      await route.close();
    }
  }, 30_000);
});
