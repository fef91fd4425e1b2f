import { once } from 'node:events';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TrawlError } from '@trawl/api-schema';
import { MapResolver, startServer, type LocalServer } from './local-server.js';

/**
 * The part of `@trawl/scrape-engine`'s `FetchRequest` the suite sends. Declared here, not imported:
 * scrape-engine depends on this package for its tests, and a `Fetcher` is assignable to
 * {@link ConformanceFetcher} as it is.
 */
export interface ConformanceRequest {
  url: string;
  headers?: Readonly<Record<string, string>>;
  signal: AbortSignal;
  maxBytes: number;
}

/** The part of `FetchResult` the suite checks. */
export interface ConformanceResult {
  requestedUrl: string;
  url: string;
  statusCode: number;
  headers: Record<string, string>;
  contentType: string;
  charset?: string;
  kind: string;
  text?: string;
  redirects: string[];
}

/** An engine as the suite sees it: the `Fetcher` interface. */
export interface ConformanceFetcher {
  readonly name: string;
  fetch(req: ConformanceRequest): Promise<ConformanceResult>;
}

/** What the suite gives the engine factory: its target guard must be built with both. */
export interface ConformanceSetup {
  /**
   * Loopback addresses the guard must let through (the suite's "public" site listens there); every
   * other loopback address stays blocked, as a private one is in production.
   */
  exemptAddresses: readonly string[];
  /** Resolves the suite's host names: `site.test` (exempt), `internal.test` (blocked); others fail. */
  resolver: MapResolver;
}

/** An engine built for the suite, and how to release it (pools, browsers, proxies). */
export interface ConformanceEngine {
  fetcher: ConformanceFetcher;
  close(): Promise<void>;
}

/**
 * The few legitimate differences between engines. Everything not listed here is the same contract.
 */
export interface ConformanceOptions {
  /**
   * `text` of an HTML page is the rendered DOM serialised again (the browser engine), not the page as
   * served: HTML is checked by content (`toContain`) instead of byte for byte.
   */
  rendersHtml?: boolean;
}

const PAGE = '<!doctype html><html><head><title>Conformance</title></head><body><p id="m">Hello conformance</p></body></html>';
const SITE_IP = '127.0.0.2';
const INTERNAL_IP = '127.0.0.1';
/** "café € naïve" in windows-1252 (0x80 is € there, a C1 control in latin1). */
const CP1252 = Buffer.from('636166e92080206e61ef7665', 'hex');
/** "日本語のテキスト" in Shift_JIS. */
const SJIS = Buffer.from('93fa967b8cea82cc8365834c83588367', 'hex');

function htmlWith(head: string, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`<!doctype html><html><head>${head}</head><body><p>`), body, Buffer.from('</p></body></html>')]);
}

async function failure(promise: Promise<unknown>): Promise<TrawlError> {
  const err = await promise.then(() => undefined, (e: unknown) => e);
  if (!(err instanceof TrawlError)) throw new Error(`expected a TrawlError, got ${String(err)}`);
  return err;
}

/**
 * The contract every `Fetcher` honours, as one `describe` block run against local servers: a page,
 * redirects, error pages as results, legacy encodings, the size cap, cancellation, the target guard,
 * refused connections and request headers. Call it at the top level of an integration test file.
 * `make` builds the engine with a target guard from the {@link ConformanceSetup}; it is called once.
 */
