import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { batchStartResponseSchema, crawlStartResponseSchema, mapResponseSchema, scrapeResponseSchema } from '@trawl/api-schema';
import { FixtureSite } from '@trawl/testing';
import { TestCluster } from './helpers/cluster.js';

jest.setTimeout(60_000);

let cluster: TestCluster;
let site: FixtureSite;
/** Not an image or a document: stays a plain binary page. */
const BYTES = Buffer.from([0x00, 0xff, 0x10, 0x80, 0x7f, 0x01, 0xfe, 0x42, 0x00, 0x99]);
const PAGE = `<html><head><title>Attrs</title></head><body><main>
<h1>Attributes page</h1><p>Some text so the page has content.</p>
<a class="nav" href="/one">One</a><a class="nav" href="https://other.example/two">Two</a>
<img src="pic.png" alt="Picture"></main></body></html>`;

beforeAll(async () => {
  site = await new FixtureSite()
    .page('/', PAGE)
    .route('/bytes', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(BYTES);
    })
    .start();
  cluster = await TestCluster.start();
});
afterAll(async () => {
  await cluster.stop();
  await site.stop();
}, 30_000);

describe('formats attributes and rawBase64', () => {
  it('attributes gives each selector its values, URL attributes absolute', async () => {
    const r = await cluster.call('POST', '/v2/scrape', {
      body: { url: site.url('/'), formats: ['markdown', { type: 'attributes', selectors: [{ selector: 'a.nav', attribute: 'href' }, { selector: 'img', attribute: 'alt' }] }] },
    });
    expect(r.status).toBe(200);
    scrapeResponseSchema.parse(r.body);
    expect(r.body.data.attributes).toEqual([
      { selector: 'a.nav', attribute: 'href', values: [site.url('/one'), 'https://other.example/two'] },
      { selector: 'img', attribute: 'alt', values: ['Picture'] },
    ]);
    expect(r.body.data.markdown).toContain('Attributes page');
  });

  it('rawBase64 returns the body base64-encoded, for HTML and for binary content', async () => {
    const html = await cluster.call('POST', '/v2/scrape', { body: { url: site.url('/'), formats: ['rawBase64'] } });
    expect(html.status).toBe(200);
    scrapeResponseSchema.parse(html.body);
    expect(Buffer.from(html.body.data.rawBase64, 'base64').toString('utf8')).toBe(PAGE);
    expect(html.body.data.markdown).toBeUndefined();
    const bin = await cluster.call('POST', '/v2/scrape', { body: { url: site.url('/bytes'), formats: ['rawBase64'] } });
    expect(bin.status).toBe(200);
    expect(bin.body.data.rawBase64).toBe(BYTES.toString('base64'));
  });

  it('rawBase64 with another format is a 400 naming it', async () => {
    const r = await cluster.call('POST', '/v2/scrape', { body: { url: site.url('/'), formats: ['markdown', 'rawBase64'] } });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('BAD_REQUEST');
    expect(JSON.stringify(r.body.details)).toContain('rawBase64 format must be the only format');
  });
});

describe('formats this server does not serve', () => {
  it('answer 400 UNSUPPORTED_OPTION naming the format and its position', async () => {
    for (const format of ['branding', 'menu', 'product', 'audio', 'video']) {
      const r = await cluster.call('POST', '/v2/scrape', { body: { url: site.url('/'), formats: ['markdown', 'links', format] } });
      expect([format, r.status, r.body.code, r.body.details?.option]).toEqual([format, 400, 'UNSUPPORTED_OPTION', 'formats[2]']);
      expect(r.body.error).toContain(format);
    }
    const crawl = await cluster.call('POST', '/v2/crawl', { body: { url: site.url('/'), scrapeOptions: { formats: ['video'] } } });
    expect(crawl.body).toMatchObject({ code: 'UNSUPPORTED_OPTION', details: { option: 'scrapeOptions.formats[0]' } });
  });

  it('an unknown format string is a validation error naming it and listing the accepted ones', async () => {
    const r = await cluster.call('POST', '/v2/scrape', { body: { url: site.url('/'), formats: ['markdown', 'pdfText'] } });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('BAD_REQUEST');
    const text = JSON.stringify(r.body);
    for (const part of ['"pdfText', 'rawBase64', 'attributes', 'markdown']) expect(text).toContain(part);
  });
});

describe('options accepted for the SDKs and ignored, with a warning', () => {
  it('scrape: the Document warning names them; proxy stealth is enhanced', async () => {
    const r = await cluster.call('POST', '/v2/scrape', {
      body: { url: site.url('/'), fastMode: true, useMock: 'm', __experimental_omce: true, parsers: [{ type: 'pdf', blocks: true }] },
    });
    expect(r.status).toBe(200);
    scrapeResponseSchema.parse(r.body);
    for (const name of ['fastMode', 'useMock', '__experimental_omce', 'parsers[0].blocks']) expect(r.body.data.warning).toContain(name);
    // This cluster has no browser, so no enhanced tier: "stealth" is refused exactly as "enhanced" is.
    const stealth = await cluster.call('POST', '/v2/scrape', { body: { url: site.url('/'), proxy: 'stealth' } });
    expect(stealth.body).toMatchObject({ code: 'UNSUPPORTED_OPTION', details: { option: 'proxy', capability: 'proxy:enhanced' } });
  });

  it('map, crawl and batch starts carry the warning in the response', async () => {
    const map = await cluster.call('POST', '/v2/map', { body: { url: site.url('/'), useIndex: true, ignoreCache: true } });
    expect(map.status).toBe(200);
    mapResponseSchema.parse(map.body);
    expect(map.body.warning).toContain('useIndex');
    expect(map.body.warning).toContain('ignoreCache');
    const crawl = await cluster.call('POST', '/v2/crawl', { body: { url: site.url('/'), limit: 1, scrapeOptions: { fastMode: true } } });
    expect(crawl.status).toBe(200);
    crawlStartResponseSchema.parse(crawl.body);
    expect(crawl.body.warning).toContain('scrapeOptions.fastMode');
    const batch = await cluster.call('POST', '/v2/batch/scrape', { body: { urls: [site.url('/')], __experimental_x: 1 } });
    expect(batch.status).toBe(200);
    batchStartResponseSchema.parse(batch.body);
    expect(batch.body.warning).toContain('__experimental_x');
    const plain = await cluster.call('POST', '/v2/map', { body: { url: site.url('/') } });
    expect(plain.body.warning).toBeUndefined();
  });
});
