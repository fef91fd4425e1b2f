import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TrawlError } from '@trawl/api-schema';
import type { FetchRequest } from '../fetcher.js';
import { TargetGuard } from '@trawl/net-guard';
import { HttpFetcher } from './http-fetcher.js';
import { MapResolver, startServer, type LocalServer } from '@trawl/testing';

// "Public" stands for an address the guard lets through: 127.0.0.2, exempted below, plays that part
// so that a real local server can sit behind it (Linux answers on all of 127/8).
const PUBLIC_IP = '127.0.0.2';
const signal = (): AbortSignal => new AbortController().signal;

async function failure(promise: Promise<unknown>): Promise<TrawlError> {
  const err = await promise.then(() => undefined, (e: unknown) => e);
  if (!(err instanceof TrawlError)) throw new Error(`expected a TrawlError, got ${String(err)}`);
  return err;
}

describe('HttpFetcher target guard', () => {
  let internal: LocalServer;
  let pub: LocalServer;
  let resolver: MapResolver;
  let fetcher: HttpFetcher;
  const req = (url: string): FetchRequest => ({ url, signal: signal(), maxBytes: 100_000 });

  beforeAll(async () => {
    pub = await startServer((request, res) => {
      const to = new URL(request.url ?? '/', 'http://x').searchParams.get('to');
      if (to !== null) res.writeHead(302, { location: to }).end();
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('public page');
    }, { host: PUBLIC_IP });
    // Same port on the blocked address when free, so a rebinding name would reach it if the guard failed.
    internal = await startServer((_r, res) => res.end('internal secret'), { port: pub.port }).catch(
      () => startServer((_r, res) => res.end('internal secret')),
    );
    resolver = new MapResolver({
      'public.test': [PUBLIC_IP],
      'internal.test': ['127.0.0.1'],
      'metadata.test': ['169.254.169.254'],
      'rebind.test': [PUBLIC_IP, '127.0.0.1'],
    });
    fetcher = new HttpFetcher({ resolver, exemptAddresses: [PUBLIC_IP] });
  });

  afterAll(async () => {
    await fetcher.close();
    await Promise.all([internal.close(), pub.close()]);
  });

  it('reaches an allowed address', async () => {
    const r = await fetcher.fetch(req(`http://public.test:${pub.port}/`));
    expect(r.text).toBe('public page');
  });

  it.each([
    ['an IPv4 loopback literal', () => `http://127.0.0.1:${internal.port}/`, 'loopback'],
    ['an IPv6 loopback literal', () => `http://[::1]:${internal.port}/`, 'loopback'],
    ['a mapped IPv6 literal', () => `http://[::ffff:127.0.0.1]:${internal.port}/`, 'loopback (ipv4-mapped)'],
    ['a decimal IPv4 literal', () => `http://2130706433:${internal.port}/`, 'loopback'],
    ['localhost', () => `http://localhost:${internal.port}/`, 'loopback'],
    ['a name resolving to loopback', () => `http://internal.test:${internal.port}/`, 'loopback'],
    ['a name resolving to the metadata address', () => 'http://metadata.test/latest/meta-data/', 'cloud-metadata'],
    ['a loopback literal behind credentials', () => `http://user:pw@127.0.0.1:${internal.port}/`, 'loopback'],
    ['a blocked name behind credentials', () => `http://public.test:x@internal.test:${internal.port}/`, 'loopback'],
  ])('blocks %s', async (_label, url, reason) => {
    const err = await failure(fetcher.fetch(req(url())));
    expect(err.code).toBe('SCRAPE_BLOCKED_TARGET');
    expect(err.details).toMatchObject({ reason });
    expect(internal.hits).toEqual([]);
  });

  it.each([
    ['a blocked name', () => `http://internal.test:${internal.port}/`],
    ['a blocked literal', () => `http://127.0.0.1:${internal.port}/`],
  ])('blocks a redirect from an allowed host to %s', async (_label, target) => {
    const url = `http://public.test:${pub.port}/?to=${encodeURIComponent(target())}`;
    expect((await failure(fetcher.fetch(req(url)))).code).toBe('SCRAPE_BLOCKED_TARGET');
    expect(internal.hits).toEqual([]);
  });

  it('blocks DNS rebinding: the address checked is the one connected to', async () => {
    const early = new TargetGuard({ resolver, exemptAddresses: [PUBLIC_IP] });
    await expect(early.resolveChecked('rebind.test')).resolves.toEqual([{ address: PUBLIC_IP, family: 4 }]);
    const err = await failure(fetcher.fetch(req(`http://rebind.test:${pub.port}/`)));
    expect(err.code).toBe('SCRAPE_BLOCKED_TARGET');
    expect(resolver.calls.filter((h) => h === 'rebind.test')).toHaveLength(2);
    expect(internal.hits).toEqual([]);
  });

  it('maps DNS failures and bad schemes', async () => {
    expect((await failure(fetcher.fetch(req('http://nowhere.test/')))).code).toBe('SCRAPE_DNS_RESOLUTION_ERROR');
    expect((await failure(fetcher.fetch(req('ftp://public.test/')))).code).toBe('SCRAPE_INVALID_URL');
    expect((await failure(fetcher.fetch(req('not a url')))).code).toBe('SCRAPE_INVALID_URL');
  });

  it('reaches loopback when private targets are allowed', async () => {
    const open = new HttpFetcher({ allowPrivateTargets: true });
    try {
      const r = await open.fetch(req(`http://127.0.0.1:${internal.port}/`));
      expect(r.text).toBe('internal secret');
    } finally {
      await open.close();
      internal.hits.length = 0;
    }
  });
});

