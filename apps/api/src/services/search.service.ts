import { randomUUID } from 'node:crypto';
import { TrawlError, type SearchData, type SearchRequest } from '@trawl/api-schema';
import type { CrawlQueueJob, CreditLedger, JobCancellations, QueueSet, ResultStore, ResultWaiter, Team } from '@trawl/queue';
import { callCrawlQueue } from './crawl-queue-call.js';

export interface SearchServiceDeps {
  queues: QueueSet;
  waiter: ResultWaiter;
  results: ResultStore;
  credits: CreditLedger;
  /** Stops a running search (its scrapes) once nobody waits for it. */
  cancellations: Pick<JobCancellations, 'cancel'>;
  /** A search provider is configured (`TRAWL_SEARCH_PROVIDER` is not `none`). */
  enabled: boolean;
  /** How long past its timeout the gateway waits for the worker's answer, ms. */
  graceMs: number;
  now?: () => number;
}

/** What a search answered. */
export interface SearchOutcome {
  id: string;
  data: SearchData;
  creditsUsed: number;
  warning?: string;
}

/**
 * `POST /v2/search` (and `/v1/search`): a `search` job on the crawl queue (a worker asks the provider
 * and scrapes the results through the team's concurrency group), awaited through the results channel.
 */
export class SearchService {
  private readonly now: () => number;

  constructor(private readonly deps: SearchServiceDeps) {
    this.now = deps.now ?? Date.now;
  }

  async search(team: Team, request: SearchRequest, opts: { clientGone?: AbortSignal } = {}): Promise<SearchOutcome> {
    if (!this.deps.enabled) {
      throw new TrawlError('UNSUPPORTED_OPTION', 'Search is turned off on this deployment (TRAWL_SEARCH_PROVIDER=none)', { details: { option: 'search' } });
    }
    // The smallest search costs one block of results (2 credits).
    await this.deps.credits.ensureAvailable(team.id, 2);
    const jobId = randomUUID();
    const job: Extract<CrawlQueueJob, { kind: 'search' }> = {
      v: 1, kind: 'search', jobId, teamId: team.id, request, deadline: this.now() + request.timeout, zeroDataRetention: request.zeroDataRetention,
    };
    const result = await callCrawlQueue(this.deps, job, { waitMs: request.timeout + this.deps.graceMs, clientGone: opts.clientGone });
    if (!result) throw new TrawlError('SEARCH_TIMEOUT', `The search timed out after ${request.timeout} ms`, { details: { timeoutMs: request.timeout } });
    if (!result.outcome.ok) throw TrawlError.fromData(result.outcome.error);
    const doc = result.outcome.document as { data?: SearchData; creditsUsed?: number; warning?: string };
    return {
      id: jobId, data: doc.data ?? {}, creditsUsed: doc.creditsUsed ?? 0, ...(doc.warning ? { warning: doc.warning } : {}),
    };
  }
}
