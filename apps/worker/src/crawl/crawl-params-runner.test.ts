import { describe, expect, it } from '@jest/globals';
import { TrawlError, type MapRequest } from '@trawl/api-schema';
import { LlmError, type Llm, type StructuredRequest, type StructuredResult } from '@trawl/llm';
import { createLogger } from '@trawl/observability';
import type { CrawlQueueJob } from '@trawl/queue';
import { CrawlParamsRunner, checkDerivedPatterns } from './crawl-params-runner.js';
import type { MapLink } from './map-runner.js';

/** An {@link Llm} answering from a script (an implementation of the interface, not a module mock). */
class ScriptedLlm implements Llm {
  readonly contextTokens = 8192;
  readonly maxOutputTokens = 1024;
  readonly requests: StructuredRequest[] = [];
  constructor(private readonly answer: (req: StructuredRequest) => StructuredResult) {}
  async structured<T>(request: StructuredRequest): Promise<StructuredResult<T>> {
    this.requests.push(request);
    return this.answer(request) as StructuredResult<T>;
  }
  async text(): Promise<never> {
    throw new Error('not used');
  }
}

/** A map that lists fixed links (or fails), recording its requests. */
class ListedMap {
  readonly requests: Array<{ request: MapRequest; deadline: number }> = [];
  constructor(private readonly links: MapLink[] | Error) {}
  async run(request: MapRequest, ctx: { deadline: number }): Promise<MapLink[]> {
    this.requests.push({ request, deadline: ctx.deadline });
    if (this.links instanceof Error) throw this.links;
    return this.links;
  }
}

const usage = { promptTokens: 10, completionTokens: 5, calls: 1 };
const logger = createLogger({ role: 'worker', level: 'silent' });
const now = Date.now();
const job: Extract<CrawlQueueJob, { kind: 'crawl-params' }> = {
  v: 1, kind: 'crawl-params', jobId: '8b3f1f44-93c1-4d2c-9b7e-1d6f2f0f2a11', teamId: 't1', url: 'https://site.test/', prompt: 'blog posts only',
  mapDeadline: now + 60_000, deadline: now + 120_000, zeroDataRetention: true,
};
const ctx = () => ({ shutdown: new AbortController().signal, cancel: new AbortController().signal });
const links = [{ url: 'https://site.test/' }, { url: 'https://site.test/blog/one' }, { url: 'https://site.test/docs/a' }];

describe('CrawlParamsRunner', () => {
  it('maps the site (100 URLs at most, until mapDeadline) and gives the model its URLs', async () => {
    const map = new ListedMap(links);
    const llm = new ScriptedLlm(() => ({ value: { includePaths: ['^/blog/'] }, usage }));
    const out = await new CrawlParamsRunner({ mapRunner: map, llm, logger }).run(job, ctx());
    expect(out).toEqual({ result: { options: { includePaths: ['^/blog/'] }, warnings: [] }, usage });
    expect(map.requests[0]!.request).toMatchObject({ url: job.url, limit: 100 });
    expect(map.requests[0]!.deadline).toBe(job.mapDeadline);
    expect(llm.requests[0]!.content).toContain('https://site.test/blog/one');
    expect(llm.requests[0]!.zeroDataRetention).toBe(true);
    expect(llm.requests[0]!.feature).toBe('crawl');
  });

  it('drops a pattern that is not valid RE2 (lookahead) with a warning; the rest stays', async () => {
    const llm = new ScriptedLlm(() => ({ value: { includePaths: ['^/blog/(?!draft)', '^/blog/'], excludePaths: ['(unclosed'], limit: 20 }, usage }));
    const out = await new CrawlParamsRunner({ mapRunner: new ListedMap(links), llm, logger }).run(job, ctx());
    expect(out.result.options).toEqual({ includePaths: ['^/blog/'], limit: 20 });
    expect(out.result.warnings).toHaveLength(2);
    expect(out.result.warnings[0]).toContain('includePaths[0]');
    expect(out.result.warnings[0]).toContain('RE2');
    expect(out.result.warnings[1]).toContain('excludePaths[0]');
  });

  it('a failed map still derives, from the start URL alone', async () => {
    const llm = new ScriptedLlm(() => ({ value: { limit: 3 }, usage }));
    const map = new ListedMap(new TrawlError('SCRAPE_CONNECTION_REFUSED', 'refused'));
    const out = await new CrawlParamsRunner({ mapRunner: map, llm, logger }).run(job, ctx());
    expect(out.result.options).toEqual({ limit: 3 });
    expect(llm.requests[0]!.content).toContain(job.url);
  });

  it('maps the LLM layer\'s failures: no usable answer, endpoint down, no LLM', async () => {
    const garbage = new ScriptedLlm(() => ({ value: null, warning: 'not JSON', usage }));
    await expect(new CrawlParamsRunner({ mapRunner: new ListedMap(links), llm: garbage, logger }).run(job, ctx()))
      .rejects.toMatchObject({ code: 'CRAWL_PROMPT_FAILED', details: { reason: 'not JSON' } });
    const down = new ScriptedLlm(() => {
      throw new LlmError('unavailable', '503 from the model server', { status: 503 });
    });
    await expect(new CrawlParamsRunner({ mapRunner: new ListedMap(links), llm: down, logger }).run(job, ctx()))
      .rejects.toMatchObject({ code: 'LLM_ERROR', details: { kind: 'unavailable', status: 503 } });
    await expect(new CrawlParamsRunner({ mapRunner: new ListedMap(links), llm: undefined, logger }).run(job, ctx()))
      .rejects.toMatchObject({ code: 'LLM_NOT_CONFIGURED' });
  });

  it('a cancelled job ends with the cancellation, not an LLM error', async () => {
    const cancel = new AbortController();
    const reason = new TrawlError('JOB_CANCELLED', 'cancelled');
    const llm = new ScriptedLlm(() => {
      cancel.abort(reason);
      throw new LlmError('aborted', 'aborted');
    });
    await expect(new CrawlParamsRunner({ mapRunner: new ListedMap(links), llm, logger }).run(job, { shutdown: new AbortController().signal, cancel: cancel.signal }))
      .rejects.toBe(reason);
  });
});

describe('checkDerivedPatterns', () => {
  it('keeps valid patterns until the list\'s program-size budget is spent', () => {
    // Each of these compiles to a large RE2 program: a handful exceed the budget together.
    const heavy = Array.from({ length: 10 }, (_, i) => `[a-z]{${900 + i}}`);
    const out = checkDerivedPatterns({ excludePaths: heavy });
    expect(out.options.excludePaths!.length).toBeGreaterThan(0);
    expect(out.options.excludePaths!.length).toBeLessThan(heavy.length);
    expect(out.warnings.every((w) => w.includes('too complex'))).toBe(true);
  });

  it('leaves a list out when none of its patterns is valid', () => {
    expect(checkDerivedPatterns({ includePaths: ['(?<=x)y'], limit: 4 })).toMatchObject({ options: { limit: 4 }, warnings: [expect.stringContaining('includePaths[0]')] });
  });
});
