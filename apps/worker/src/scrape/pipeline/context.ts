import type { Llm, LlmUsage } from '@trawl/llm';
import { TrawlError, type Document, type ScrapeRequest } from '@trawl/api-schema';
import type { BlobStore } from '@trawl/blob-store';
import type { BrowserFetcher } from '@trawl/browser';
import type { HtmlPipelineResult } from '@trawl/html';
import type { Logger } from '@trawl/observability';
import type {
  CancellationWatcher, CreditLedger, DocumentBodyStore, HostRateLimiter, JobDispatcher, ProfileStore, ResultStore, ScrapeJob, TeamStore,
} from '@trawl/queue';
import type { Fetcher, ProxyPools } from '@trawl/scrape-engine';
import type { CacheStep } from '../../cache/cache-step.js';
import type { HtmlConverter } from '../../convert/html-converter.js';
import type { PageSource } from '../../convert/page-source.js';
import type { CrawlPages } from '../../crawl/crawl-pages.js';
import type { DocumentParser } from '../../document/document-parser.js';
import type { WorkerMetrics } from '../../worker-metrics.js';
import type { ChangeTracker } from '../change-tracking.js';
import type { DocumentTransformer } from '../transformers/index.js';
import type { Handoff } from './handoff.js';
import type { JobRun } from './job-run.js';

/** The queue a scrape pipeline consumes: `scrape` (plain HTTP first), `browser` or `documents`. */
export type ScrapeQueue = 'scrape' | 'browser' | 'documents';

/** What the pipeline uses of the browser engine (a fake in tests). */
export type BrowserEngine = Pick<BrowserFetcher, 'name' | 'fetch'>;

/** Everything the scrape pipeline of a worker process uses (built once by start-worker.ts). */
export interface ScrapeDeps {
  http: Fetcher;
  /** The browser engine; absent in processes without the browser role. */
  browser?: BrowserEngine;
  /** Hand plain-HTTP jobs that need a browser (JS shell, `auto` bot wall) to the browser queue. */
  browserFallback: boolean;
  proxies: ProxyPools;
  /** The parser of the documents role; absent in processes without it. */
  documents?: DocumentParser;
  /** Files waiting for the documents role (downloads handed over, uploads). */
  documentBodies: DocumentBodyStore;
  /** Hand PDFs, office files, CSV and images to the documents queue; false refuses them. */
  documentParsing: boolean;
  /** Where screenshots and action PDFs go; required by the browser role. */
  blobs?: BlobStore;
  /** Lifetime of the blob URLs put in documents, seconds. */
  blobUrlTtlSec: number;
  profiles: ProfileStore;
  converter: HtmlConverter;
  results: ResultStore;
  dispatcher: JobDispatcher;
  credits: CreditLedger;
  /** Whether a job's team was disabled while the job waited: such jobs do not start. */
  teams: Pick<TeamStore, 'isDisabled' | 'gateState'>;
  metrics: WorkerMetrics;
  logger: Logger;
  maxResponseBytes: number;
  /** Largest Document stored (its JSON), bytes; a larger one fails with RESULT_TOO_LARGE. */
  maxResultBytes: number;
  /** Largest `executeJavascript` return, bytes. */
  maxActionReturnBytes: number;
  /** The crawl side of crawl and batch pages. */
  crawlPages: CrawlPages;
  /** Per-host request rate applied to crawl and batch pages. */
  hostRate: HostRateLimiter;
  /** Aborted when the process shuts down: in-flight jobs stop and go back to the queue. */
  shutdown: AbortSignal;
  /** Cancellations of jobs (their sync caller went away) and crawls (cancelled): running work stops. */
  cancellations: Pick<CancellationWatcher, 'watch'>;
  /** The page cache around every fetch. */
  cache: CacheStep;
  /** The `changeTracking` format. */
  changes: ChangeTracker;
  /** The configured LLM (TRAWL_LLM_*); undefined when none is: the API refuses LLM formats then. */
  llm?: Llm;
  /**
   * Token usage per team (the LLM tokens of the scrape's formats, prompt + completion), recorded once
   * the transformers ran; absent: not recorded.
   */
  tokens?: { record(teamId: string, tokens: number): Promise<void> };
  /** Document transformers in run order; default `documentTransformers({ changes, llm })`. */
  transformers?: readonly DocumentTransformer[];
  now?: () => number;
}

/**
 * The one signal each stage of a job runs under: its deadline (the request's timeout counted from
 * admission), its cancellation and the process' shutdown. A job past its deadline or cancelled does
 * not start the stage at all.
 */
export class JobSignals {
  /** The last signal made, and the deadline it fires at: steps of one deadline share it. */
  private last: { deadline: number; signal: AbortSignal } | undefined;

  constructor(
    private readonly deadline: () => number,
    private readonly cancelled: AbortSignal | undefined,
    private readonly shutdown: AbortSignal,
    private readonly now: () => number,
  ) {}

  /**
   * The signal of the next step. Steps under the same deadline get the same signal (its timer was
   * set for that deadline): a page's steps make one timer and one combined signal, not one each.
   * @throws TrawlError JOB_CANCELLED (or the cancellation's code), SCRAPE_TIMEOUT
   */
  next(): { signal: AbortSignal; remaining: number } {
    if (this.cancelled?.aborted) throw TrawlError.from(this.cancelled.reason);
    const deadline = this.deadline();
    const remaining = deadline - this.now();
    if (remaining <= 0) throw new TrawlError('SCRAPE_TIMEOUT', 'The scrape could not start before its timeout');
    if (this.last?.deadline === deadline && !this.last.signal.aborted) return { signal: this.last.signal, remaining };
    const signal = AbortSignal.any([AbortSignal.timeout(remaining), this.shutdown, ...(this.cancelled ? [this.cancelled] : [])]);
    this.last = { deadline, signal };
    return { signal, remaining };
  }
}

/**
 * One scrape job on its way through the pipeline: the job (its deadline may move: a crawl page's
 * timeout counts from its start), the request, the job's logger, its signals, and what the steps
 * produced so far. A step ends the run early by setting `handoff` or `released`.
 */
export interface ScrapeContext {
  readonly queue: ScrapeQueue;
  /** The queue's hold on the job: a BullMQ job, or a run in this process (see job-run.ts). */
  readonly run: JobRun;
  job: ScrapeJob;
  readonly request: ScrapeRequest;
  readonly log: Logger;
  signals: JobSignals;
  readonly started: number;
  /** The job finished earlier (before a crash prevented its release): released only. */
  released?: boolean;
  /** The page to convert: from the cache or the fetch stage. */
  source?: PageSource;
  /** The HTML pipeline's output for the page. */
  converted?: Partial<HtmlPipelineResult>;
  /** The response Document, built by the convert step, filled by the transformers. */
  document?: Document;
  /** Links found on the page (crawl discovery). */
  links?: string[];
  /** The job moves to another queue: the run ends with the hand-off. */
  handoff?: Handoff;
  /** Whether the crawl of this page follows links (asked once per job). */
  wantsLinks?: boolean;
  /** LLM tokens the transformers spent on this page. */
  llmUsage?: LlmUsage;
}

/** Whether the pipeline has nothing more to do for this job. */
export function ended(ctx: ScrapeContext): boolean {
  return ctx.released === true || ctx.handoff !== undefined;
}
