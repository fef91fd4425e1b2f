import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TrawlError } from '@trawl/api-schema';
import { HttpFetcher } from './http-fetcher.js';
import type { FetchRequest } from '../fetcher.js';
import { undecodedUtf8 } from '../page-text.js';
import { MapResolver, startServer, type LocalServer } from '@trawl/testing';

const PAGE = '<!doctype html><html><head><title>t</title></head><body>compressed ok</body></html>';
const SJIS = Buffer.from('93fa967b8cea82cc8365834c83588367', 'hex'); // 日本語のテキスト
const CP1251 = Buffer.from('cff0e8e2e5f22c20ece8f0', 'hex'); // Привет, мир
const BOMB_MEMBER = gzipSync(Buffer.alloc(16 * 1024 * 1024)); // 16 MiB of zeros -> ~16 KiB
const BOMB_MEMBERS = 6400; // concatenated gzip members: 100 GiB decompressed, ~100 MiB if all sent

let server: LocalServer;
let fetcher: HttpFetcher;
let bombSent: Promise<{ sent: number; total: number }> | undefined;
const base = (host = 'a.test'): string => `http://${host}:${server.port}`;

function send(res: ServerResponse, status: number, type: string, body: Buffer | string, extra: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': type, ...extra });
  res.end(body);
}

function html(head: string, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`<html><head>${head}</head><body>`), body, Buffer.from('</body></html>')]);
}

/** Writes the bomb with backpressure until the client goes away; reports how much was sent. */
function serveBomb(res: ServerResponse): void {
  let sent = 0;
  let i = 0;
  res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
  bombSent = once(res, 'close').then(() => ({ sent, total: BOMB_MEMBER.length * BOMB_MEMBERS }));
  const pump = (): void => {
    while (i < BOMB_MEMBERS && !res.destroyed) {
      i++;
      sent += BOMB_MEMBER.length;
      if (!res.write(BOMB_MEMBER)) return void res.once('drain', pump);
    }
    res.end();
  };
  pump();
}

beforeAll(async () => {
  server = await startServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const p = url.pathname;
    const chain = /^\/chain\/(\d+)$/.exec(p);
    if (chain) {
      const n = Number(chain[1]);
      if (n === 0) return send(res, 200, 'text/plain', 'end of chain');
      return send(res, n % 2 === 0 ? 301 : 307, 'text/html', 'moved', { location: `/chain/${n - 1}` });
    }
    switch (p) {
      case '/rel/a/b': return send(res, 302, 'text/plain', '', { location: '../c' });
      case '/rel/c':
        if (url.search === '?q=1') return send(res, 200, 'text/plain', 'arrived');
        return send(res, 303, 'text/plain', '', { location: '?q=1' });
      case '/loop/a': return send(res, 302, 'text/plain', '', { location: '/loop/b' });
      case '/loop/b': return send(res, 308, 'text/plain', '', { location: `${base('www.a.test')}/loop/a` });
      case '/self-cookie':
        if ((req.headers.cookie ?? '').includes('consent=1')) return send(res, 200, 'text/plain', 'welcome');
        return send(res, 302, 'text/plain', '', { location: '/self-cookie', 'set-cookie': 'consent=1; Path=/' });
      case '/echo': return send(res, 200, 'application/json', JSON.stringify(req.headers));
      case '/basic':
        if (req.headers.authorization === `Basic ${Buffer.from('alice:s3cret pw@1').toString('base64')}`) return send(res, 200, 'text/plain', 'authorized');
        return send(res, 401, 'text/plain', 'who are you', { 'www-authenticate': 'Basic realm="t"' });
      case '/to-www': return send(res, 301, 'text/plain', '', { location: `${base('www.a.test')}/echo` });
      case '/to-other': return send(res, 302, 'text/plain', '', { location: `${base('b.test')}/echo` });
      case '/to-ftp': return send(res, 302, 'text/plain', '', { location: 'ftp://a.test/file' });
      case '/404': return send(res, 404, 'text/html', '<html><body>not here</body></html>');
      case '/500': return send(res, 500, 'text/plain', 'boom');
      case '/gzip': return send(res, 200, 'text/html', gzipSync(PAGE), { 'content-encoding': 'gzip' });
      case '/br': return send(res, 200, 'text/html', brotliCompressSync(PAGE), { 'content-encoding': 'br' });
      case '/deflate': return send(res, 200, 'text/html', deflateSync(PAGE), { 'content-encoding': 'deflate' });
      case '/deflate-raw': return send(res, 200, 'text/html', deflateRawSync(PAGE), { 'content-encoding': 'deflate' });
      case '/gzip-br': return send(res, 200, 'text/html', brotliCompressSync(gzipSync(PAGE)), { 'content-encoding': 'gzip, br' });
      case '/bad-gzip': return send(res, 200, 'text/html', Buffer.from('this is not gzip at all'), { 'content-encoding': 'gzip' });
      case '/zstd': return send(res, 200, 'text/html', 'x', { 'content-encoding': 'zstd' });
      case '/bomb': return serveBomb(res);
      case '/big': return send(res, 200, 'text/plain', Buffer.alloc(300_000, 'a'));
      case '/declared-big':
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '5000000' });
        return void res.write('the rest never comes');
      case '/sjis-header': return send(res, 200, 'text/html; charset=Shift_JIS', html('', SJIS));
      case '/sjis-meta': return send(res, 200, 'text/html', html('<meta charset="shift_jis">', SJIS));
      case '/cp1251-header': return send(res, 200, 'text/html; charset=windows-1251', html('', CP1251));
      case '/cp1251-meta':
        return send(res, 200, 'text/html', html('<meta http-equiv="Content-Type" content="text/html; charset=windows-1251">', CP1251));
      case '/pdf-as-html': return send(res, 200, 'text/html', Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n', 'latin1'));
      case '/json': return send(res, 200, 'application/json; charset=utf-8', '{"ok":"✓"}');
      case '/xml': return send(res, 200, 'application/rss+xml', '<?xml version="1.0"?><rss><channel/></rss>');
      default: return send(res, 404, 'text/plain', 'no route');
    }
  });
  fetcher = new HttpFetcher({
    allowPrivateTargets: true,
    resolver: new MapResolver({ 'a.test': ['127.0.0.1'], 'www.a.test': ['127.0.0.1'], 'b.test': ['127.0.0.1'] }),
  });
});

