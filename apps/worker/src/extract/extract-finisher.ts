import { LLM_FORMAT_CREDITS, TrawlError, redactUrl, type Document } from '@trawl/api-schema';
import { LlmError, NO_USAGE, addUsage, extractJson, mergeExtractions, type Llm, type LlmUsage } from '@trawl/llm';
import type { Logger } from '@trawl/observability';
import type { CrawlStore, CreditLedger, ExtractJob, ExtractRecord, ExtractStore, WebhookSender } from '@trawl/queue';
import { endExtract } from './end-extract.js';
import { extractionSources, type PageExtraction } from './extraction-sources.js';

/** Token usage per team (the queue stack's TokenLedger, `stack.tokens`). */
export interface TokenRecorder {
  record(teamId: string, tokens: number): Promise<void>;
}

/** The LLM tasks the finisher runs (the @trawl/llm ones; a test may script them). */
export interface ExtractTasks {
  extractJson: typeof extractJson;
  mergeExtractions: typeof mergeExtractions;
}

export interface ExtractFinisherDeps {
  extracts: ExtractStore;
  crawls: Pick<CrawlStore, 'get' | 'documents' | 'errors'>;
  credits: Pick<CreditLedger, 'charge'>;
  webhooks: Pick<WebhookSender, 'send'>;
  /** The configured LLM; without one every extract fails (the API refuses them unless one is configured). */
  llm?: Llm;
  /** Records the tokens an extract used for its team, when a token ledger exists. */
  tokens?: TokenRecorder;
  logger: Logger;
  shutdown: AbortSignal;
  tasks?: ExtractTasks;
  now?: () => number;
}

type FinishJob = Extract<ExtractJob, { kind: 'finish' }>;

/** Credits per page whose content went through the LLM, on top of the page's scrape (as the json format). */
export const EXTRACT_CREDITS_PER_PAGE = LLM_FORMAT_CREDITS;
/** Documents read per crawl store call. */
const DOCS_PER_READ = 100;
/** Failed pages named in the warning at most. */
const WARNED_PAGES = 5;

/** A page as the LLM reads it. */
interface PageText {
  url: string;
  markdown: string;
}

/**
 * The finish step of an extract, once the batch scrape of its pages ended: each page's markdown goes
 * through `extractJson` (the extract's schema, prompt and system prompt), the answers are merged
 * (arrays concatenated and de-duplicated, scalars from the first page that has one), `sources` are
 * computed on request, credits (pages' scrapes + 4 a page extracted) and tokens are recorded once,
 * and the record and the webhook say how it ended. Pages that failed to scrape or gave an invalid
 * answer are skipped with a warning; the extract fails only when no page is left. An LLM that fails
 * (LlmError) throws LLM_ERROR so BullMQ retries the step (the processor fails the extract on the last attempt).
 */
export class ExtractFinisher {
  private readonly now: () => number;
  private readonly tasks: ExtractTasks;

  constructor(private readonly deps: ExtractFinisherDeps) {
    this.now = deps.now ?? Date.now;
    this.tasks = deps.tasks ?? { extractJson, mergeExtractions };
  }

