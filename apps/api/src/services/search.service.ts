import { randomUUID } from 'node:crypto';
import { TrawlError, type SearchData, type SearchRequest } from '@trawl/api-schema';
import type { CrawlQueueJob, CreditLedger, JobCancellations, QueueSet, ResultStore, ResultWaiter, Team } from '@trawl/queue';

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
    const job: CrawlQueueJob = {
      v: 1, kind: 'search', jobId, teamId: team.id, request, deadline: this.now() + request.timeout, zeroDataRetention: request.zeroDataRetention,
    };
    const outcome = this.deps.waiter.wait(jobId, request.timeout + this.deps.graceMs);
    // Beside maps: behind crawl seeding and pumps.
    await this.deps.queues.get('crawl').add('search', job, { jobId, priority: 5 });
    const cancel = () => void this.deps.cancellations.cancel(jobId).catch(() => undefined);
    opts.clientGone?.addEventListener('abort', cancel, { once: true });
    let result: Awaited<typeof outcome>;
    try {
      result = await outcome;
    } finally {
      opts.clientGone?.removeEventListener('abort', cancel);
    }
    if (!result) {
      await this.deps.cancellations.cancel(jobId);
      throw new TrawlError('SEARCH_TIMEOUT', `The search timed out after ${request.timeout} ms`, { details: { timeoutMs: request.timeout } });
    }
    await this.deps.results.delete(jobId);
    if (!result.outcome.ok) throw TrawlError.fromData(result.outcome.error);
    const doc = result.outcome.document as { data?: SearchData; creditsUsed?: number; warning?: string };
    return {
      id: jobId, data: doc.data ?? {}, creditsUsed: doc.creditsUsed ?? 0, ...(doc.warning ? { warning: doc.warning } : {}),
    };
  }
}
