import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import FirecrawlAppV1, { FirecrawlError } from 'firecrawl-v1';
import { FixtureSite, startFakeChatCompletions, waitFor, type FakeChatRequest, type FakeChatServer } from '@trawl/testing';
import { BOOT_KEY, TestCluster } from './helpers/cluster.js';

/**
 * The v1 API against the official v1 SDK (`@mendable/firecrawl-js@1.29.3`, installed as `firecrawl-v1`),
 * its methods called unmodified, and the 4.x SDK's `.v1` client: API + worker (http and browser roles)
 * + real Redis, the production LLM client against a local Chat Completions fake. Crawl methods are
 * covered with the v1 crawl routes.
 */

jest.setTimeout(120_000);

function article(title: string, body: string, links: string[] = []): string {
  const nav = links.map((l) => `<a href="${l}">${l}</a>`).join(' ');
  return `<!doctype html><html lang="en"><head><title>${title}</title><meta name="description" content="About ${title}"></head><body><nav>${nav}</nav>`
    + `<main><article><h1>${title}</h1><p>${body} This paragraph is long enough to be kept as main content of the page.</p></article></main></body></html>`;
}

/** The model answers from the page marker in the messages it receives (never from the test's memory). */
const answers: Record<string, unknown> = {
  'MARKER-WIDGET': { name: 'Widget', price: 12 },
  'MARKER-GADGET': { name: 'Gadget', price: 30 },
};
function respond(request: FakeChatRequest): unknown {
  const text = request.messages.map((m) => m.content).join('\n');
  const hit = Object.keys(answers).find((k) => text.includes(k));
  return hit ? answers[hit] : {};
}
const productJsonSchema = { type: 'object', properties: { name: { type: 'string' }, price: { type: 'number' } }, required: ['name', 'price'] };
/** The SDK types `schema` as a zod schema but sends a JSON Schema object as it is (what non-zod clients do). */
const productSchema = productJsonSchema as never;

let cluster: TestCluster;
let site: FixtureSite;
let llm: FakeChatServer;
let app: FirecrawlAppV1;

beforeAll(async () => {
  llm = await startFakeChatCompletions({ respond });
  site = await new FixtureSite()
    .page('/', article('Home', 'The home page.', ['/widget', '/gadget', '/about']))
    .page('/widget', article('Widget', 'MARKER-WIDGET The Widget costs 12 EUR.', ['/', '/gadget']))
    .page('/gadget', article('Gadget', 'MARKER-GADGET The Gadget costs 30 EUR.', ['/']))
    .page('/about', article('About', 'About this shop.', ['/']))
    .start();
  cluster = await TestCluster.start({
    TRAWL_WORKER_ROLES: 'http,browser', TRAWL_LLM_BASE_URL: llm.baseUrl, TRAWL_LLM_MODEL: 'fake-model',
  });
  app = new FirecrawlAppV1({ apiKey: BOOT_KEY, apiUrl: cluster.api.url });
});

afterAll(async () => {
  await cluster?.stop();
  await site?.stop();
  await llm?.close();
}, 30_000);

