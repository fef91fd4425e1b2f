import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { FixtureSite } from '@trawl/testing';
import { TestCluster } from './helpers/cluster.js';

jest.setTimeout(60_000);

/** Largest stored Document in this cluster, bytes: small, so a page of ordinary size passes it. */
const MAX_RESULT_BYTES = 200_000;

let cluster: TestCluster;
let site: FixtureSite;

beforeAll(async () => {
  site = new FixtureSite()
    .page('/small', '<html><head><title>Small</title></head><body><main><h1>Small page</h1><p>Some text for the extractor.</p></main></body></html>')
    .page('/big', `<html><head><title>Big</title></head><body><main><h1>Big page</h1>${'<p>Long paragraph of ordinary text. </p>'.repeat(4000)}</main></body></html>`);
  await site.start();
  cluster = await TestCluster.start({ TRAWL_WORKER_ROLES: 'http,browser', TRAWL_MAX_RESULT_BYTES: String(MAX_RESULT_BYTES) });
});

afterAll(async () => {
  await cluster?.stop();
  await site?.stop();
}, 30_000);

async function redisUsedBytes(): Promise<number> {
  const info = await cluster.redis.info('memory');
  return Number(/^used_memory:(\d+)/m.exec(info)?.[1]);
}

describe('result limits', () => {
  it('refuses a huge executeJavascript return with 413 without storing it', async () => {
    const r = await cluster.call('POST', '/v2/scrape', {
      body: {
        url: site.url('/small'),
        formats: ['markdown'],
        actions: [{ type: 'executeJavascript', script: "const s = 'x'.repeat(150 * 1024 * 1024); return [s, s, s];" }],
      },
    });
    expect(r.status).toBe(413);
    expect(r.body.code).toBe('SCRAPE_ACTION_RESULT_TOO_LARGE');
    expect(r.body.details).toMatchObject({ index: 0, type: 'executeJavascript' });
    expect(await redisUsedBytes()).toBeLessThan(32 * 1024 * 1024);
  });

  it('answers a cyclic executeJavascript return with [Circular] in place of the cycle', async () => {
    const r = await cluster.call('POST', '/v2/scrape', {
      body: {
        url: site.url('/small'),
        formats: ['markdown'],
        actions: [{ type: 'executeJavascript', script: "const a = { name: 'root' }; a.self = a; return a;" }],
      },
    });
    expect(r.status).toBe(200);
    expect(r.body.data.actions.javascriptReturns).toEqual([{ type: 'object', value: { name: 'root', self: '[Circular]' } }]);
  });

  it('fails a Document over TRAWL_MAX_RESULT_BYTES with RESULT_TOO_LARGE instead of storing it', async () => {
    // Each return is under the action limit (1 MiB); together they pass the Document limit.
    const r = await cluster.call('POST', '/v2/scrape', {
      body: {
        url: site.url('/small'),
        formats: ['markdown'],
        actions: [0, 1, 2].map(() => ({ type: 'executeJavascript', script: "'y'.repeat(100000)" })),
      },
    });
    expect(r.status).toBe(413);
    expect(r.body.code).toBe('RESULT_TOO_LARGE');
    expect(r.body.details).toEqual({ limitBytes: MAX_RESULT_BYTES });
  });

  it('fails a plain HTTP page whose formats together pass the limit; a small one is stored', async () => {
    const big = await cluster.call('POST', '/v2/scrape', { body: { url: site.url('/big'), formats: ['markdown', 'html', 'rawHtml'] } });
    expect(big.status).toBe(413);
    expect(big.body.code).toBe('RESULT_TOO_LARGE');
    const small = await cluster.call('POST', '/v2/scrape', { body: { url: site.url('/small'), formats: ['markdown'] } });
    expect(small.status).toBe(200);
    expect(small.body.data.markdown).toContain('Small page');
  });
});
