import {
  MAX_PATH_PATTERNS_PROGRAM_SIZE, TrawlError, checkPathPattern, crawlPromptOptionsSchema, mapRequestSchema, type CrawlPromptOptions,
} from '@trawl/api-schema';
import { CrawlPromptError, LlmError, deriveCrawlOptions, type Llm, type LlmUsage } from '@trawl/llm';
import type { Logger } from '@trawl/observability';
import type { CrawlParamsResult, CrawlQueueJob } from '@trawl/queue';
import type { MapRunner } from './map-runner.js';

/** Sample URLs the model sees: enough to show a site's sections, small enough for a small context. */
export const CRAWL_PARAMS_SAMPLE_URLS = 100;

export interface CrawlParamsRunnerOptions {
  mapRunner: Pick<MapRunner, 'run'>;
  /** The configured LLM; undefined: the job fails with LLM_NOT_CONFIGURED. */
  llm: Llm | undefined;
  logger: Logger;
}

type CrawlParamsJob = Extract<CrawlQueueJob, { kind: 'crawl-params' }>;

/**
 * The work of a `crawl-params` job: a short map of the site (up to 100 URLs, until `mapDeadline`) so
 * the model sees its real paths, then one `deriveCrawlOptions` call, then the RE2 check of the
 * patterns (here, not in packages/llm, which cannot import the validator): invalid ones, and those
 * past the list's program-size budget, are dropped with a warning. A failed map is not fatal: the
 * model still gets the start URL.
 */
export class CrawlParamsRunner {
  constructor(private readonly opts: CrawlParamsRunnerOptions) {}

  /**
   * @throws TrawlError CRAWL_PROMPT_FAILED (no usable answer), LLM_ERROR (endpoint failed or timed
   * out), LLM_NOT_CONFIGURED; the `cancel`/`shutdown` reason when either fires.
   */
  async run(job: CrawlParamsJob, ctx: { shutdown: AbortSignal; cancel: AbortSignal }): Promise<{ result: CrawlParamsResult; usage: LlmUsage }> {
    const { llm } = this.opts;
    if (!llm) throw new TrawlError('LLM_NOT_CONFIGURED', 'The worker that took this crawl prompt has no LLM configured (TRAWL_LLM_BASE_URL)');
    const sampleUrls = await this.sampleUrls(job, ctx);
    const signal = AbortSignal.any([AbortSignal.timeout(Math.max(1, job.deadline - Date.now())), ctx.shutdown, ctx.cancel]);
    let derived: Awaited<ReturnType<typeof deriveCrawlOptions>>;
    try {
      derived = await deriveCrawlOptions(llm, { url: job.url, prompt: job.prompt, sampleUrls, signal, zeroDataRetention: job.zeroDataRetention });
    } catch (err) {
      if (ctx.shutdown.aborted) throw ctx.shutdown.reason;
      if (ctx.cancel.aborted) throw ctx.cancel.reason;
      throw toTrawlError(err);
    }
    const { options, warnings } = checkDerivedPatterns(derived.options);
    this.opts.logger.info({
      jobId: job.jobId, sampleUrls: sampleUrls.length, options: Object.keys(options), dropped: warnings.length + derived.warnings.length,
      promptTokens: derived.usage.promptTokens, completionTokens: derived.usage.completionTokens,
    }, 'crawl options derived');
    // The contract of the result (and of the gateway's answer): anything else is the model's fault.
    const parsed = crawlPromptOptionsSchema.safeParse(options);
    if (!parsed.success) {
      throw new TrawlError('CRAWL_PROMPT_FAILED', 'The derived crawl options are not valid crawl options', { details: { reason: parsed.error.message } });
    }
    return { result: { options: parsed.data, warnings: [...derived.warnings, ...warnings] }, usage: derived.usage };
  }

  /** The site's URLs from a short map; on a failed map only the start URL (the crawl will say why). */
  private async sampleUrls(job: CrawlParamsJob, ctx: { shutdown: AbortSignal; cancel: AbortSignal }): Promise<string[]> {
    const request = mapRequestSchema.parse({
      url: job.url, limit: CRAWL_PARAMS_SAMPLE_URLS, sitemap: 'include', includeSubdomains: false, ignoreQueryParameters: true,
    });
    try {
      const links = await this.opts.mapRunner.run(request, { deadline: Math.min(job.mapDeadline, job.deadline), shutdown: ctx.shutdown, cancel: ctx.cancel });
      const urls = links.map((l) => l.url);
      return urls.includes(job.url) ? urls : [job.url, ...urls];
    } catch (err) {
      if (ctx.shutdown.aborted) throw ctx.shutdown.reason;
      if (ctx.cancel.aborted) throw ctx.cancel.reason;
      this.opts.logger.warn({ jobId: job.jobId, code: TrawlError.from(err).code }, 'crawl params: the map of sample URLs failed; deriving from the start URL only');
      return [job.url];
    }
  }
}

/** The LLM layer's errors as the gateway's codes. */
function toTrawlError(err: unknown): TrawlError {
  if (err instanceof CrawlPromptError) {
    return new TrawlError('CRAWL_PROMPT_FAILED', 'The model gave no usable crawl options', { details: { reason: err.message } });
  }
  if (err instanceof LlmError) {
    return new TrawlError('LLM_ERROR', `the LLM failed (${err.message})`, {
      details: { kind: err.kind, ...(err.status !== undefined ? { status: err.status } : {}) }, cause: err,
    });
  }
  return TrawlError.from(err);
}

/**
 * Drops include/exclude patterns that are not valid RE2 (the crawl's matcher: no lookaround, no
 * backreferences), and those past the list's total program-size budget, a warning each: the rest of
 * the answer stays usable.
 */
export function checkDerivedPatterns(options: CrawlPromptOptions): { options: CrawlPromptOptions; warnings: string[] } {
  const out: CrawlPromptOptions = { ...options };
  const warnings: string[] = [];
  for (const key of ['includePaths', 'excludePaths'] as const) {
    const list = options[key];
    if (!list) continue;
    let total = 0;
    const kept: string[] = [];
    list.forEach((pattern, i) => {
      const check = checkPathPattern(pattern);
      if (!check.ok) {
        warnings.push(`The derived pattern ${key}[${i}] ${JSON.stringify(pattern)} was dropped: not a valid regular expression (${check.reason}; patterns use RE2 syntax: no lookaround or backreferences)`);
      } else if (total + check.programSize > MAX_PATH_PATTERNS_PROGRAM_SIZE) {
        warnings.push(`The derived pattern ${key}[${i}] ${JSON.stringify(pattern)} was dropped: the patterns together are too complex`);
      } else {
        total += check.programSize;
        kept.push(pattern);
      }
    });
    if (kept.length > 0) out[key] = kept;
    else delete out[key];
  }
  return { options: out, warnings };
}