export function fetcherConformance(
  name: string,
  make: (setup: ConformanceSetup) => Promise<ConformanceEngine>,
  options: ConformanceOptions = {},
): void {
  describe(`${name} Fetcher conformance`, () => {
    let site: LocalServer;
    let internal: LocalServer;
    let engine: ConformanceEngine;
    let closedPort: number;
    const seenHeaders: IncomingHttpHeaders[] = [];
    const hanging: Array<(pending: { req: IncomingMessage; res: ServerResponse }) => void> = [];
    const url = (path: string, host = 'site.test', port = site.port) => `http://${host}:${port}${path}`;
    const fetch = (target: string, extra: Partial<ConformanceRequest> = {}) =>
      engine.fetcher.fetch({ url: target, signal: new AbortController().signal, maxBytes: 1_000_000, ...extra });

    beforeAll(async () => {
      site = await startServer((req, res) => {
        const send = (status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}) =>
          void res.writeHead(status, { 'content-type': type, ...extra }).end(body);
        switch (req.url) {
          case '/page': return send(200, 'text/html; charset=utf-8', PAGE);
          case '/redirect/1': return send(301, 'text/html', 'moved', { location: '/redirect/2' });
          case '/redirect/2': return send(302, 'text/html', 'moved', { location: url('/final') });
          case '/final': return send(200, 'text/html', '<html><body><p>Final page</p></body></html>');
          case '/missing': return send(404, 'text/html', '<html><body><p>Nothing here</p></body></html>');
          case '/broken': return send(500, 'text/plain', 'server exploded');
          case '/cp1252-header': return send(200, 'text/html; charset=windows-1252', htmlWith('', CP1252));
          case '/sjis-meta': return send(200, 'text/html', htmlWith('<meta charset="shift_jis">', SJIS));
          case '/cp1252-text': return send(200, 'text/plain; charset=windows-1252', Buffer.concat([Buffer.from('text: '), CP1252]));
          case '/large': return send(200, 'text/html', `<html><body><p>${'a'.repeat(300_000)}</p></body></html>`);
          case '/headers':
            seenHeaders.push(req.headers);
            return send(200, 'text/html', '<html><body><p>headers seen</p></body></html>');
          case '/hang':
            // Headers sent, body never finished: the fetch waits until it is aborted.
            res.writeHead(200, { 'content-type': 'text/html' });
            res.write('<html><body><p>');
            return void hanging.shift()?.({ req, res });
          default: return send(404, 'text/plain', 'no route');
        }
      }, { host: SITE_IP });
      internal = await startServer((_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<p>internal secret</p>'), { host: INTERNAL_IP });
      const gone = await startServer((_req, res) => void res.end(), { host: SITE_IP });
      closedPort = gone.port;
      await gone.close();
      const resolver = new MapResolver({ 'site.test': [SITE_IP], 'internal.test': [INTERNAL_IP] });
      engine = await make({ exemptAddresses: [SITE_IP], resolver });
    });

    afterAll(async () => {
      await engine?.close();
      await Promise.all([site?.close(), internal?.close()]);
    });

    it('returns a 200 HTML page with its URL, status, content type, kind and text', async () => {
      const r = await fetch(url('/page'));
      expect(r).toMatchObject({ requestedUrl: url('/page'), url: url('/page'), statusCode: 200, contentType: 'text/html', kind: 'html', redirects: [] });
      expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
      if (options.rendersHtml) {
        expect(r.text).toContain('<title>Conformance</title>');
        expect(r.text).toContain('<p id="m">Hello conformance</p>');
      } else {
        expect(r.text).toBe(PAGE);
      }
    });

    it('follows redirects and reports the final URL and every hop', async () => {
      const r = await fetch(url('/redirect/1'));
      expect(r).toMatchObject({ requestedUrl: url('/redirect/1'), url: url('/final'), statusCode: 200, kind: 'html' });
      expect(r.redirects).toEqual([url('/redirect/2'), url('/final')]);
      expect(r.text).toContain('Final page');
    });

    it('returns 404 and 500 pages as results with their status', async () => {
      const missing = await fetch(url('/missing'));
      expect(missing).toMatchObject({ statusCode: 404, kind: 'html', contentType: 'text/html', url: url('/missing') });
      expect(missing.text).toContain('Nothing here');
      const broken = await fetch(url('/broken'));
      expect(broken).toMatchObject({ statusCode: 500, kind: 'text', contentType: 'text/plain', text: 'server exploded' });
    });

    it.each([
      ['HTML with a charset in the header (windows-1252)', '/cp1252-header', 'html', 'windows-1252', '<p>café € naïve</p>'],
      ['HTML with a <meta charset> (Shift_JIS)', '/sjis-meta', 'html', 'shift_jis', '<p>日本語のテキスト</p>'],
      ['text/plain with a charset in the header (windows-1252)', '/cp1252-text', 'text', 'windows-1252', 'text: café € naïve'],
    ])('decodes %s and names the encoding', async (_label, path, kind, charset, text) => {
      const r = await fetch(url(path));
      expect(r.kind).toBe(kind);
      expect(r.charset).toBe(charset);
      expect(r.text).toContain(text);
    });

    it('fails a page over maxBytes with SCRAPE_TOO_LARGE', async () => {
      const err = await failure(fetch(url('/large'), { maxBytes: 100_000 }));
      expect(err.code).toBe('SCRAPE_TOO_LARGE');
      // Under a larger cap the same page is fine.
      expect((await fetch(url('/large'), { maxBytes: 1_000_000 })).text).toContain('a'.repeat(1000));
    });

    it('ends an aborted fetch with the abort reason and closes the connection to the target', async () => {
      const arrived = new Promise<{ req: IncomingMessage; res: ServerResponse }>((resolve) => hanging.push(resolve));
      const controller = new AbortController();
      const result = fetch(url('/hang'), { signal: controller.signal }).then(() => undefined, (e: unknown) => e);
      const { res } = await arrived;
      const closed = once(res, 'close');
      const reason = new TrawlError('JOB_CANCELLED', 'cancelled by the conformance suite');
      controller.abort(reason);
      expect(await result).toBe(reason);
      await closed;
    });

    it.each([
      ['a loopback address', () => url('/', INTERNAL_IP, internal.port)],
      ['a host name resolving to a loopback address', () => url('/', 'internal.test', internal.port)],
    ])('refuses %s with SCRAPE_BLOCKED_TARGET and sends it nothing', async (_label, target) => {
      const err = await failure(fetch(target()));
      expect(err.code).toBe('SCRAPE_BLOCKED_TARGET');
      expect(err.retryable).toBe(false);
      expect(internal.hits).toEqual([]);
    });

    it('fails a refused connection with SCRAPE_CONNECTION_REFUSED (retryable)', async () => {
      const err = await failure(fetch(url('/', 'site.test', closedPort)));
      expect(err.code).toBe('SCRAPE_CONNECTION_REFUSED');
      expect(err.retryable).toBe(true);
    });

    it('fails a host name that does not resolve with SCRAPE_DNS_RESOLUTION_ERROR', async () => {
      const err = await failure(fetch(url('/page', 'nowhere.test')));
      expect(err.code).toBe('SCRAPE_DNS_RESOLUTION_ERROR');
    });

    it('sends custom request headers to the target', async () => {
      seenHeaders.length = 0;
      await fetch(url('/headers'), { headers: { 'X-Conformance': 'yes', 'User-Agent': 'ConformanceBot/1.0' } });
      expect(seenHeaders).toHaveLength(1);
      expect(seenHeaders[0]).toMatchObject({ 'x-conformance': 'yes', 'user-agent': 'ConformanceBot/1.0' });
    });
  });
}
