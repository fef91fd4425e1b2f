import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { extractRequestSchema, type Document, type ExtractRequestInput, type WebhookConfig } from '@trawl/api-schema';
import { LlmError, type Llm, type StructuredRequest, type StructuredResult } from '@trawl/llm';
import { createLogger } from '@trawl/observability';
import { CrawlStore, CreditLedger, ExtractStore, RedisKeys, type WebhookEvent } from '@trawl/queue';
import { redisPerFile } from '@trawl/testing';
import { ExtractFinisher, type ExtractTasks } from './extract-finisher.js';
import { extractBatchId } from './extract-starter.js';
import { ExtractProcessor } from './extract.processor.js';

const db = redisPerFile();

/** An Llm answering from a script keyed by the page content; `down` makes every call fail as the client does. */
class ScriptedLlm implements Llm {
  readonly contextTokens = 8_000;
  readonly maxOutputTokens = 1_000;
  down = false;
  calls: StructuredRequest[] = [];
  constructor(private readonly answers: (content: string) => unknown) {}
  async structured<T>(request: StructuredRequest): Promise<StructuredResult<T>> {
    this.calls.push(request);
    if (this.down) throw new LlmError('unavailable', 'LLM endpoint answered 503');
    const value = this.answers(request.content);
    const usage = { promptTokens: 10, completionTokens: 5, calls: 1 };
    return value === undefined ? { value: null, warning: 'answer not valid against the schema', usage } : { value: value as T, usage };
  }
  async text(): Promise<never> {
    throw new Error('not used');
  }
}

/**
 * The tasks as the finisher needs them, written small here (the @trawl/llm ones are other helpers'
 * work): one structured call per page; arrays concatenated without duplicates, first scalar kept.
 */
const tasks: ExtractTasks = {
  extractJson: async (llm, r) => {
    const out = await llm.structured({ feature: r.feature ?? 'json', instructions: r.prompt ?? '', content: r.markdown, ...(r.schema ? { schema: r.schema } : {}) });
    return { value: out.value, ...(out.warning ? { warning: out.warning } : {}), usage: out.usage, chunks: 1 };
  },
  mergeExtractions: (parts) => {
    const value: Record<string, unknown> = {};
    const conflicts: string[] = [];
    for (const part of parts as Record<string, unknown>[]) {
      for (const [k, v] of Object.entries(part)) {
        if (Array.isArray(v)) {
          const list = (value[k] as unknown[] | undefined) ?? [];
          for (const item of v) if (!list.some((x) => isDeepStrictEqual(x, item))) list.push(item);
          value[k] = list;
        } else if (value[k] === undefined || value[k] === null) value[k] = v;
        else if (v !== null && !isDeepStrictEqual(value[k], v)) conflicts.push(k);
      }
    }
    return { value, conflicts };
  },
};

interface Sent { teamId: string; config: WebhookConfig | undefined; event: WebhookEvent; webhookId?: string }

