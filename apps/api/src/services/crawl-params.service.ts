import { randomUUID } from 'node:crypto';
import { TrawlError } from '@trawl/api-schema';
import { crawlParamsResultSchema, type CrawlParamsResult, type CrawlQueueJob, type JobCancellations, type QueueSet, type ResultStore, type ResultWaiter, type Team } from '@trawl/queue';
import { assertLlmConfigured } from './assert-llm.js';
import { callCrawlQueue } from './crawl-queue-call.js';

/** The hosted service's answer to a prompt it could not turn into options, on `POST /v2/crawl` (COMPAT.md). */
export const CRAWL_PROMPT_FAILED_MESSAGE = 'Failed to process natural language prompt. Please try rephrasing or use explicit crawler options.';
/** The same on `POST /v2/crawl/params-preview`. */
export const PARAMS_PREVIEW_FAILED_MESSAGE = 'Failed to process natural language prompt. Please try rephrasing.';

/** Time the worker spends mapping the site for sample URLs, ms: a short look, not a full map. */
export const CRAWL_PARAMS_MAP_BUDGET_MS = 10_000;

export interface CrawlParamsServiceDeps {
  queues: QueueSet;
  waiter: ResultWaiter;
  results: ResultStore;
  /** Stops a derivation nobody waits for any more. */
  cancellations: Pick<JobCancellations, 'cancel'>;
  /** An LLM is configured; else 400 LLM_NOT_CONFIGURED before anything is queued. */
  llmConfigured: boolean;
  /** TRAWL_LLM_TIMEOUT_MS: one Chat Completions call; a derivation may make two (the repair turn). */
  llmTimeoutMs: number;
  /** How long past its budget the gateway waits for the worker's answer, ms. */
  graceMs: number;
  /** Map budget, ms. Default {@link CRAWL_PARAMS_MAP_BUDGET_MS}. */
  mapBudgetMs?: number;
  now?: () => number;
}

/**
 * The crawl options of a natural-language prompt: a `crawl-params` job on the crawl queue (a worker
 * maps the site for up to ~100 sample URLs, then asks the LLM), awaited through the results channel
 * like a map. Serves `POST /v2/crawl/params-preview` and `POST /v2/crawl` with `prompt`.
 *
 * Errors: the model gave nothing usable -> 400 CRAWL_PROMPT_FAILED with the hosted service's message
 * (`failureMessage`); the LLM endpoint failed, timed out, or no worker answered in time -> 502
 * LLM_ERROR, whose message starts the same way ("Failed to process natural language prompt: ...").
 * The hosted service answers 400 to both; a 502 keeps "the server's dependency failed, try again"
 * apart from "rephrase", and the official SDK retries 502 by itself (no crawl has started yet).
 */
export class CrawlParamsService {
  private readonly now: () => number;

  constructor(private readonly deps: CrawlParamsServiceDeps) {
    this.now = deps.now ?? Date.now;
  }

  async derive(
    team: Team,
    input: { url: string; prompt: string; zeroDataRetention: boolean },
    opts: { failureMessage: string; clientGone?: AbortSignal },
  ): Promise<CrawlParamsResult> {
    assertLlmConfigured(this.deps.llmConfigured, 'prompt');
    const jobId = randomUUID();
    const mapBudget = this.deps.mapBudgetMs ?? CRAWL_PARAMS_MAP_BUDGET_MS;
    const budget = mapBudget + 2 * this.deps.llmTimeoutMs;
    const start = this.now();
    const job: Extract<CrawlQueueJob, { kind: 'crawl-params' }> = {
      v: 1, kind: 'crawl-params', jobId, teamId: team.id, url: input.url, prompt: input.prompt,
      mapDeadline: start + mapBudget, deadline: start + budget, zeroDataRetention: input.zeroDataRetention,
    };
    const result = await callCrawlQueue(this.deps, job, { waitMs: budget + this.deps.graceMs, clientGone: opts.clientGone });
    if (!result) {
      throw new TrawlError('LLM_ERROR', `Failed to process natural language prompt: no answer within ${budget} ms; try again later`, {
        details: { timeoutMs: budget },
      });
    }
    if (!result.outcome.ok) throw toPromptError(TrawlError.fromData(result.outcome.error), opts.failureMessage);
    const parsed = crawlParamsResultSchema.safeParse(result.outcome.document);
    if (!parsed.success) throw new TrawlError('CRAWL_PROMPT_FAILED', opts.failureMessage, { details: { reason: 'the worker answered no valid crawl options' } });
    return parsed.data;
  }
}

/** The spec's message on the codes that mean "the prompt could not be processed"; others as they are. */
function toPromptError(te: TrawlError, failureMessage: string): TrawlError {
  if (te.code === 'CRAWL_PROMPT_FAILED') return new TrawlError('CRAWL_PROMPT_FAILED', failureMessage, { ...(te.details ? { details: te.details } : {}) });
  if (te.code === 'LLM_ERROR') {
    return new TrawlError('LLM_ERROR', `Failed to process natural language prompt: ${te.message}; try again later`, { ...(te.details ? { details: te.details } : {}) });
  }
  return te;
}