describe('SDK 1.29.3 scrapeUrl', () => {
  it('markdown, html, links and metadata as v1 clients read them', async () => {
    const doc = await app.scrapeUrl(site.url('/widget'), { formats: ['markdown', 'html', 'links'] });
    expect(doc.success).toBe(true);
    if (!doc.success) return;
    expect(doc.markdown).toContain('# Widget');
    expect(doc.html).toContain('<h1>Widget</h1>');
    expect(doc.links).toEqual(expect.arrayContaining([site.url('/'), site.url('/gadget')]));
    expect(doc.metadata).toMatchObject({ title: 'Widget', description: 'About Widget', sourceURL: site.url('/widget'), statusCode: 200 });
    // v1's default maxAge is 0: a second scrape fetches again instead of answering from the cache.
    const again = await app.scrapeUrl(site.url('/widget'), { formats: ['markdown'] });
    expect(again.success && again.metadata?.cacheState).not.toBe('hit');
  });

  it('screenshot@fullPage answers a screenshot URL', async () => {
    const doc = await app.scrapeUrl(site.url('/widget'), { formats: ['markdown', 'screenshot@fullPage'] });
    expect(doc.success && doc.screenshot).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v2\/blobs\//);
    if (!doc.success || doc.screenshot === undefined) return;
    const image = await fetch(doc.screenshot);
    expect(image.headers.get('content-type')).toMatch(/^image\//);
  });

  it('json with jsonOptions, and extract with extract options, answer in their own field', async () => {
    const json = await app.scrapeUrl(site.url('/widget'), {
      formats: ['json'], jsonOptions: { prompt: 'Name and price of the product', systemPrompt: 'You read shop pages.', schema: productSchema },
    });
    expect(json.success && json.json).toEqual({ name: 'Widget', price: 12 });
    expect(json.success && 'extract' in json).toBe(false);
    // The v1 systemPrompt reaches the model.
    expect(llm.requests.some((r) => r.messages.some((m) => m.content.includes('You read shop pages.')))).toBe(true);

    const extract = await app.scrapeUrl(site.url('/gadget'), { formats: ['markdown', 'extract'], extract: { schema: productSchema } });
    expect(extract.success && extract.extract).toEqual({ name: 'Gadget', price: 30 });
    expect(extract.success && extract.markdown).toContain('Gadget');
    expect(extract.success && 'json' in extract).toBe(false);
  });

  it('GET /v1/scrape/:id returns the stored document in v1 form', async () => {
    const doc = await app.scrapeUrl(site.url('/about'), { formats: ['markdown'] });
    const id = doc.success ? (doc.metadata?.scrapeId as string) : '';
    const r = await cluster.call('GET', `/v1/scrape/${id}`);
    expect(r.status).toBe(200);
    expect(r.body.data.markdown).toContain('About this shop');
  });

  it('errors as the SDK reports them: a bad option (400 with the v2 text and details), a dead target (the v2 status)', async () => {
    const bad = await app.scrapeUrl(site.url('/widget'), { formats: ['json'] }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(FirecrawlError);
    expect((bad as FirecrawlError).statusCode).toBe(400);
    expect((bad as FirecrawlError).message).toMatch(/^Failed to scrape URL\. Status code: 400\. Error: .+jsonOptions/);

    const raw = await app.scrapeUrl(site.url('/widget'), { waitFor: 40_000, timeout: 60_000 }).catch((e: unknown) => e);
    expect((raw as FirecrawlError).message).toContain('waitFor must not exceed half of timeout');

    const unknown = await cluster.call('POST', '/v1/scrape', { body: { url: site.url('/widget'), bogus: 1 } });
    expect([unknown.status, unknown.body.error]).toEqual([400, 'Unrecognized key in body -- please review the v1 API documentation for request body changes']);

    const dead = 'http://127.0.0.1:9/';
    const v2 = await cluster.call('POST', '/v2/scrape', { body: { url: dead } });
    const v1 = await cluster.call('POST', '/v1/scrape', { body: { url: dead } });
    expect(v2.status).toBeGreaterThanOrEqual(400);
    expect([v1.status, v1.body]).toEqual([v2.status, { ...v2.body, ...(v2.body.details ? { details: v1.body.details } : {}) }]);
    const sdk = await app.scrapeUrl(dead).catch((e: unknown) => e);
    expect(sdk).toBeInstanceOf(FirecrawlError);
    expect((sdk as FirecrawlError).statusCode).toBe(v2.status);
  });
});

describe('SDK 1.29.3 batch, map, extract', () => {
  it('batchScrapeUrls waits for the batch (it polls GET /v1/crawl/:id)', async () => {
    const out = await app.batchScrapeUrls([site.url('/widget')], { formats: ['markdown'] }, 1);
    expect(out).toMatchObject({ success: true, status: 'completed', total: 1 });
    expect((out as { data: Array<{ markdown?: string }> }).data[0]?.markdown).toBeTruthy();
  });

  it('asyncBatchScrapeUrls + checkBatchScrapeStatus + checkBatchScrapeErrors', async () => {
    const started = await app.asyncBatchScrapeUrls([site.url('/widget'), site.url('/gadget'), 'not a url'], { formats: ['markdown'] });
    expect(started).toMatchObject({ success: true, invalidURLs: ['not a url'] });
    if (!('id' in started) || started.id === undefined) throw new Error('no batch id');
    expect(started.url).toBe(`${cluster.api.url}/v1/batch/scrape/${started.id}`);
    const id = started.id;
    const done = await waitFor(async () => {
      const s = await app.checkBatchScrapeStatus(id);
      return s.success && s.status === 'completed' ? s : undefined;
    }, { what: 'batch completed', timeoutMs: 90_000, intervalMs: 200 });
    expect(done).toMatchObject({ total: 2, completed: 2 });
    expect(done.expiresAt).toBeInstanceOf(Date);
    expect(done.data.map((d) => d.markdown).sort()).toEqual([expect.stringContaining('Gadget'), expect.stringContaining('Widget')]);
    const errors = await app.checkBatchScrapeErrors(id);
    expect(errors).toEqual({ errors: [], robotsBlocked: [] });
  });

  it('a batch can be cancelled through DELETE /v1/batch/scrape/:id', async () => {
    const started = await cluster.call('POST', '/v1/batch/scrape', { body: { urls: [site.url('/about')], formats: ['markdown'] } });
    expect(started.status).toBe(200);
    const cancel = await cluster.call('DELETE', `/v1/batch/scrape/${started.body.id}`);
    // Cancelled while running, or 409 when the single page already finished: both are the v2 answers.
    expect([200, 409]).toContain(cancel.status);
    expect((await cluster.call('GET', `/v1/batch/scrape/${started.body.id}/errors`)).status).toBe(200);
    expect((await cluster.call('GET', '/v1/batch/scrape/not-a-uuid')).status).toBe(400);
  });

  it('mapUrl answers a list of URL strings; ignoreSitemap/sitemapOnly/includeSubdomains/search/limit are accepted', async () => {
    const all = await app.mapUrl(site.url('/'), { ignoreSitemap: true, includeSubdomains: false });
    expect(all.success).toBe(true);
    if (!all.success) return;
    expect(all.links).toEqual(expect.arrayContaining([site.url('/widget'), site.url('/gadget'), site.url('/about')]));
    expect(all.links?.every((l) => typeof l === 'string')).toBe(true);
    const ranked = await app.mapUrl(site.url('/'), { search: 'gadget', ignoreSitemap: true });
    expect(ranked.success && ranked.links?.[0]).toBe(site.url('/gadget'));
    const limited = await app.mapUrl(site.url('/'), { limit: 2 });
    expect(limited.success && limited.links).toHaveLength(2);
    const sitemapOnly = await app.mapUrl(site.url('/'), { sitemapOnly: true });
    expect(sitemapOnly.success).toBe(true);
    const bad = await app.mapUrl(site.url('/'), { limit: 0 }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(FirecrawlError);
    expect((bad as Error).message).toContain('status code 400');
  });

  it('extract polls /v1/extract/:id until completed', async () => {
    const out = await app.extract([site.url('/widget')], { prompt: 'Name and price', schema: productSchema });
    expect(out).toMatchObject({ success: true, data: { name: 'Widget', price: 12 } });
    const started = await app.asyncExtract([site.url('/gadget')], { prompt: 'Name and price', schema: productSchema });
    expect(started).toMatchObject({ success: true });
    if (!('id' in started)) throw new Error('no extract id');
    const status = await waitFor(async () => {
      const s = await app.getExtractStatus(String(started.id));
      return s.status === 'completed' ? s : undefined;
    }, { what: 'extract completed', timeoutMs: 90_000, intervalMs: 200 });
    expect(status.data).toEqual({ name: 'Gadget', price: 30 });
  });
});

describe('team routes under /v1', () => {
  it('answer as under /v2', async () => {
    for (const path of ['/team/credit-usage', '/team/token-usage', '/team/queue-status', '/concurrency-check']) {
      const [v1, v2] = [await cluster.call('GET', `/v1${path}`), await cluster.call('GET', `/v2${path}`)];
      expect([path, v1.status, Object.keys(v1.body).sort()]).toEqual([path, 200, Object.keys(v2.body).sort()]);
    }
  });
});

describe('the 4.x SDK v1 client', () => {
  it('scrapeUrl and mapUrl through new Firecrawl(...).v1', async () => {
    const { default: Firecrawl } = await import('@mendable/firecrawl-js');
    const v1 = new Firecrawl({ apiKey: BOOT_KEY, apiUrl: cluster.api.url }).v1;
    const doc = await v1.scrapeUrl(site.url('/widget'), { formats: ['markdown', 'links'] });
    expect(doc.success && doc.markdown).toContain('# Widget');
    const map = await v1.mapUrl(site.url('/'), { ignoreSitemap: true });
    expect(map.success && map.links).toEqual(expect.arrayContaining([site.url('/widget')]));
  });
});