async function setup(opts: { request?: Partial<ExtractRequestInput>; llm?: ScriptedLlm; pages: Array<{ url: string; markdown?: string; error?: string }> }) {
  const keys = new RedisKeys(`t${randomUUID().slice(0, 8)}`);
  const extracts = new ExtractStore(db.redis, keys);
  const crawls = new CrawlStore(db.redis, keys);
  const credits = new CreditLedger(db.redis, keys);
  const sent: Sent[] = [];
  const tokens: Array<[string, number]> = [];
  const teamId = 'team-1';
  const request = extractRequestSchema.parse({ urls: opts.pages.map((p) => p.url), prompt: 'Products', webhook: 'http://hooks.test/x', ...opts.request });
  const extract = await extracts.create({ id: randomUUID(), teamId, request, urls: request.urls ?? [], retentionSec: 3_600, zeroDataRetention: false });
  const batchId = extractBatchId(extract.id);
  await extracts.started(extract.id, batchId, opts.pages.map((p) => p.url), ['Only the first 2 pages were read (TRAWL_EXTRACT_MAX_PAGES)']);
  await crawls.create({
    id: batchId, kind: 'batch', teamId, url: '', request: { scrapeOptions: { formats: [{ type: 'markdown' }] } as never },
    limit: 1000, maxConcurrency: 10, delayMs: 0, kickoffDone: false, zeroDataRetention: false, retentionSec: 3_600, extract: { extractId: extract.id },
  });
  await crawls.enqueue(batchId, opts.pages.map((p, i) => ({ key: `u${i}`, url: p.url, depth: 0 })));
  await crawls.kickoffDone(batchId);
  const { pages } = await crawls.pump(batchId);
  // Completion order is not request order: the last page finishes first.
  for (const page of [...pages].reverse()) {
    const spec = opts.pages.find((p) => p.url === page.url)!;
    if (spec.error !== undefined) {
      await crawls.pageDone(batchId, page.jobId, { kind: 'error', error: { id: page.jobId, timestamp: new Date().toISOString(), url: page.url, code: 'SCRAPE_FAILED', error: spec.error } });
    } else {
      const document = { markdown: spec.markdown ?? '', metadata: { sourceURL: page.url, url: page.url, statusCode: 200 } } as unknown as Document;
      await crawls.pageDone(batchId, page.jobId, { kind: 'doc', document, creditsUsed: 1 });
    }
  }
  const llm = opts.llm ?? new ScriptedLlm(() => ({}));
  const common = {
    extracts, logger: createLogger({ role: 'test', level: 'silent' }), shutdown: new AbortController().signal,
    webhooks: { send: async (t: string, config: WebhookConfig | undefined, event: WebhookEvent, o?: { webhookId?: string }) => {
      sent.push({ teamId: t, config, event, ...(o?.webhookId ? { webhookId: o.webhookId } : {}) });
      return o?.webhookId ?? null;
    } },
  };
  const finisher = new ExtractFinisher({ ...common, crawls, credits, llm, tasks, tokens: { record: async (t, n) => { tokens.push([t, n]); } } });
  const processor = new ExtractProcessor({ ...common, finisher, starter: { run: async () => { throw new Error('not a start job'); } } });
  const data = { v: 1 as const, kind: 'finish' as const, extractId: extract.id, teamId };
  const attempt = (attemptsMade: number) => processor.process({ data, attemptsMade, opts: { attempts: 4 } });
  const creditsUsed = async () => Number((await db.redis.hget(keys.team(teamId), 'creditsUsed')) ?? 0);
  return { extracts, extract, attempt, sent, tokens, llm, creditsUsed };
}

const A = 'http://shop.test/a';
const B = 'http://shop.test/b';
const C = 'http://shop.test/c';

