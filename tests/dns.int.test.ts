import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FakeDnsServer, FixtureSite, waitFor } from '@trawl/testing';
import { TestCluster } from './helpers/cluster.js';

/**
 * Host names of scrape targets resolve through the worker's own resolver (`TRAWL_DNS_SERVERS`, here
 * a fake DNS server): a name is looked up once and then served from the cache; a name whose DNS
 * server never answers fails each attempt within `TRAWL_DNS_TIMEOUT_MS` as SCRAPE_DNS_RESOLUTION_ERROR,
 * and does not hold the lookups of other names (the system resolver runs two lookups at a time, each
 * up to 10 s or more: three dead names ahead held every new connection of the process).
 */
const page = (name: string) => `<html><head><title>${name}</title></head><body><main><p>Page ${name}, reached by its host name.</p></main></body></html>`;

let site: FixtureSite;
let dns: FakeDnsServer;
let cluster: TestCluster;

beforeAll(async () => {
  site = new FixtureSite();
  for (const name of ['a', 'b', 'c']) site.page(`/${name}`, page(name));
  // Answers and closes its connection: the next fetch of the site opens one, and looks its host up.
  site.route('/closing', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html', connection: 'close' });
    res.end(page('closing'));
  });
  await site.start();
  dns = await FakeDnsServer.start({
    'site.test': { a: ['127.0.0.1'] },
    'other.test': { a: ['127.0.0.1'] },
    'dead-1.test': { silent: true },
    'dead-2.test': { silent: true },
    'dead-3.test': { silent: true },
  });
  cluster = await TestCluster.start({ TRAWL_DNS_SERVERS: dns.server, TRAWL_DNS_TIMEOUT_MS: '1000' });
  // Slots for every scrape at once: the live name must not wait for a slot the dead ones hold.
  ({ key } = await cluster.team({ concurrency: 8 }));
}, 60_000);

afterAll(async () => {
  await cluster.stop();
  await dns.close();
  await site.stop();
});

let key: string;
const scrape = (host: string, path: string) =>
  cluster.call('POST', '/v2/scrape', { key, body: { url: `http://${host}:${site.port}${path}`, timeout: 20_000, maxAge: 0 } });

async function workerMetrics(): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${cluster.worker!.metricsPort}/metrics`);
  return res.text();
}

describe('host names resolved by the worker', () => {
  it('resolves a target through the configured DNS server once, then from the cache', async () => {
    const first = await scrape('site.test', '/closing');
    expect(first.status).toBe(200);
    expect(first.body.data.markdown).toContain('Page closing, reached by its host name.');
    const asked = dns.count('site.test', 'A');
    expect(asked).toBeGreaterThanOrEqual(1);
    // A new connection: its lookup comes from the cache, DNS is not asked again.
    const second = await scrape('site.test', '/b');
    expect(second.status).toBe(200);
    expect(dns.count('site.test', 'A')).toBe(asked);
    const metrics = await workerMetrics();
    expect(metrics).toMatch(/trawl_dns_lookup_seconds_count\{(?=[^}]*resolver="targets")[^}]*source="dns"[^}]*\} [1-9]/);
    expect(metrics).toMatch(/trawl_dns_lookup_seconds_count\{(?=[^}]*resolver="targets")[^}]*source="cache"[^}]*\} [1-9]/);
  });

  it("counts an upstream proxy's lookups apart from the targets'", async () => {
    // A cluster of its own whose proxy is a name no resolver knows (the system's: proxies are the
    // operator's endpoints, looked up through the system's servers, not TRAWL_DNS_SERVERS).
    const proxied = await TestCluster.start({ TRAWL_DNS_SERVERS: dns.server, TRAWL_DNS_TIMEOUT_MS: '1000', TRAWL_PROXY_BASIC: 'http://proxy.test:9' });
    try {
      const { key: proxiedKey } = await proxied.team({ concurrency: 2 });
      const r = await proxied.call('POST', '/v2/scrape', { key: proxiedKey, body: { url: `http://site.test:${site.port}/a`, proxy: 'basic', timeout: 30_000, maxAge: 0 } });
      expect([r.status, r.body.code]).toEqual([502, 'SCRAPE_PROXY_ERROR']);
      const metrics = await (await fetch(`http://127.0.0.1:${proxied.worker!.metricsPort}/metrics`)).text();
      expect(metrics).toMatch(/trawl_dns_lookup_seconds_count\{(?=[^}]*resolver="proxies")[^}]*source="failed"[^}]*\} [1-9]/);
      // The target's name is the proxy's to resolve: the worker never looked it up.
      expect(metrics).not.toMatch(/trawl_dns_lookup_seconds_count\{[^}]*resolver="targets"/);
    } finally {
      await proxied.stop();
    }
  }, 60_000);

  it('a name whose DNS server never answers fails in bounded time and does not hold other names', async () => {
    const deadNames = ['dead-1.test', 'dead-2.test', 'dead-3.test'];
    let deadAnswered = 0;
    const dead = deadNames.map((host) => scrape(host, '/a').finally(() => { deadAnswered += 1; }));
    // The dead names' lookups are out (the fake server has their questions) before this one is asked.
    await waitFor(() => deadNames.every((name) => dns.count(name, 'A') >= 1), { what: 'the dead names to be asked' });
    const live = await scrape('other.test', '/c');
    expect(live.status).toBe(200);
    expect(live.body.data.markdown).toContain('Page c');
    // The live name did not wait for the dead ones' limit: none of them has been answered yet.
    expect(deadAnswered).toBe(0);
    for (const r of await Promise.all(dead)) {
      // Answered by the DNS limit (1 s an attempt, three attempts with backoff), not by the scrape's own
      // 20 s timeout (408 SCRAPE_TIMEOUT).
      expect(r.status).toBe(500);
      expect(r.body).toMatchObject({ success: false, code: 'SCRAPE_DNS_RESOLUTION_ERROR' });
    }
    expect(dns.count('dead-1.test', 'A')).toBeGreaterThanOrEqual(1);
    expect(await workerMetrics()).toMatch(/trawl_dns_lookup_seconds_count\{[^}]*source="failed"[^}]*\} [1-9]/);
  });
});