afterAll(async () => {
  await fetcher.close();
  await server.close();
});

function get(path: string, extra: Partial<FetchRequest> = {}) {
  return fetcher.fetch({ url: `${base()}${path}`, signal: new AbortController().signal, maxBytes: 1_000_000, ...extra });
}

async function failure(promise: Promise<unknown>): Promise<TrawlError> {
  const err = await promise.then(() => undefined, (e: unknown) => e);
  if (!(err instanceof TrawlError)) throw new Error(`expected a TrawlError, got ${String(err)}`);
  return err;
}

describe('HttpFetcher redirects', () => {
  it('follows relative Locations and reports the final URL', async () => {
    const r = await get('/rel/a/b');
    expect(r.requestedUrl).toBe(`${base()}/rel/a/b`);
    expect(r.url).toBe(`${base()}/rel/c?q=1`);
    expect(r.redirects).toEqual([`${base()}/rel/c`, `${base()}/rel/c?q=1`]);
  });

  it('follows a chain of 10 redirects', async () => {
    const r = await get('/chain/10');
    expect(r.statusCode).toBe(200);
    expect(r.text).toBe('end of chain');
    expect(r.redirects).toHaveLength(10);
  });

  it('fails on the 11th redirect', async () => {
    const err = await failure(get('/chain/11'));
    expect(err.code).toBe('SCRAPE_TOO_MANY_REDIRECTS');
    expect(err.details).toEqual({ maxRedirects: 10 });
  });

  it('detects a loop without waiting for the limit', async () => {
    const err = await failure(get('/loop/a'));
    expect(err.code).toBe('SCRAPE_TOO_MANY_REDIRECTS');
    // a.test/loop/a -> /loop/b -> www.a.test/loop/a -> /loop/b -> www.a.test/loop/a (seen)
    expect(err.details).toMatchObject({ loop: true, redirects: 4 });
  });

  it('returns to the same URL once a cookie it set is sent back', async () => {
    const r = await get('/self-cookie');
    expect(r.text).toBe('welcome');
    expect(r.redirects).toEqual([`${base()}/self-cookie`]);
  });

  it('refuses a redirect to a non-http scheme', async () => {
    expect((await failure(get('/to-ftp'))).code).toBe('SCRAPE_INVALID_URL');
  });

  it('keeps custom headers and the Cookie on the same site, drops the Cookie elsewhere', async () => {
    const headers = { 'X-Custom': 'yes', Cookie: 'sid=abc', 'User-Agent': 'TrawlTest/1' };
    const same = JSON.parse((await get('/to-www', { headers })).text ?? '') as Record<string, string>;
    expect(same).toMatchObject({ 'x-custom': 'yes', cookie: 'sid=abc', 'user-agent': 'TrawlTest/1', host: `www.a.test:${server.port}` });
    expect(same['accept-encoding']).toBe('gzip, deflate, br');
    const other = JSON.parse((await get('/to-other', { headers })).text ?? '') as Record<string, string>;
    expect(other['x-custom']).toBe('yes');
    expect(other.cookie).toBeUndefined();
  });

  it('sends credentials of the URL as Basic auth to its origin only, and reports the URL without them', async () => {
    const withCredentials = (host: string, path: string) => `http://alice:s3cret%20pw%401@${host}:${server.port}${path}`;
    const signal = new AbortController().signal;
    const ok = await fetcher.fetch({ url: withCredentials('a.test', '/basic'), signal, maxBytes: 1_000_000 });
    expect(ok.statusCode).toBe(200);
    expect(ok.text).toBe('authorized');
    expect(ok.url).toBe(`${base()}/basic`);
    expect(ok.requestedUrl).toBe(`http://alice@a.test:${server.port}/basic`);
    expect((await get('/basic')).statusCode).toBe(401);
    // A redirect to another origin, even of the same site, does not carry them (nor does a client header lose to them).
    for (const path of ['/to-other', '/to-www']) {
      const echoed = await fetcher.fetch({ url: withCredentials('a.test', path), signal, maxBytes: 1_000_000 });
      expect(JSON.parse(echoed.text ?? '')).not.toHaveProperty('authorization');
      expect(echoed.redirects.join(' ')).not.toContain('s3cret');
    }
    const own = await fetcher.fetch({ url: withCredentials('a.test', '/echo'), signal, maxBytes: 1_000_000, headers: { Authorization: 'Bearer mine' } });
    expect(JSON.parse(own.text ?? '')).toMatchObject({ authorization: 'Bearer mine' });
  });

  it('sends a browser User-Agent and Accept-Language by default', async () => {
    const sent = JSON.parse((await get('/echo', { acceptLanguage: 'ja' })).text ?? '') as Record<string, string>;
    expect(sent['user-agent']).toMatch(/Chrome\/\d+/);
    expect(sent['accept-language']).toBe('ja');
  });
});