describe('ExtractFinisher (through the extract processor)', () => {
  it('merges the pages in request order, de-duplicates arrays, lists sources, charges and reports once', async () => {
    const llm = new ScriptedLlm((content) => content.includes('page A')
      ? { company: 'Acme', products: ['kettle', 'toaster'] }
      : { company: 'Acme Corp', products: ['toaster', 'mixer'] });
    const s = await setup({ llm, request: { showSources: true, schema: { type: 'object' } }, pages: [{ url: A, markdown: '# page A' }, { url: B, markdown: '# page B' }] });
    await s.attempt(0);
    const r = (await s.extracts.get(s.extract.id))!;
    expect(r.status).toBe('completed');
    expect(r.data).toEqual({ company: 'Acme', products: ['kettle', 'toaster', 'mixer'] });
    expect(r.sources).toEqual({ company: [A], products: [A, B], 'products[0]': [A], 'products[1]': [A, B], 'products[2]': [B] });
    expect(r.tokensUsed).toBe(30);
    // Two pages scraped (1 credit each, charged by the page jobs) + 4 a page extracted.
    expect(r.creditsUsed).toBe(2 + 8);
    expect(r.warning).toMatch(/TRAWL_EXTRACT_MAX_PAGES.*disagreed on company/);
    expect(await s.creditsUsed()).toBe(8);
    expect(s.tokens).toEqual([['team-1', 30]]);
    expect(llm.calls.map((c) => c.feature)).toEqual(['extract', 'extract']);
    expect(s.sent.map((x) => [x.event.type, x.event.data])).toEqual([['extract.completed', [r.data]]]);
    // A second delivery of the finish job changes nothing and charges nothing.
    await s.attempt(0);
    expect(await s.creditsUsed()).toBe(8);
    expect(s.sent).toHaveLength(1);
  });

  it('skips a page that failed to scrape and a page whose answer was invalid, with warnings', async () => {
    const llm = new ScriptedLlm((content) => (content.includes('page A') ? { products: ['kettle'] } : undefined));
    const s = await setup({ llm, pages: [{ url: A, markdown: '# page A' }, { url: B, error: 'HTTP 500 from the site' }, { url: C, markdown: '# page C' }] });
    await s.attempt(0);
    const r = (await s.extracts.get(s.extract.id))!;
    expect(r.status).toBe('completed');
    expect(r.data).toEqual({ products: ['kettle'] });
    expect(r.sources).toBeUndefined();
    expect(r.warning).toContain(`${B}: HTTP 500 from the site`);
    expect(r.warning).toContain(`${C}: no valid answer`);
    // Pages A and C went through the LLM.
    expect(await s.creditsUsed()).toBe(8);
  });

  it('fails when every page failed to scrape, without calling the LLM', async () => {
    const s = await setup({ pages: [{ url: A, error: 'DNS failure' }, { url: B, error: 'timeout' }] });
    await s.attempt(0);
    const r = (await s.extracts.get(s.extract.id))!;
    expect(r.status).toBe('failed');
    expect(r.error).toMatch(/^Every page failed to scrape: .*DNS failure/);
    expect(s.llm.calls).toHaveLength(0);
    expect(s.sent.map((x) => [x.event.type, x.event.error])).toEqual([['extract.failed', r.error]]);
  });

  it('throws LLM_ERROR while attempts remain, and fails the extract with it on the last one', async () => {
    const llm = new ScriptedLlm(() => ({ products: [] }));
    llm.down = true;
    const s = await setup({ llm, pages: [{ url: A, markdown: '# page A' }] });
    await expect(s.attempt(0)).rejects.toMatchObject({ code: 'LLM_ERROR', retryable: true });
    expect((await s.extracts.get(s.extract.id))!.status).toBe('processing');
    expect(s.sent).toHaveLength(0);
    await s.attempt(3);
    const r = (await s.extracts.get(s.extract.id))!;
    expect(r.status).toBe('failed');
    expect(r.error).toMatch(/^The LLM failed: .*503/);
    expect(await s.creditsUsed()).toBe(0);
    expect(s.sent.map((x) => x.event.type)).toEqual(['extract.failed']);
  });

  it('charges nothing for an extract cancelled while the LLM read its pages', async () => {
    const cancel: { run?: () => Promise<unknown> } = {};
    const llm = new ScriptedLlm(() => ({ products: ['kettle'] }));
    const structured = llm.structured.bind(llm);
    llm.structured = async (r) => {
      await cancel.run?.();
      return structured(r);
    };
    const s = await setup({ llm, pages: [{ url: A, markdown: '# page A' }] });
    cancel.run = () => s.extracts.finish(s.extract.id, { status: 'cancelled' }, { retentionSec: 60 });
    await s.attempt(0);
    expect((await s.extracts.get(s.extract.id))!.status).toBe('cancelled');
    expect(await s.creditsUsed()).toBe(0);
    expect(s.tokens).toEqual([]);
    expect(s.sent).toEqual([]);
  });

  it('leaves a cancelled extract as it is', async () => {
    const s = await setup({ pages: [{ url: A, markdown: '# page A' }] });
    expect(await s.extracts.finish(s.extract.id, { status: 'cancelled' }, { retentionSec: 60 })).toBe(true);
    await s.attempt(0);
    expect((await s.extracts.get(s.extract.id))!.status).toBe('cancelled');
    expect(s.llm.calls).toHaveLength(0);
  });
});
