import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { ADMIN_KEY, BOOT_KEY, TestCluster } from './helpers/cluster.js';
import { chunk, rawExchange } from './helpers/raw-http.js';

jest.setTimeout(30_000);

// The gateway alone (no worker: nothing queued here is ever fetched), with /v2/parse served.
let cluster: TestCluster;
let port: number;

beforeAll(async () => {
  cluster = await TestCluster.start({ TRAWL_DOCUMENTS_ENABLED: 'true' }, { worker: false });
  port = Number(new URL(cluster.api.url).port);
});

afterAll(async () => {
  await cluster?.stop();
});

/** The server still answers: liveness and an authenticated route. */
async function expectAlive(): Promise<void> {
  expect((await cluster.call('GET', '/health/live')).status).toBe(200);
  expect((await cluster.call('GET', '/v2/team/credit-usage')).status).toBe(200);
}

const ID = randomUUID();
/** Every route that reads a body, with the key it needs. */
const BODY_ROUTES: ReadonlyArray<[method: string, path: string, key: string]> = [
  ['POST', '/v2/scrape', BOOT_KEY],
  ['POST', '/v2/batch/scrape', BOOT_KEY],
  ['POST', '/v2/crawl', BOOT_KEY],
  ['POST', '/v2/crawl/params-preview', BOOT_KEY],
  ['POST', '/v2/map', BOOT_KEY],
  ['POST', '/v2/monitor', BOOT_KEY],
  ['PATCH', `/v2/monitor/${ID}`, BOOT_KEY],
  ['POST', `/v2/monitor/${ID}/run`, BOOT_KEY],
  ['POST', '/admin/teams', ADMIN_KEY],
  ['PATCH', `/admin/teams/${ID}`, ADMIN_KEY],
  ['POST', `/admin/teams/${ID}/keys`, ADMIN_KEY],
];

