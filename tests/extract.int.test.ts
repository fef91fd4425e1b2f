import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FixtureSite, startFakeChatCompletions, startFakeSearxng, waitFor, type FakeChatRequest, type FakeChatServer, type FakeSearxngServer } from '@trawl/testing';
import { BOOT_KEY, TestCluster } from './helpers/cluster.js';

jest.setTimeout(120_000);

let cluster: TestCluster;
let site: FixtureSite;
let llm: FakeChatServer;
let searxng: FakeSearxngServer;
let receiver: Receiver;
/** Requests to `/held` wait until this is called. */
let releaseHeld: () => void = () => undefined;

/** A webhook receiver that keeps every body and wakes waiters. */
class Receiver {
  server!: Server;
  url = '';
  received: any[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any -- arbitrary payloads
  private waiters: { until: () => boolean; resolve: () => void }[] = [];

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        this.received.push(JSON.parse(raw));
        res.writeHead(200).end('ok');
        this.waiters = this.waiters.filter((w) => (w.until() ? (w.resolve(), false) : true));
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  waitFor(until: () => boolean): Promise<void> {
    if (until()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ until, resolve }));
  }

  of(id: string) {
    return this.received.filter((b) => b.id === id);
  }

  close(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}

function article(title: string, body: string, links: string[] = []): string {
  const nav = links.map((l) => `<a href="${l}">${l}</a>`).join(' ');
  return `<!doctype html><html><head><title>${title}</title></head><body><nav>${nav}</nav><main><article><h1>${title}</h1>`
    + `<p>${body} This paragraph is long enough to be kept as main content of the page by the extractor.</p></article></main></body></html>`;
}

/** The model's answers: by the marker of the page in the prompt. */
const answers: Record<string, unknown> = {
  'MARKER-A': { company: 'Acme', products: [{ name: 'Kettle' }, { name: 'Toaster' }] },
  'MARKER-B': { company: 'Acme', products: [{ name: 'Toaster' }, { name: 'Mixer' }] },
  'MARKER-DOCS': { topics: ['intro'] },
  'MARKER-X': { topics: ['install'] },
  'MARKER-Y': { topics: ['configure', 'intro'] },
  'MARKER-Z': { topics: ['upgrade'] },
  'MARKER-OTHER': { topics: ['unrelated'] },
  'MARKER-SDK': { title: 'SDK page', price: 12 },
  'MARKER-G1': { company: 'Gizmo', products: [{ name: 'Widget' }] },
  'MARKER-G2': { company: 'Gizmo', products: [{ name: 'Sprocket' }] },
};
function respond(request: FakeChatRequest): unknown {
  const text = request.messages.map((m) => m.content).join('\n');
  const hit = Object.keys(answers).find((k) => text.includes(k));
  return hit ? answers[hit] : {};
}
const asked = (marker: string) => llm.requests.some((r) => r.messages.some((m) => m.content.includes(marker)));

const productSchema = {
  type: 'object',
  properties: {
    company: { type: 'string' },
    products: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
  },
};