  async run(job: FinishJob): Promise<void> {
    const extract = await this.deps.extracts.get(job.extractId);
    if (!extract || extract.status !== 'processing') return;
    const batch = extract.batchId !== undefined ? await this.deps.crawls.get(extract.batchId) : null;
    if (!batch) {
      await this.fail(extract, 'The scraped pages expired before they could be extracted');
      return;
    }
    if (batch.status === 'cancelled' || batch.status === 'failed') {
      await this.fail(extract, `The scrape of the pages ${batch.status === 'cancelled' ? 'was cancelled' : `failed${batch.error ? `: ${batch.error}` : ''}`}`, batch.creditsUsed + (extract.searchCredits ?? 0));
      return;
    }
    const { pages, warnings } = await this.pages(extract, batch.id);
    if (pages.length === 0) {
      await this.fail(extract, `Every page failed to scrape${warnings.length ? `: ${warnings.join('; ')}` : ''}`, batch.creditsUsed + (extract.searchCredits ?? 0));
      return;
    }
    const llm = this.deps.llm;
    if (!llm) {
      await this.fail(extract, 'No LLM is configured on the workers (TRAWL_LLM_BASE_URL)', batch.creditsUsed + (extract.searchCredits ?? 0));
      return;
    }
    let usage: LlmUsage = NO_USAGE;
    const answers: PageExtraction[] = [];
    try {
      for (const page of pages) {
        const r = await this.tasks.extractJson(llm, {
          feature: 'extract', markdown: page.markdown, signal: this.deps.shutdown, zeroDataRetention: extract.zeroDataRetention,
          ...(extract.request.schema !== undefined ? { schema: extract.request.schema } : {}),
          ...(extract.request.prompt !== undefined ? { prompt: extract.request.prompt } : {}),
          ...(extract.request.systemPrompt !== undefined ? { systemPrompt: extract.request.systemPrompt } : {}),
        });
        usage = addUsage(usage, r.usage);
        if (r.value === null || r.value === undefined) warnings.push(`${this.name(extract, page.url)}: no valid answer (${r.warning ?? 'invalid'})`);
        else answers.push({ url: page.url, value: r.value });
      }
    } catch (err) {
      // Retried with backoff by BullMQ; the processor fails the extract when no attempt is left.
      if (err instanceof LlmError && !this.deps.shutdown.aborted) {
        throw new TrawlError('LLM_ERROR', `The LLM failed: ${err.message}`, { cause: err, details: { kind: err.kind } });
      }
      throw err;
    }
    if (answers.length === 0) {
      await this.fail(extract, `The LLM gave no valid answer for any page: ${warnings.slice(-WARNED_PAGES).join('; ')}`, batch.creditsUsed + (extract.searchCredits ?? 0));
      return;
    }
    const merged = this.tasks.mergeExtractions(answers.map((a) => a.value), extract.request.schema);
    if (merged.conflicts.length > 0) warnings.push(`Pages disagreed on ${merged.conflicts.slice(0, WARNED_PAGES).join(', ')}; the first page's value was kept`);
    const tokensUsed = usage.promptTokens + usage.completionTokens;
    const extractCredits = EXTRACT_CREDITS_PER_PAGE * pages.length;
    // Cancelled while the LLM read the pages: nothing more is charged or stored.
    if ((await this.deps.extracts.get(extract.id))?.status !== 'processing') return;
    if (await this.deps.extracts.claimOnce(extract.id, 'charged')) {
      await this.deps.credits.charge(extract.teamId, extractCredits);
      if (tokensUsed > 0) await this.deps.tokens?.record(extract.teamId, tokensUsed);
    }
    const warning = [...extract.startWarnings, ...this.summarize(warnings)].join('; ');
    await endExtract(this.deps, extract, {
      status: 'completed', data: merged.value, tokensUsed, creditsUsed: batch.creditsUsed + (extract.searchCredits ?? 0) + extractCredits,
      ...(extract.request.showSources ? { sources: extractionSources(answers, merged.value) } : {}),
      ...(warning ? { warning } : {}),
    }, this.now());
  }

  /** The scraped pages with markdown, and a warning for each page that failed to scrape. */
  private async pages(extract: ExtractRecord, batchId: string): Promise<{ pages: PageText[]; warnings: string[] }> {
    const docs: Document[] = [];
    for (let skip = 0; ; ) {
      const { docs: read, more } = await this.deps.crawls.documents(batchId, { skip, limit: DOCS_PER_READ, maxBytes: 64 * 1024 * 1024 });
      docs.push(...read);
      skip += read.length;
      if (!more || read.length === 0) break;
    }
    const warnings: string[] = [];
    const pages: PageText[] = [];
    for (const doc of docs) {
      const url = doc.metadata?.sourceURL ?? doc.metadata?.url ?? '';
      if (typeof doc.markdown === 'string' && doc.markdown.trim() !== '') pages.push({ url, markdown: doc.markdown });
      else warnings.push(`${this.name(extract, url)}: the page has no text`);
    }
    const { errors } = await this.deps.crawls.errors(batchId);
    for (const e of errors) warnings.push(`${this.name(extract, e.url)}: ${e.error}`);
    // The order of the request, not of completion: the first page's scalars win the merge.
    const order = new Map((extract.pages ?? []).map((u, i) => [u, i]));
    pages.sort((a, b) => (order.get(a.url) ?? Infinity) - (order.get(b.url) ?? Infinity));
    return { pages, warnings };
  }

  /** At most a few page warnings, then a count. */
  private summarize(warnings: readonly string[]): string[] {
    if (warnings.length <= WARNED_PAGES + 1) return [...warnings];
    return [...warnings.slice(0, WARNED_PAGES), `${warnings.length - WARNED_PAGES} more pages skipped`];
  }

  /** A page as warnings name it: never its URL under zero data retention. */
  private name(extract: ExtractRecord, url: string): string {
    return extract.zeroDataRetention ? 'a page' : redactUrl(url);
  }

  private async fail(extract: ExtractRecord, error: string, creditsUsed = 0): Promise<void> {
    await endExtract(this.deps, extract, { status: 'failed', error, creditsUsed }, this.now());
  }
}