function head(method: string, path: string, key: string, headers: Record<string, string>): string {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', `Authorization: Bearer ${key}`];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

describe.each(BODY_ROUTES)('%s %s with a bad body', (method, path, key) => {
  it('answers 4xx to malformed JSON and to JSON cut short, and survives aborted and half-sent bodies', async () => {
    const malformed = await rawExchange(port, [head(method, path, key, { 'Content-Type': 'application/json', 'Content-Length': '9' }), '{"url": ['], { end: 'respond' });
    expect(malformed.status).toBe(400);
    // Chunked, ending cleanly in the middle of a JSON document.
    const cut = await rawExchange(port, [
      head(method, path, key, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' }), chunk('{"url": "http://'), '0\r\n\r\n',
    ], { end: 'respond' });
    expect(cut.status).toBe(400);
    // Aborted: a declared length never reached, then the client is gone.
    await rawExchange(port, [head(method, path, key, { 'Content-Type': 'application/json', 'Content-Length': '1000' }), '{"url": "ht'], { end: 'destroy' });
    // Half-sent chunked body, then a half-close: the request can never complete.
    await rawExchange(port, [head(method, path, key, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' }), chunk('{"a":')], { end: 'read' });
    // Broken chunked framing.
    const framing = await rawExchange(port, [head(method, path, key, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' }), 'zz\r\n{}\r\n'], { end: 'respond' });
    expect(framing.status === 0 || (framing.status >= 400 && framing.status < 500)).toBe(true);
    // A body declared gzip that is not.
    const gzip = await rawExchange(port, [head(method, path, key, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', 'Content-Length': '2' }), '{}'], { end: 'respond' });
    expect(gzip.status).toBe(400);
    expect(gzip.text).toContain('"code":"BAD_REQUEST"');
    await expectAlive();
  });
});

const BOUNDARY = 'trawlboundary';
function multipartHead(headers: Record<string, string> = {}): string {
  return head('POST', '/v2/parse', BOOT_KEY, { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, ...headers });
}
function part(name: string, filename?: string): string {
  return `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}\r\n`
    + `Content-Type: ${filename ? 'text/plain' : 'application/json'}\r\n\r\n`;
}

describe('POST /v2/parse with a truncated, malformed or aborted multipart body', () => {
  // Each part is a file part without its closing boundary: busboy fails the part's stream while the
  // route may still be waiting on Redis before it reads the stream.
  it.each([
    ['the file part', part('file', 'a.txt')],
    ['an options file part', part('options', 'options.json')],
    ['an ignored file part', part('other', 'b.txt')],
  ])('answers 400 when %s has no closing boundary, and keeps serving', async (_name, opening) => {
    for (let i = 0; i < 3; i++) {
      const res = await rawExchange(port, [multipartHead({ 'Transfer-Encoding': 'chunked' }), chunk(`${opening}hello world`), '0\r\n\r\n'], { end: 'respond' });
      expect(res.status).toBe(400);
      expect(res.text).toContain('"code":"BAD_REQUEST"');
    }
    await expectAlive();
  });

  it('survives uploads aborted mid-file and mid-headers, and malformed part headers', async () => {
    await rawExchange(port, [multipartHead({ 'Content-Length': '100000' }), `${part('file', 'a.txt')}${'x'.repeat(2000)}`], { end: 'destroy' });
    await rawExchange(port, [multipartHead({ 'Content-Length': '100000' }), `--${BOUNDARY}\r\nContent-Disposition: form-da`], { end: 'destroy' });
    await rawExchange(port, [multipartHead({ 'Transfer-Encoding': 'chunked' }), chunk(`${part('file', 'a.txt')}abc`)], { end: 'read' });
    const garbage = await rawExchange(port, [multipartHead({ 'Transfer-Encoding': 'chunked' }), chunk(`--${BOUNDARY}\r\n\u0000\u0001:::\r\n\r\nzzz`), '0\r\n\r\n'], { end: 'respond' });
    expect(garbage.status).toBeGreaterThanOrEqual(400);
    expect(garbage.status).toBeLessThan(500);
    const noBoundary = await rawExchange(port, [head('POST', '/v2/parse', BOOT_KEY, { 'Content-Type': 'multipart/form-data', 'Content-Length': '2' }), '{}'], { end: 'respond' });
    expect(noBoundary.status).toBe(400);
    await expectAlive();
  });
});

describe('bad input in paths and options is a 4xx naming it', () => {
  it.each([
    ['GET', '/v2/crawl/%E0%A4%A', BOOT_KEY],
    ['GET', '/v2/crawl/%E0%A4%A/errors', BOOT_KEY],
    ['DELETE', '/v2/batch/scrape/%ZZ', BOOT_KEY],
    ['GET', '/v2/scrape/%E0%A4%A', BOOT_KEY],
    ['GET', '/v2/monitor/%E0%A4%A', BOOT_KEY],
    ['GET', '/v2/monitor/%E0%A4%A/checks/%C3', BOOT_KEY],
    ['GET', '/admin/teams/%E0%A4%A', ADMIN_KEY],
    ['DELETE', '/admin/keys/%FF%', ADMIN_KEY],
    ['GET', '/v2/blobs/a/%E0%A4%A', BOOT_KEY],
  ])('%s %s: 400', async (method, path, key) => {
    const res = await rawExchange(port, [head(method, path, key, {})], { end: 'respond' });
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/"code":"(BAD_REQUEST|INVALID_JOB_ID)"/);
  });

  /** `{"a":{"a":...}}` as JSON text, `depth` levels deep. */
  const deep = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  const target = '"url":"http://127.0.0.1:9/"';
  const hook = '"url":"http://127.0.0.1:9/hook"';

  it.each([
    ['auditMetadata', 'POST', '/v2/scrape', `{${target},"timeout":1000,"auditMetadata":${deep(30)}}`],
    ['auditMetadata', 'POST', '/v2/map', `{${target},"timeout":1000,"auditMetadata":${deep(30)}}`],
    ['webhook.metadata', 'POST', '/v2/crawl', `{${target},"webhook":{${hook},"metadata":${deep(30)}}}`],
    ['webhook.metadata', 'POST', '/v2/batch/scrape', `{"urls":["http://127.0.0.1:9/"],"webhook":{${hook},"metadata":${deep(30)}}}`],
    ['auditMetadata', 'POST', '/v2/scrape', `{${target},"timeout":1000,"auditMetadata":{"big":"${'x'.repeat(64 * 1024)}"}}`],
  ])('metadata nested or sized past its bound is a 400 naming %s (%s %s)', async (field, method, path, raw) => {
    const res = await cluster.call(method, path, { raw });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BAD_REQUEST');
    expect((res.body.details.issues as Array<{ path: string }>).map((i) => i.path)).toContain(field);
  });

  it.each([
    ['POST', '/v2/scrape', `{${target},"timeout":1000,"auditMetadata":${deep(5000)}}`],
    ['POST', '/v2/crawl', `{${target},"webhook":{${hook},"metadata":${deep(5000)}}}`],
    ['POST', '/v2/monitor', `{"name":"m","schedule":{"cron":"0 * * * *"},"targets":[{"type":"scrape","urls":["http://127.0.0.1:9/"]}],"webhook":{${hook},"metadata":${deep(5000)}}}`],
    ['POST', '/v2/map', `{${target},"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`],
  ])('%s %s: a body nested thousands of levels deep is a 400', async (method, path, raw) => {
    const res = await cluster.call(method, path, { raw });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BAD_REQUEST');
    await expectAlive();
  });

  it.each([
    ['Bad Name', 'v'],
    ['x-a\r\nb', 'v'],
    ['', 'v'],
    ['x-crlf', 'a\r\nInjected: 1'],
    ['x-lf', 'a\nb'],
    ['x-nul', 'a\u0000b'],
    ['x-latin', 'caf\u00e9 \u2603'],
  ])('scrape option header %j: %j is a 400 naming the header', async (name, value) => {
    for (const path of ['/v2/scrape', '/v2/batch/scrape']) {
      const body = path === '/v2/scrape'
        ? { url: 'http://127.0.0.1:9/', timeout: 1000, headers: { [name]: value } }
        : { urls: ['http://127.0.0.1:9/'], headers: { [name]: value } };
      const res = await cluster.call('POST', path, { body });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('BAD_REQUEST');
      expect((res.body.details.issues as Array<{ path: string }>)[0]?.path).toMatch(/^headers/);
      expect(res.body.error).toContain(JSON.stringify(name));
    }
  });

  it('a Latin-1 header value is accepted', async () => {
    const res = await cluster.call('POST', '/v2/batch/scrape', { body: { urls: ['http://127.0.0.1:9/'], headers: { 'X-Name': 'caf\u00e9', 'Accept-Language': 'fr' } } });
    expect(res.status).toBe(200);
  });
});

describe('the crawl WebSocket stream with bad handshakes', () => {
  const upgrade = (path: string, extra: Record<string, string>) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n`
    + `Sec-WebSocket-Version: 13\r\n${Object.entries(extra).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;

  it('answers 4xx to malformed paths, keys and handshakes, survives aborted ones, and keeps serving', async () => {
    const key = { 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', Authorization: `Bearer ${BOOT_KEY}` };
    for (const [path, headers, status] of [
      ['/v2/crawl/%E0%A4%A', key, 400],
      ['/v2/crawl/not-a-uuid', key, 400],
      [`/v2/crawl/${ID}`, { 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==' }, 401],
      [`/v2/crawl/${ID}`, key, 404],
      ['/v2/elsewhere', key, 404],
    ] as const) {
      const res = await rawExchange(port, [upgrade(path, headers)], { end: 'read' });
      expect([path, res.status]).toEqual([path, status]);
    }
    await rawExchange(port, [upgrade(`/v2/crawl/${ID}`, key).slice(0, 60)], { end: 'destroy' });
    await rawExchange(port, [upgrade(`/v2/crawl/${ID}`, key)], { end: 'destroy' });
    await expectAlive();
  });
});
