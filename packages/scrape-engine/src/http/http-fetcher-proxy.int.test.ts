import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { TrawlError } from '@trawl/api-schema';
import { ForwardProxyFixture, MapResolver, startServer, type LocalServer } from '@trawl/testing';
import type { FetchRequest } from '../fetcher.js';
import { parseProxyList, type ProxyEndpoint } from '../proxy/proxy-pool.js';
import { HttpFetcher } from './http-fetcher.js';

// 127.0.0.2, exempted, plays a public address so that real local servers sit behind the proxy.
const PUBLIC_IP = '127.0.0.2';

async function failure(promise: Promise<unknown>): Promise<TrawlError> {
  const err = await promise.then(() => undefined, (e: unknown) => e);
  if (!(err instanceof TrawlError)) throw new Error(`expected a TrawlError, got ${String(err)}`);
  return err;
}

const endpoint = (url: string): ProxyEndpoint => {
  const [first] = parseProxyList(url);
  if (first === undefined) throw new Error('no endpoint');
  return first;
};

describe('HttpFetcher through an upstream proxy', () => {
  let dir: string;
  let site: LocalServer;
  let tlsSite: LocalServer;
  let internal: LocalServer;
  let open: ForwardProxyFixture;
  let locked: ForwardProxyFixture;
  let fetcher: HttpFetcher;
  const req = (url: string, proxy: ProxyEndpoint, extra: Partial<FetchRequest> = {}): FetchRequest => ({
    url, proxy, signal: new AbortController().signal, maxBytes: 100_000, ...extra,
  });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trawl-proxy-tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', `/CN=${PUBLIC_IP}`,
      '-addext', `subjectAltName=IP:${PUBLIC_IP}`], { stdio: 'ignore' });
    const tls = { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
    site = await startServer((request, res) => {
      if (request.url === '/login') {
        res.writeHead(302, { location: '/account', 'set-cookie': 'session=s1; Path=/' }).end();
      } else if (request.url === '/account') {
        res.writeHead(200, { 'content-type': 'text/plain' }).end(`cookie=${request.headers.cookie ?? ''}`);
      } else if (request.url === '/hang') {
        // Never answers: the deadline must end the fetch.
      } else {
        const auth = request.headers['proxy-authorization'] ?? 'none';
        res.writeHead(200, { 'content-type': 'text/plain' }).end(`plain page; proxy-authorization=${auth}`);
      }
    }, { host: PUBLIC_IP });
    tlsSite = await startServer((_r, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('tls page'), {
      host: PUBLIC_IP, tls,
    });
    internal = await startServer((_r, res) => res.end('internal secret'));
    open = await new ForwardProxyFixture().start();
    locked = await new ForwardProxyFixture({ credentials: { username: 'us er', password: 'p@ss:word' } }).start();
    fetcher = new HttpFetcher({
      resolver: new MapResolver({ 'internal.test': ['127.0.0.1'], 'metadata.test': ['169.254.169.254'] }),
      exemptAddresses: [PUBLIC_IP],
    });
  });

  afterAll(async () => {
    await fetcher.close();
    await Promise.all([open.close(), locked.close(), site.close(), tlsSite.close(), internal.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    open.requests.length = 0;
    locked.requests.length = 0;
    open.failWith = undefined;
  });

  it('fetches an http target as an absolute-form request through the proxy', async () => {
    const url = `http://${PUBLIC_IP}:${site.port}/page`;
    const r = await fetcher.fetch(req(url, endpoint(open.url)));
    expect({ status: r.statusCode, text: r.text }).toEqual({ status: 200, text: 'plain page; proxy-authorization=none' });
    expect(open.requests).toEqual([{ method: 'GET', target: url, authorized: true }]);
  });

  it('fetches an https target through a CONNECT tunnel, verifying the target certificate', async () => {
    const url = `https://${PUBLIC_IP}:${tlsSite.port}/`;
    const r = await fetcher.fetch(req(url, endpoint(open.url), { skipTlsVerification: true }));
    expect({ status: r.statusCode, text: r.text }).toEqual({ status: 200, text: 'tls page' });
    expect(open.requests).toEqual([{ method: 'CONNECT', target: `${PUBLIC_IP}:${tlsSite.port}`, authorized: true }]);
    const err = await failure(fetcher.fetch(req(url, endpoint(open.url))));
    expect(err.code).toBe('SCRAPE_TLS_ERROR');
  });

  it('sends the URL credentials (percent-decoded) and never the client\'s Proxy-Authorization', async () => {
    const proxy = endpoint(locked.urlWithCredentials);
    const forged = { 'Proxy-Authorization': 'Basic Zm9yZ2VkOmZvcmdlZA==' };
    const r = await fetcher.fetch(req(`http://${PUBLIC_IP}:${site.port}/`, proxy, { headers: forged }));
    expect(r.text).toBe('plain page; proxy-authorization=none');
    await fetcher.fetch(req(`https://${PUBLIC_IP}:${tlsSite.port}/`, proxy, { skipTlsVerification: true }));
    expect(locked.requests.map((x) => [x.method, x.authorized])).toEqual([['GET', true], ['CONNECT', true]]);
  });

  it.each([
    ['an http target (407 response)', () => `http://${PUBLIC_IP}:${site.port}/`, 'GET'],
    ['an https target (407 to CONNECT)', () => `https://${PUBLIC_IP}:${tlsSite.port}/`, 'CONNECT'],
  ])('maps missing proxy credentials to SCRAPE_PROXY_ERROR for %s', async (_label, url, method) => {
    const err = await failure(fetcher.fetch(req(url(), endpoint(locked.url), { skipTlsVerification: true })));
    expect({ code: err.code, retryable: err.retryable, details: err.details }).toEqual({
      code: 'SCRAPE_PROXY_ERROR', retryable: false, details: { proxyStatus: 407 },
    });
    expect(locked.requests.map((x) => [x.method, x.authorized])).toEqual([[method, false]]);
    const wrong = endpoint(`http://us%20er:wrong@127.0.0.1:${locked.port}`);
    expect((await failure(fetcher.fetch(req(url(), wrong, { skipTlsVerification: true })))).code).toBe('SCRAPE_PROXY_ERROR');
  });

  it('maps a 5xx answer to CONNECT to a retryable SCRAPE_PROXY_ERROR', async () => {
    open.failWith = 502;
    const err = await failure(fetcher.fetch(req(`https://${PUBLIC_IP}:${tlsSite.port}/`, endpoint(open.url))));
    expect({ code: err.code, retryable: err.retryable, details: err.details }).toEqual({
      code: 'SCRAPE_PROXY_ERROR', retryable: true, details: { proxyStatus: 502 },
    });
  });

  it('maps an unreachable proxy to a retryable SCRAPE_PROXY_ERROR', async () => {
    const gone = await startServer(() => undefined);
    await gone.close();
    const err = await failure(fetcher.fetch(req(`http://${PUBLIC_IP}:${site.port}/`, endpoint(`http://127.0.0.1:${gone.port}`))));
    expect({ code: err.code, retryable: err.retryable, details: err.details }).toEqual({
      code: 'SCRAPE_PROXY_ERROR', retryable: true, details: { errorCode: 'ECONNREFUSED' },
    });
  });

  it.each([
    ['a loopback literal', () => `http://127.0.0.1:${internal.port}/`],
    ['localhost over https', () => `https://localhost:${internal.port}/`],
    ['a name resolving to loopback', () => `http://internal.test:${internal.port}/`],
    ['a name resolving to the metadata address', () => 'https://metadata.test/latest/'],
  ])('blocks %s before anything reaches the proxy', async (_label, url) => {
    const err = await failure(fetcher.fetch(req(url(), endpoint(open.url))));
    expect(err.code).toBe('SCRAPE_BLOCKED_TARGET');
    expect(open.requests).toEqual([]);
    expect(internal.hits).toEqual([]);
  });

  it('checks every redirect hop and keeps cookies across hops', async () => {
    const r = await fetcher.fetch(req(`http://${PUBLIC_IP}:${site.port}/login`, endpoint(open.url)));
    expect({ text: r.text, redirects: r.redirects }).toEqual({
      text: 'cookie=session=s1', redirects: [`http://${PUBLIC_IP}:${site.port}/account`],
    });
    expect(open.requests.map((x) => x.target)).toEqual([
      `http://${PUBLIC_IP}:${site.port}/login`, `http://${PUBLIC_IP}:${site.port}/account`,
    ]);
    const bounce = await startServer((_r, res) => res.writeHead(302, { location: `http://internal.test:${internal.port}/` }).end(), {
      host: PUBLIC_IP,
    });
    try {
      const err = await failure(fetcher.fetch(req(`http://${PUBLIC_IP}:${bounce.port}/`, endpoint(open.url))));
      expect(err.code).toBe('SCRAPE_BLOCKED_TARGET');
      expect(internal.hits).toEqual([]);
    } finally {
      await bounce.close();
    }
  });

  it('ends with SCRAPE_TIMEOUT when the deadline passes through the proxy', async () => {
    const err = await failure(fetcher.fetch(req(`http://${PUBLIC_IP}:${site.port}/hang`, endpoint(open.url), {
      signal: AbortSignal.timeout(200),
    })));
    expect(err.code).toBe('SCRAPE_TIMEOUT');
  });

  it('fails closed when the target name does not resolve here', async () => {
    const err = await failure(fetcher.fetch(req('http://nowhere.test/', endpoint(open.url))));
    expect(err.code).toBe('SCRAPE_DNS_RESOLUTION_ERROR');
    expect(open.requests).toEqual([]);
  });

  it('resolves the proxy\'s host name with the proxy resolver (the system\'s cannot), not with the targets\'', async () => {
    const targets = new MapResolver({});
    const proxies = new MapResolver({ 'proxy.test': ['127.0.0.1'] });
    const named = new HttpFetcher({ resolver: targets, proxyResolver: proxies, exemptAddresses: [PUBLIC_IP] });
    try {
      const viaName = endpoint(`http://proxy.test:${open.port}`);
      const plain = await named.fetch(req(`http://${PUBLIC_IP}:${site.port}/page`, viaName));
      const tunnelled = await named.fetch(req(`https://${PUBLIC_IP}:${tlsSite.port}/`, viaName, { skipTlsVerification: true }));
      expect([plain.text, tunnelled.text]).toEqual(['plain page; proxy-authorization=none', 'tls page']);
      expect(open.requests.map((r) => r.method)).toEqual(['GET', 'CONNECT']);
      expect(proxies.calls.length).toBeGreaterThan(0);
      expect(targets.calls).toEqual([]);
      // A proxy name nobody knows: retryable, as an unreachable proxy.
      const err = await failure(named.fetch(req(`http://${PUBLIC_IP}:${site.port}/`, endpoint(`http://nowhere.test:${open.port}`))));
      expect({ code: err.code, retryable: err.retryable, details: err.details }).toEqual({
        code: 'SCRAPE_PROXY_ERROR', retryable: true, details: { errorCode: 'ENOTFOUND' },
      });
    } finally {
      await named.close();
    }
  });

  it('reaches loopback through the proxy when private targets are allowed', async () => {
    const permissive = new HttpFetcher({ allowPrivateTargets: true });
    try {
      const r = await permissive.fetch(req(`http://127.0.0.1:${internal.port}/`, endpoint(open.url)));
      expect(r.text).toBe('internal secret');
      expect(open.requests).toHaveLength(1);
    } finally {
      await permissive.close();
      internal.hits.length = 0;
    }
  });
});
