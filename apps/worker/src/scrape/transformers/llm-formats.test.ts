import { randomUUID } from 'node:crypto';
import { scrapeRequestSchema, TrawlError, type Document } from '@trawl/api-schema';
import { LlmError, type Llm, type LlmUsage, type StructuredRequest, type StructuredResult, type TextResult } from '@trawl/llm';
import { createLogger } from '@trawl/observability';
import { scrapeJobSchema } from '@trawl/queue';
import { changeTrackingTransformer } from './change-tracking.transformer.js';
import { cleanContentTransformer } from './clean-content.transformer.js';
import { highlightsTransformer } from './highlights.transformer.js';
import { jsonTransformer } from './json.transformer.js';
import type { TransformInput } from './transformer.js';

/** An Llm answering from a function (an interface implementation, not a module mock). */
class FnLlm implements Llm {
  readonly contextTokens = 100_000;
  readonly maxOutputTokens = 1000;
  readonly requests: StructuredRequest[] = [];
  constructor(private readonly answer: (r: StructuredRequest) => unknown) {}
  async structured<T>(request: StructuredRequest): Promise<StructuredResult<T>> {
    this.requests.push(request);
    return { value: (await this.answer(request)) as T, usage: { promptTokens: 7, completionTokens: 3, calls: 1 } };
  }
  async text(): Promise<TextResult> {
    throw new Error('not used');
  }
}

function inputOf(body: Record<string, unknown>, markdown: string, opts: { signal?: () => AbortSignal } = {}) {
  const request = scrapeRequestSchema.parse({ url: 'http://a.example/', ...body });
  const job = scrapeJobSchema.parse({ v: 1, jobId: randomUUID(), teamId: 't1', request, deadline: Date.now() + 60_000, mode: 'sync', zeroDataRetention: true });
  const usages: LlmUsage[] = [];
  const input: TransformInput = {
    job, request, source: undefined as never, converted: { markdown }, log: createLogger({ role: 'test', level: 'silent' }),
    signal: opts.signal ?? (() => new AbortController().signal),
    usage: (u) => usages.push(u),
  };
  const document: Document = { metadata: { sourceURL: request.url, url: request.url, statusCode: 200 } } as Document;
  return { input, document, usages, request };
}

describe('LLM format transformers', () => {
  it('json: the value, the job\'s zero data retention and signal passed, the usage reported', async () => {
    const llm = new FnLlm(() => ({ price: 12 }));
    const signal = new AbortController().signal;
    const { input, document, usages } = inputOf({ formats: [{ type: 'json', prompt: 'price' }] }, 'costs 12', { signal: () => signal });
    await jsonTransformer(llm).run(input, document);
    expect(document.json).toEqual({ price: 12 });
    expect(llm.requests[0]).toMatchObject({ feature: 'json', zeroDataRetention: true, signal, content: 'costs 12' });
    expect(usages).toEqual([{ promptTokens: 7, completionTokens: 3, calls: 1 }]);
  });

  it('json with the LLM down: null, and the warning appended to an existing one', async () => {
    const llm = new FnLlm(() => {
      throw new LlmError('timeout', 'The LLM did not answer in time');
    });
    const { input, document, usages } = inputOf({ formats: [{ type: 'json', prompt: 'price' }] }, 'costs 12');
    document.warning = 'Earlier problem.';
    await jsonTransformer(llm).run(input, document);
    expect(document.json).toBeNull();
    expect(document.warning).toBe('Earlier problem. json not produced: the LLM failed (timeout).');
    expect(usages).toEqual([]);
  });

  it('an aborted job still ends the job with its own error', async () => {
    const controller = new AbortController();
    let calls = 0;
    const signal = () => {
      calls += 1;
      if (calls > 1) throw new TrawlError('SCRAPE_TIMEOUT', 'timed out');
      return controller.signal;
    };
    const llm = new FnLlm(() => {
      controller.abort();
      throw new LlmError('aborted', 'The call was aborted');
    });
    const { input, document } = inputOf({ formats: [{ type: 'json', prompt: 'x' }] }, 'page', { signal });
    await expect(jsonTransformer(llm).run(input, document)).rejects.toMatchObject({ code: 'SCRAPE_TIMEOUT' });
  });

  it('a defect is not swallowed as an LLM failure', async () => {
    const llm = new FnLlm(() => {
      throw new TypeError('bug');
    });
    const { input, document } = inputOf({ formats: [{ type: 'json', prompt: 'x' }] }, 'page');
    await expect(jsonTransformer(llm).run(input, document)).rejects.toBeInstanceOf(TypeError);
  });

  it('onlyCleanContent replaces the markdown later formats read, and applies only when something reads markdown', async () => {
    const llm = new FnLlm(() => ({ remove: [[2, 2]] }));
    const t = cleanContentTransformer(llm);
    const { input, document, request } = inputOf({ onlyCleanContent: true, formats: ['markdown'] }, 'Keep\nBanner\nKeep too');
    document.markdown = input.converted.markdown!;
    expect(t.applies!(request)).toBe(true);
    await t.run(input, document);
    expect(document.markdown).toBe('Keep\nKeep too');
    expect(input.converted.markdown).toBe('Keep\nKeep too');
    expect(t.applies!(scrapeRequestSchema.parse({ url: 'http://a.example/', onlyCleanContent: true, formats: ['html'] }))).toBe(false);
    expect(t.applies!(scrapeRequestSchema.parse({ url: 'http://a.example/', formats: ['markdown'] }))).toBe(false);
  });

  it('credits: 4 a page per LLM format; lexical highlights are free', () => {
    const request = scrapeRequestSchema.parse({ url: 'http://a.example/', formats: [{ type: 'highlights', query: 'x' }] });
    expect(highlightsTransformer(undefined).credits(request)).toBe(0);
    expect(highlightsTransformer(new FnLlm(() => ({ indices: [] }))).credits(request)).toBe(4);
    const json = scrapeRequestSchema.parse({ url: 'http://a.example/', formats: [{ type: 'json', prompt: 'x' }] });
    expect(jsonTransformer(undefined).credits(json)).toBe(4);
    const tracking = (modes: string[]) => scrapeRequestSchema.parse({ url: 'http://a.example/', formats: ['markdown', { type: 'changeTracking', modes }] });
    expect(changeTrackingTransformer(undefined as never).credits(tracking(['git-diff']))).toBe(0);
    expect(changeTrackingTransformer(undefined as never).credits(tracking(['json']))).toBe(4);
  });
});