beforeAll(async () => {
  llm = await startFakeChatCompletions({ respond });
  receiver = await new Receiver().start();
  // The search provider: a query about gadgets finds the two gadget pages (one twice), anything else nothing.
  searxng = await startFakeSearxng({
    results: (r) => (r.q.includes('gadgets')
      ? [
        { url: site.url('/web/g1'), title: 'Gadget 1', content: 'gadgets' },
        { url: site.url('/web/g2'), title: 'Gadget 2', content: 'gadgets' },
        { url: site.url('/web/g1'), title: 'Gadget 1 again', content: 'gadgets' },
      ]
      : []),
  });
  site = await new FixtureSite()
    .page('/shop/a', article('Shop A', 'MARKER-A kettles and toasters.'))
    .page('/shop/b', article('Shop B', 'MARKER-B toasters and mixers.'))
    .page('/docs/', article('Docs', 'MARKER-DOCS introduction.', ['/docs/x', '/docs/y', '/docs/z', '/other']))
    .page('/docs/x', article('X', 'MARKER-X installation.', ['/docs/']))
    .page('/docs/y', article('Y', 'MARKER-Y configuration.', ['/docs/']))
    .page('/docs/z', article('Z', 'MARKER-Z upgrades.', ['/docs/']))
    .page('/other', article('Other', 'MARKER-OTHER elsewhere.'))
    .page('/sdk', article('SDK', 'MARKER-SDK a product for 12 dollars.'))
    .page('/web/g1', article('Gadget 1', 'MARKER-G1 widgets.'))
    .page('/web/g2', article('Gadget 2', 'MARKER-G2 sprockets.'))
    .route('/held', async (_req, res) => {
      await new Promise<void>((r) => (releaseHeld = r));
      res.writeHead(200, { 'content-type': 'text/html' }).end(article('Held', 'MARKER-HELD'));
    })
    .start();
  cluster = await TestCluster.start({ TRAWL_LLM_BASE_URL: llm.baseUrl, TRAWL_LLM_MODEL: 'fake-model', TRAWL_EXTRACT_MAX_PAGES: '3', TRAWL_SEARXNG_URL: searxng.baseUrl });
});

afterAll(async () => {
  releaseHeld();
  await cluster?.stop();
  await site?.stop();
  await receiver?.close();
  await llm?.close();
  await searxng?.close();
});

/** The extract's status once it left `processing`. */
async function settled(id: string, key = BOOT_KEY) {
  return waitFor(async () => {
    const res = await cluster.call('GET', `/v2/extract/${id}`, { key });
    return res.body.status !== 'processing' ? res : null;
  }, { what: `extract ${id} to end`, timeoutMs: 90_000 });
}

