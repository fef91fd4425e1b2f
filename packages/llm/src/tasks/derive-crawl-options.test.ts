import { describe, expect, it } from '@jest/globals';
import { LlmError, type Llm, type StructuredRequest, type StructuredResult, type TextRequest, type TextResult } from '../types.js';
import { CrawlPromptError, deriveCrawlOptions } from './derive-crawl-options.js';

/** An {@link Llm} that answers from a script and records the requests (an implementation, not a mock). */
class ScriptedLlm implements Llm {
  readonly contextTokens = 8192;
  readonly maxOutputTokens = 1024;
  readonly requests: StructuredRequest[] = [];
  constructor(private readonly answer: (req: StructuredRequest) => StructuredResult | Promise<StructuredResult>) {}
  async structured<T>(request: StructuredRequest): Promise<StructuredResult<T>> {
    this.requests.push(request);
    return (await this.answer(request)) as StructuredResult<T>;
  }
  async text(_request: TextRequest): Promise<TextResult> {
    throw new Error('not used');
  }
}

const usage = { promptTokens: 120, completionTokens: 30, calls: 1 };
const answering = (value: unknown, warning?: string) => new ScriptedLlm(() => ({ value, usage, ...(warning ? { warning } : {}) }));
const base = { url: 'https://site.test/', prompt: 'only the blog posts', sampleUrls: ['https://site.test/', 'https://site.test/blog/a', 'https://site.test/about'] };

describe('deriveCrawlOptions', () => {
  it('sends one structured call (feature crawl) with the schema, the prompt and the sample URLs as data', async () => {
    const llm = answering({ includePaths: ['^/blog/'], limit: 50, sitemap: 'skip', crawlEntireDomain: false });
    const out = await deriveCrawlOptions(llm, { ...base, zeroDataRetention: true });
    expect(out).toEqual({ options: { includePaths: ['^/blog/'], limit: 50, sitemap: 'skip', crawlEntireDomain: false }, warnings: [], usage });
    expect(llm.requests).toHaveLength(1);
    const req = llm.requests[0]!;
    expect(req.feature).toBe('crawl');
    expect(req.zeroDataRetention).toBe(true);
    expect(req.schemaName).toBe('crawl_options');
    expect(Object.keys((req.schema as { properties: object }).properties).sort()).toEqual([
      'allowExternalLinks', 'allowSubdomains', 'crawlEntireDomain', 'deduplicateSimilarURLs', 'delay', 'excludePaths', 'ignoreQueryParameters',
      'ignoreRobotsTxt', 'includePaths', 'limit', 'maxDepth', 'maxDiscoveryDepth', 'robotsUserAgent', 'sitemap',
    ]);
    expect(req.instructions).toContain('matched against the URL path');
    expect(req.instructions).toContain('RE2');
    expect(req.content).toContain('only the blog posts');
    for (const u of base.sampleUrls) expect(req.content).toContain(u);
  });

  it('sends at most 100 sample URLs', async () => {
    const llm = answering({});
    const sampleUrls = Array.from({ length: 150 }, (_, i) => `https://site.test/p/${i}`);
    await deriveCrawlOptions(llm, { ...base, sampleUrls });
    expect(llm.requests[0]!.content).toContain('https://site.test/p/99\n'.trimEnd());
    expect(llm.requests[0]!.content).not.toContain('https://site.test/p/100');
  });

  it('drops options of the wrong type or out of range, one warning each; null means not set', async () => {
    const out = await deriveCrawlOptions(answering({
      limit: 0, maxDiscoveryDepth: 2.5, maxDepth: 3, delay: 99_999, sitemap: 'sometimes', allowSubdomains: 'yes', allowExternalLinks: null,
      ignoreQueryParameters: true, robotsUserAgent: '', includePaths: '^/blog/', excludePaths: ['^/tag/', 7, '', '^/tag/'], extra: 1,
    }), base);
    expect(out.options).toEqual({ maxDepth: 3, ignoreQueryParameters: true, excludePaths: ['^/tag/'] });
    const dropped = out.warnings.map((w) => /(option|pattern) (\S+)/.exec(w)?.[2]).sort();
    expect(dropped).toEqual([
      'allowSubdomains', 'delay', 'excludePaths[1]', 'excludePaths[2]', 'includePaths', 'limit', 'maxDiscoveryDepth', 'robotsUserAgent', 'sitemap',
    ]);
    expect(out.warnings.find((w) => w.includes('limit'))).toContain('out of range');
  });

  it('keeps every pattern string as is: RE2 validity is the caller\'s check', async () => {
    const out = await deriveCrawlOptions(answering({ includePaths: ['^/blog/(?=2024)', '^/docs/'] }), base);
    expect(out.options.includePaths).toEqual(['^/blog/(?=2024)', '^/docs/']);
  });

  it('an empty pattern list is left out (it restricts nothing)', async () => {
    const out = await deriveCrawlOptions(answering({ includePaths: [], limit: 5 }), base);
    expect(out.options).toEqual({ limit: 5 });
  });

  it('a null answer, or one that is not an object, is a CrawlPromptError carrying the warning', async () => {
    await expect(deriveCrawlOptions(answering(null, 'the answer is not valid JSON'), base)).rejects.toThrow(new CrawlPromptError('the answer is not valid JSON'));
    await expect(deriveCrawlOptions(answering(['^/blog/']), base)).rejects.toBeInstanceOf(CrawlPromptError);
    await expect(deriveCrawlOptions(answering('garbage'), base)).rejects.toBeInstanceOf(CrawlPromptError);
  });

  it('an endpoint failure stays an LlmError', async () => {
    const llm = new ScriptedLlm(() => {
      throw new LlmError('unavailable', 'connection refused');
    });
    await expect(deriveCrawlOptions(llm, base)).rejects.toBeInstanceOf(LlmError);
  });
});