describe('HttpFetcher responses', () => {
  it.each([[404, 'html'], [500, 'text']])('reports a %i page as a result', async (status, kind) => {
    const r = await get(`/${status}`);
    expect(r.statusCode).toBe(status);
    expect(r.kind).toBe(kind);
    expect(r.text).toMatch(/not here|boom/);
  });

  it.each(['/gzip', '/br', '/deflate', '/deflate-raw', '/gzip-br'])('decompresses %s', async (path) => {
    const r = await get(path);
    expect(r.text).toBe(PAGE);
    expect(r.kind).toBe('html');
  });

  it('fails on corrupt compressed data and unknown codings', async () => {
    expect((await failure(get('/bad-gzip'))).code).toBe('SCRAPE_FAILED');
    expect((await failure(get('/zstd'))).code).toBe('SCRAPE_UNSUPPORTED_CONTENT');
  });

  it('stops a gzip bomb at the size cap, long before the server has sent it', async () => {
    const err = await failure(get('/bomb', { maxBytes: 1_000_000 }));
    expect(err.code).toBe('SCRAPE_TOO_LARGE');
    expect(err.details).toEqual({ maxBytes: 1_000_000, stage: 'decompressed' });
    const { sent, total } = await (bombSent ?? Promise.reject(new Error('bomb not served')));
    expect(sent).toBeLessThan(total / 10);
  });

  it('fails a body over the cap, and a Content-Length over the cap before reading', async () => {
    expect((await failure(get('/big', { maxBytes: 200_000 }))).details).toEqual({ maxBytes: 200_000, stage: 'received' });
    expect((await get('/big', { maxBytes: 300_000 })).text).toHaveLength(300_000);
    const err = await failure(get('/declared-big', { maxBytes: 1_000_000 }));
    expect(err.details).toEqual({ maxBytes: 1_000_000, contentLength: 5_000_000 });
  });

  it.each([
    ['/sjis-header', 'shift_jis', '日本語のテキスト'],
    ['/sjis-meta', 'shift_jis', '日本語のテキスト'],
    ['/cp1251-header', 'windows-1251', 'Привет, мир'],
    ['/cp1251-meta', 'windows-1251', 'Привет, мир'],
  ])('decodes %s', async (path, charset, text) => {
    const r = await get(path);
    expect(r.charset).toBe(charset);
    expect(r.text).toContain(`<body>${text}</body>`);
  });

  it('leaves a valid UTF-8 body undecoded until its text is read; another encoding is decoded at once', async () => {
    const json = await get('/json');
    expect(undecodedUtf8(json)?.toString('utf8')).toBe('{"ok":"✓"}');
    expect(json.text).toBe('{"ok":"✓"}');
    expect(undecodedUtf8(json)).toBeUndefined();
    const sjis = await get('/sjis-header');
    expect(undecodedUtf8(sjis)).toBeUndefined();
    expect(sjis.text).toContain('日本語のテキスト');
  });

  it('detects a PDF served as text/html and returns its bytes', async () => {
    const r = await get('/pdf-as-html');
    expect(r.kind).toBe('pdf');
    expect(r.text).toBeUndefined();
    expect(r.body?.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('handles JSON and XML', async () => {
    const json = await get('/json');
    expect(json).toMatchObject({ kind: 'json', contentType: 'application/json', charset: 'utf-8', text: '{"ok":"✓"}' });
    expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(json.timings.totalMs).toBeGreaterThanOrEqual(json.timings.ttfbMs);
    expect(await get('/xml')).toMatchObject({ kind: 'xml', contentType: 'application/rss+xml' });
  });
});