describe('HttpFetcher connection failures and deadlines', () => {
  let server: LocalServer;
  let fetcher: HttpFetcher;
  let onSlow: (() => void) | undefined;

  beforeAll(async () => {
    server = await startServer((request, res) => {
      if (request.url === '/slow-body') {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.write('<html><body>first part', () => onSlow?.());
      } else if (request.url === '/no-answer') {
        onSlow?.();
      } else {
        res.end('fast');
      }
    });
    fetcher = new HttpFetcher({ allowPrivateTargets: true });
  });

  afterAll(async () => {
    await fetcher.close();
    await server.close();
  });

  const at = (path: string): string => `http://127.0.0.1:${server.port}${path}`;

  it('fails with SCRAPE_TIMEOUT when the deadline fires while the body streams', async () => {
    const deadline = new AbortController();
    onSlow = () => deadline.abort(new DOMException('The job deadline passed', 'TimeoutError'));
    const err = await failure(fetcher.fetch({ url: at('/slow-body'), signal: deadline.signal, maxBytes: 1e6 }));
    expect(err.code).toBe('SCRAPE_TIMEOUT');
  });

  it('fails with SCRAPE_TIMEOUT when an AbortSignal.timeout deadline passes before the headers', async () => {
    onSlow = undefined;
    const err = await failure(fetcher.fetch({ url: at('/no-answer'), signal: AbortSignal.timeout(50), maxBytes: 1e6 }));
    expect(err.code).toBe('SCRAPE_TIMEOUT');
  });

  it('fails with JOB_CANCELLED on another abort, and at once on an aborted signal', async () => {
    const cancel = new AbortController();
    onSlow = () => cancel.abort();
    expect((await failure(fetcher.fetch({ url: at('/no-answer'), signal: cancel.signal, maxBytes: 1e6 }))).code).toBe('JOB_CANCELLED');
    const hits = server.hits.length;
    const err = await failure(fetcher.fetch({ url: at('/fast'), signal: AbortSignal.abort(), maxBytes: 1e6 }));
    expect(err.code).toBe('JOB_CANCELLED');
    expect(server.hits.length).toBe(hits);
  });

  it('maps a refused connection to a retryable SCRAPE_CONNECTION_REFUSED', async () => {
    const closed = await startServer(() => undefined);
    const port = closed.port;
    await closed.close();
    const err = await failure(fetcher.fetch({ url: `http://127.0.0.1:${port}/`, signal: signal(), maxBytes: 1e6 }));
    expect({ code: err.code, retryable: err.retryable }).toEqual({ code: 'SCRAPE_CONNECTION_REFUSED', retryable: true });
  });
});

describe('HttpFetcher TLS', () => {
  let dir: string;
  let server: LocalServer;
  let fetcher: HttpFetcher;

  beforeAll(async () => {
    // node:crypto cannot issue X.509 certificates; the openssl CLI makes a throwaway self-signed one.
    dir = mkdtempSync(join(tmpdir(), 'trawl-tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=127.0.0.1',
      '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
    const tls = { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
    server = await startServer((_r, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('over tls'), { tls });
    fetcher = new HttpFetcher({ allowPrivateTargets: true });
  });

  afterAll(async () => {
    await fetcher.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a self-signed certificate with SCRAPE_TLS_ERROR', async () => {
    const err = await failure(fetcher.fetch({ url: `https://127.0.0.1:${server.port}/`, signal: signal(), maxBytes: 1e6 }));
    expect(err.code).toBe('SCRAPE_TLS_ERROR');
    expect(err.retryable).toBe(false);
  });

  it('accepts it with skipTlsVerification', async () => {
    const r = await fetcher.fetch({
      url: `https://127.0.0.1:${server.port}/`, signal: signal(), maxBytes: 1e6, skipTlsVerification: true,
    });
    expect({ status: r.statusCode, text: r.text }).toEqual({ status: 200, text: 'over tls' });
  });
});
