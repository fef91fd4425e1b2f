import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { crawlParamsPreviewResponseSchema, crawlStartResponseSchema } from '@trawl/api-schema';
import { FixtureSite, startFakeChatCompletions, type FakeChatRequest, type FakeChatServer } from '@trawl/testing';
import { BOOT_KEY, TestCluster } from './helpers/cluster.js';
import { allDocuments, pathOf, watchCrawl } from './helpers/crawl-watch.js';

jest.setTimeout(120_000);

let cluster: TestCluster;
let fake: FakeChatServer;
let site: FixtureSite;
let team: { id: string; key: string };

/** The URLs the model was shown (the sample of the site's map, in the user message). */
function shownUrls(request: FakeChatRequest): string[] {
  const text = request.messages.filter((m) => m.role !== 'system').map((m) => m.content).join('\n');
  return [...text.matchAll(/https?:\/\/[^\s"'<>\\]+/g)].map((m) => m[0]);
}

/**
 * The "model": restricts the crawl to the section of the site the prompt names, built from the real
 * paths it was shown (so a test can prove the map happened). Tests replace it to answer otherwise.
 */
function sectionModel(request: FakeChatRequest): unknown {
  const paths = shownUrls(request).map((u) => new URL(u).pathname);
  // The user's words: the data message without the URLs (the instructions' examples name sections too).
  const words = request.messages.filter((m) => m.role !== 'system').map((m) => m.content).join('\n').replace(/https?:\/\/\S+/g, '');
  const section = /blog/i.test(words) ? 'blog' : 'docs';
  const seen = paths.some((p) => p.startsWith(`/${section}/`));
  return seen ? { includePaths: [`^/${section}/`], limit: 10 } : { limit: 10 };
}
let model: (request: FakeChatRequest) => unknown = sectionModel;

const link = (paths: string[]) => paths.map((p) => `<a href="${p}">${p}</a>`).join(' ');
const html = (title: string, body: string) => `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`;
const BLOG = ['/blog/one', '/blog/two', '/blog/three'];
const DOCS = ['/docs/a', '/docs/b'];

beforeAll(async () => {
  fake = await startFakeChatCompletions({ respond: (r) => model(r) });
  site = new FixtureSite();
  site.page('/', html('Home', link(['/blog/', '/docs/', '/about'])));
  site.page('/blog/', html('Blog', link(BLOG)));
  for (const p of BLOG) site.page(p, html(`Post ${p}`, link(['/', '/blog/'])));
  site.page('/docs/', html('Docs', link(DOCS)));
  for (const p of DOCS) site.page(p, html(`Doc ${p}`, link(['/'])));
  site.page('/about', html('About', link(['/'])));
  await site.start();
  cluster = await TestCluster.start({
    TRAWL_LLM_BASE_URL: fake.baseUrl,
    TRAWL_LLM_MODEL: 'fake-model',
    // A down endpoint is retried within this; the gateway waits for the map and two calls.
    TRAWL_LLM_TIMEOUT_MS: '20000',
    TRAWL_CRAWL_HOST_RATE_PER_SEC: '0',
    TRAWL_PUBLIC_URL: '',
  });
  team = await cluster.team({ concurrency: 4 });
});

afterAll(async () => {
  await cluster?.stop();
  await site?.stop();
  await fake?.close();
});

/** Starts a crawl, waits for its end, returns the start answer and the crawled paths. */
async function crawl(body: Record<string, unknown>) {
  const start = await cluster.call('POST', '/v2/crawl', { key: team.key, body });
  expect(start.status).toBe(200);
  await watchCrawl(cluster, start.body.id as string, { key: team.key });
  const { docs } = await allDocuments(cluster, start.body.id as string, 'crawl', team.key);
  return { start: start.body, paths: docs.map(pathOf).sort() };
}

describe('POST /v2/crawl/params-preview', () => {
  it('maps the site first and derives includePaths from its real paths', async () => {
    model = sectionModel;
    const before = fake.requests.length;
    const res = await cluster.call('POST', '/v2/crawl/params-preview', { key: team.key, body: { url: site.url('/'), prompt: 'Only the blog posts' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { url: site.url('/'), includePaths: ['^/blog/'], limit: 10 } });
    crawlParamsPreviewResponseSchema.parse(res.body);
    const asked = fake.requests.slice(before);
    expect(asked).toHaveLength(1);
    const shown = shownUrls(asked[0]!);
    for (const p of [...BLOG, ...DOCS]) expect(shown).toContain(site.url(p));
    expect(asked[0]!.messages.map((m) => m.content).join('\n')).toContain('Only the blog posts');
    // The call's tokens count for the team.
    const usage = await cluster.call('GET', '/v2/team/token-usage/historical', { key: team.key });
    expect(usage.body.periods[0].tokensUsed).toBeGreaterThan(0);
  });

  it('drops an invalid regular expression from the model with a warning', async () => {
    model = () => ({ includePaths: ['^/blog/(?!draft)', '^/blog/'], excludePaths: ['(unclosed'], sitemap: 'skip' });
    const res = await cluster.call('POST', '/v2/crawl/params-preview', { key: team.key, body: { url: site.url('/'), prompt: 'blog, no drafts' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ url: site.url('/'), includePaths: ['^/blog/'], sitemap: 'skip' });
    expect(res.body.warning).toContain('includePaths[0]');
    expect(res.body.warning).toContain('excludePaths[0]');
  });

  it('a model answering garbage: 400 "Failed to process natural language prompt..."', async () => {
    model = () => 'I would crawl the blog, I think.';
    const res = await cluster.call('POST', '/v2/crawl/params-preview', { key: team.key, body: { url: site.url('/'), prompt: 'the blog' } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'CRAWL_PROMPT_FAILED', error: 'Failed to process natural language prompt. Please try rephrasing.' });
  });

  it('invalid request parameters: 400 BAD_REQUEST with the spec\'s wording and the issues', async () => {
    const res = await cluster.call('POST', '/v2/crawl/params-preview', { key: team.key, body: { url: site.url('/') } });
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.code).toBe('BAD_REQUEST');
    expect(res.body.error).toMatch(/^Invalid request parameters: prompt: /);
    expect(res.body.details.issues[0].path).toBe('prompt');
    const unauthorized = await cluster.call('POST', '/v2/crawl/params-preview', { key: 'tr-wrong', body: { url: site.url('/'), prompt: 'x' } });
    expect(unauthorized.status).toBe(401);
  });

  it('the LLM endpoint down: 502 LLM_ERROR, message starting like the prompt failure', async () => {
    model = sectionModel;
    fake.setMode('down');
    try {
      const res = await cluster.call('POST', '/v2/crawl/params-preview', { key: team.key, body: { url: site.url('/'), prompt: 'the blog' } });
      expect(res.status).toBe(502);
      expect(res.body.code).toBe('LLM_ERROR');
      expect(res.body.error).toMatch(/^Failed to process natural language prompt: /);
    } finally {
      fake.setMode('json-schema');
    }
  });
});

describe('POST /v2/crawl with prompt', () => {
  it('crawls only the paths the derived options allow and answers promptGeneratedOptions', async () => {
    model = sectionModel;
    const r = await crawl({ url: site.url('/'), prompt: 'Crawl the blog posts' });
    expect(r.start.promptGeneratedOptions).toEqual({ includePaths: ['^/blog/'], limit: 10 });
    crawlStartResponseSchema.parse(r.start);
    // The seed is always scraped; everything else is under /blog/.
    expect(r.paths).toEqual(['/', '/blog/', ...BLOG].sort());
  });

  it('options the user set win over derived ones', async () => {
    model = sectionModel;
    const r = await crawl({ url: site.url('/'), prompt: 'Crawl the blog posts', includePaths: ['^/docs/'], limit: 3 });
    expect(r.start.promptGeneratedOptions).toEqual({ includePaths: ['^/blog/'], limit: 10 });
    expect(r.paths).toHaveLength(3);
    expect(r.paths.every((p: string) => p === '/' || p.startsWith('/docs/'))).toBe(true);
  });

  it('a model answering garbage: 400 with the hosted message, and no crawl is started', async () => {
    model = () => 'no idea';
    const before = (await cluster.call('GET', '/v2/crawl/active', { key: team.key })).body.crawls.length;
    const res = await cluster.call('POST', '/v2/crawl', { key: team.key, body: { url: site.url('/'), prompt: 'the blog' } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      success: false, code: 'CRAWL_PROMPT_FAILED',
      error: 'Failed to process natural language prompt. Please try rephrasing or use explicit crawler options.',
    });
    expect((await cluster.call('GET', '/v2/crawl/active', { key: team.key })).body.crawls).toHaveLength(before);
  });
});

describe('official SDK (@mendable/firecrawl-js 4.x)', () => {
  it('crawlParamsPreview and crawl(url, {prompt})', async () => {
    model = sectionModel;
    const { default: Firecrawl } = await import('@mendable/firecrawl-js');
    const fc = new Firecrawl({ apiKey: BOOT_KEY, apiUrl: cluster.api.url });
    const preview = await fc.crawlParamsPreview(site.url('/'), 'only the docs');
    expect(preview).toEqual({ url: site.url('/'), includePaths: ['^/docs/'], limit: 10 });
    const job = await fc.crawl(site.url('/'), { prompt: 'only the docs', pollInterval: 1 });
    expect(job.status).toBe('completed');
    expect(job.data.map((d) => pathOf(d as never)).sort()).toEqual(['/', '/docs/', ...DOCS].sort());
    model = () => 'garbage';
    await expect(fc.crawlParamsPreview(site.url('/'), 'the docs')).rejects.toMatchObject({
      status: 400, message: 'Failed to process natural language prompt. Please try rephrasing.',
    });
  });
});

describe('without an LLM', () => {
  it('params-preview and a crawl prompt answer 400 LLM_NOT_CONFIGURED', async () => {
    const bare = await TestCluster.start({}, { worker: false });
    try {
      const preview = await bare.call('POST', '/v2/crawl/params-preview', { body: { url: site.url('/'), prompt: 'the blog' } });
      expect(preview.status).toBe(400);
      expect(preview.body.code).toBe('LLM_NOT_CONFIGURED');
      const crawlRes = await bare.call('POST', '/v2/crawl', { body: { url: site.url('/'), prompt: 'the blog' } });
      expect(crawlRes.status).toBe(400);
      expect(crawlRes.body.code).toBe('LLM_NOT_CONFIGURED');
      expect(crawlRes.body.details.option).toBe('prompt');
    } finally {
      await bare.stop();
    }
  });
});