describe('POST /v2/extract', () => {
  it('extracts several pages with a schema: merged, de-duplicated, with sources, webhooks and credits; a failed page is a warning', async () => {
    const dead = 'http://127.0.0.1:1/gone';
    const start = await cluster.call('POST', '/v2/extract', {
      body: { urls: [site.url('/shop/a'), site.url('/shop/b'), dead], prompt: 'The company and its products', schema: productSchema, showSources: true, webhook: receiver.url },
    });
    expect(start.status).toBe(200);
    expect(start.body).toEqual({ success: true, id: expect.any(String) });
    const id = start.body.id as string;
    await receiver.waitFor(() => receiver.of(id).some((b) => b.type === 'extract.completed'));
    const res = await cluster.call('GET', `/v2/extract/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, status: 'completed', tokensUsed: expect.any(Number), creditsUsed: expect.any(Number) });
    expect(res.body.data).toEqual({ company: 'Acme', products: [{ name: 'Kettle' }, { name: 'Toaster' }, { name: 'Mixer' }] });
    expect(res.body.sources).toEqual({
      company: [site.url('/shop/a'), site.url('/shop/b')],
      products: [site.url('/shop/a'), site.url('/shop/b')],
      'products[0]': [site.url('/shop/a')],
      'products[1]': [site.url('/shop/a'), site.url('/shop/b')],
      'products[2]': [site.url('/shop/b')],
    });
    expect(res.body.warning).toContain(dead);
    expect(res.body.tokensUsed).toBeGreaterThan(0);
    // Two pages scraped (1 credit each) and extracted (4 each); the dead page costs nothing.
    expect(res.body.creditsUsed).toBe(10);
    expect(Date.parse(res.body.expiresAt as string)).toBeGreaterThan(Date.now() + 23 * 3_600_000);
    // The schema went to the model, and every call was labelled as the extract feature's.
    const sent = llm.requests.filter((r) => r.messages.some((m) => m.content.includes('MARKER-A')));
    expect(JSON.stringify(sent[0]!.responseFormat ?? sent[0]!.messages)).toContain('products');
    expect(receiver.of(id).map((b) => b.type)).toEqual(['extract.started', 'extract.completed']);
    expect(receiver.of(id)[1].data).toEqual([res.body.data]);
  });

  it('expands a trailing /* with the map: pages below that path only, at most TRAWL_EXTRACT_MAX_PAGES', async () => {
    const start = await cluster.call('POST', '/v2/extract', { body: { urls: [`${site.origin}/docs/*`], prompt: 'Topics covered' } });
    expect(start.status).toBe(200);
    const res = await settled(start.body.id as string);
    expect(res.body.status).toBe('completed');
    const topics = res.body.data.topics as string[];
    // /docs/ plus two of x, y, z (cap 3); never /other, which is outside /docs/.
    expect(topics).toContain('intro');
    expect(new Set(topics).size).toBe(topics.length);
    expect(asked('MARKER-DOCS')).toBe(true);
    expect(['MARKER-X', 'MARKER-Y', 'MARKER-Z'].filter(asked)).toHaveLength(2);
    expect(asked('MARKER-OTHER')).toBe(false);
    expect(res.body.warning).toMatch(/first 3 pages/);
    expect(res.body.sources).toBeUndefined();
  });

  it('lists invalid URLs (ignoreInvalidURLs, the default) or refuses them', async () => {
    const ok = await cluster.call('POST', '/v2/extract', { body: { urls: ['not a url', site.url('/shop/a')], prompt: 'The company' } });
    expect(ok.status).toBe(200);
    expect(ok.body.invalidURLs).toEqual(['not a url']);
    expect((await settled(ok.body.id as string)).body.data).toMatchObject({ company: 'Acme' });
    const refused = await cluster.call('POST', '/v2/extract', { body: { urls: ['not a url', site.url('/shop/a')], prompt: 'x', ignoreInvalidURLs: false } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ success: false, details: { invalidURLs: ['not a url'] } });
    const empty = await cluster.call('POST', '/v2/extract', { body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body.code).toBe('BAD_REQUEST');
  });

  it('enableWebSearch without urls: searches the prompt and extracts from the top results, with their URLs in sources', async () => {
    const prompt = 'Which gadgets does Gizmo make?';
    const start = await cluster.call('POST', '/v2/extract', { body: { prompt, schema: productSchema, enableWebSearch: true, showSources: true } });
    expect(start.status).toBe(200);
    const res = await settled(start.body.id as string);
    expect(res.body).toMatchObject({ success: true, status: 'completed' });
    expect(res.body.data).toEqual({ company: 'Gizmo', products: [{ name: 'Widget' }, { name: 'Sprocket' }] });
    expect(res.body.sources).toMatchObject({ company: [site.url('/web/g1'), site.url('/web/g2')], 'products[1]': [site.url('/web/g2')] });
    expect(searxng.requests.some((r) => r.q === prompt)).toBe(true);
    // Two pages scraped (1 each) and extracted (4 each), and the search: 2 credits per 10 results.
    expect(res.body.creditsUsed).toBe(12);
  });

  it('enableWebSearch with urls: the given pages first, then the results, at most TRAWL_EXTRACT_MAX_PAGES; a prompt-only extract is served too', async () => {
    const start = await cluster.call('POST', '/v2/extract', {
      body: { urls: [site.url('/shop/a'), site.url('/shop/b')], prompt: 'The company and its gadgets', schema: productSchema, enableWebSearch: true, showSources: true },
    });
    expect(start.status).toBe(200);
    const res = await settled(start.body.id as string);
    expect(res.body.status).toBe('completed');
    expect(res.body.warning).toContain('TRAWL_EXTRACT_MAX_PAGES');
    const pages = new Set(Object.values(res.body.sources as Record<string, string[]>).flat());
    expect([...pages].sort()).toEqual([site.url('/shop/a'), site.url('/shop/b'), site.url('/web/g1')].sort());
    // Without urls or enableWebSearch, the search finds the pages too (no result: the extract fails, saying so).
    const none = await cluster.call('POST', '/v2/extract', { body: { prompt: 'Nothing matches this' } });
    expect(none.status).toBe(200);
    const failed = await settled(none.body.id as string);
    expect(failed.body).toMatchObject({ status: 'failed', error: expect.stringContaining('The web search found no pages') });
  });

  it('fails the extract with the LLM error when the LLM is down (after the retries), with extract.failed', async () => {
    llm.setMode('down');
    try {
      const start = await cluster.call('POST', '/v2/extract', { body: { urls: [site.url('/shop/a')], prompt: 'x', webhook: receiver.url } });
      const id = start.body.id as string;
      await receiver.waitFor(() => receiver.of(id).some((b) => b.type === 'extract.failed'));
      const res = await cluster.call('GET', `/v2/extract/${id}`);
      expect(res.body).toMatchObject({ success: false, status: 'failed', data: null });
      expect(res.body.error).toMatch(/LLM/);
      expect(receiver.of(id).find((b) => b.type === 'extract.failed')).toMatchObject({ success: false, error: res.body.error });
    } finally {
      llm.setMode('json-schema');
    }
  });

  it('cancels a running extract', async () => {
    const start = await cluster.call('POST', '/v2/extract', { body: { urls: [site.url('/held')], prompt: 'x' } });
    const id = start.body.id as string;
    await waitFor(() => (site.hits.get('/held') ?? 0) > 0, { what: 'the held page to be requested' });
    const del = await cluster.call('DELETE', `/v2/extract/${id}`);
    expect(del.status).toBe(200);
    releaseHeld();
    expect((await cluster.call('GET', `/v2/extract/${id}`)).body.status).toBe('cancelled');
    expect((await cluster.call('DELETE', `/v2/extract/${id}`)).status).toBe(409);
    expect(asked('MARKER-HELD')).toBe(false);
  });

  it('answers 404 JOB_NOT_FOUND for an unknown or another team\'s id, 400 INVALID_JOB_ID for a malformed one', async () => {
    const unknown = await cluster.call('GET', '/v2/extract/3f1c1f2e-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('JOB_NOT_FOUND');
    expect((await cluster.call('GET', '/v2/extract/nope')).body.code).toBe('INVALID_JOB_ID');
    const mine = await cluster.call('POST', '/v2/extract', { body: { urls: [site.url('/shop/b')], prompt: 'x' } });
    const other = await cluster.team();
    expect((await cluster.call('GET', `/v2/extract/${mine.body.id}`, { key: other.key })).status).toBe(404);
    await settled(mine.body.id as string);
  });

  it('serves the official SDK: extract({urls, prompt, schema}) polls until completed', async () => {
    const { default: Firecrawl } = await import('@mendable/firecrawl-js');
    const fc = new Firecrawl({ apiKey: BOOT_KEY, apiUrl: cluster.api.url });
    const out = await fc.extract({
      urls: [site.url('/sdk')], prompt: 'Title and price',
      schema: { type: 'object', properties: { title: { type: 'string' }, price: { type: 'number' } } },
      pollInterval: 1, timeout: 90,
    });
    expect(out).toMatchObject({ success: true, status: 'completed', data: { title: 'SDK page', price: 12 } });
  });
});

describe('POST /v2/extract without an LLM', () => {
  let bare: TestCluster;
  beforeAll(async () => {
    bare = await TestCluster.start({}, { worker: false });
  });
  afterAll(async () => {
    await bare?.stop();
  });

  it('answers 400 LLM_NOT_CONFIGURED before anything is queued', async () => {
    const res = await bare.call('POST', '/v2/extract', { body: { urls: [site.url('/shop/a')], prompt: 'x' } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'LLM_NOT_CONFIGURED', details: { option: 'extract' } });
    // No record, no job (BullMQ's own `meta` key of the queue exists from the start).
    expect((await bare.redis.keys('*extract*')).filter((k) => !k.endsWith(':extract:meta'))).toEqual([]);
  });
});
