import { randomUUID } from 'node:crypto';
import { TrawlError, needsBrowser, scrapeRequestSchema, type ScrapeRequest } from '@trawl/api-schema';
import type { JobCancellations, JobDispatcher, ResultStore, ResultWaiter, ScrapeJob } from '@trawl/queue';
import type { SearchPageScraper, SearchScrapeOutcome } from './search-runner.js';

export interface DispatchedPageScraperDeps {
  dispatcher: Pick<JobDispatcher, 'submit' | 'withdraw'>;
  waiter: Pick<ResultWaiter, 'wait' | 'replyTo'>;
  results: Pick<ResultStore, 'delete'>;
  cancellations: Pick<JobCancellations, 'cancel'>;
  now?: () => number;
}

/** How long past a page's deadline its outcome is still awaited (the worker's own timeout answer), ms. */
const OUTCOME_GRACE_MS = 500;

/**
 * Scrapes a search result as a sync scrape job through the team's concurrency group (the same
 * admission, engines, cache and billing as `POST /v2/scrape`), waiting for its outcome on the results
 * channel. A page that has not started by its deadline is withdrawn; one that overran is cancelled.
 */
export class DispatchedPageScraper implements SearchPageScraper {
  private readonly now: () => number;

  constructor(private readonly deps: DispatchedPageScraperDeps) {
    this.now = deps.now ?? Date.now;
  }

  async scrape(teamId: string, built: ScrapeRequest, opts: { deadline: number; signal: AbortSignal }): Promise<SearchScrapeOutcome> {
    // Validated here, as the API validates its requests: a job this process runs at once uses its
    // request as it is (JobRun.fresh), and a result's URL comes from the search provider.
    const parsed = scrapeRequestSchema.safeParse(built);
    if (!parsed.success) {
      return { ok: false, error: new TrawlError('SCRAPE_FAILED', `This result cannot be scraped: ${parsed.error.issues[0]?.message ?? 'invalid request'}`).toData() };
    }
    const request = parsed.data;
    const jobId = randomUUID();
    const enqueuedAt = this.now();
    const job: ScrapeJob = {
      v: 1, jobId, teamId, request, deadline: opts.deadline, mode: 'sync', zeroDataRetention: request.zeroDataRetention, replyTo: this.deps.waiter.replyTo,
    };
    const outcome = this.deps.waiter.wait(jobId, Math.max(0, opts.deadline - enqueuedAt) + OUTCOME_GRACE_MS);
    const admit = await this.deps.dispatcher.submit({
      jobId, teamId, queue: needsBrowser(request) ? 'browser' : 'scrape', name: 'scrape', data: job, priorityClass: 'interactive', enqueuedAt, validated: true,
    });
    if (admit.status === 'backlog-full') {
      return { ok: false, error: new TrawlError('CONCURRENCY_BACKLOG_FULL', 'Too many jobs are waiting for this team\'s concurrency slots').toData() };
    }
    const stop = () => void this.deps.cancellations.cancel(jobId).catch(() => undefined);
    opts.signal.addEventListener('abort', stop, { once: true });
    let result: Awaited<typeof outcome>;
    try {
      result = await outcome;
    } finally {
      opts.signal.removeEventListener('abort', stop);
    }
    if (!result) {
      // Still waiting for a slot: it never runs. Already running past its deadline: stopped.
      const withdrawn = await this.deps.dispatcher.withdraw(teamId, jobId).catch(() => false);
      if (!withdrawn) stop();
      return { ok: false, error: new TrawlError('SCRAPE_TIMEOUT', 'The result could not be scraped within the search\'s timeout').toData() };
    }
    await this.deps.results.delete(jobId);
    return result.outcome.ok ? { ok: true, document: result.outcome.document } : { ok: false, error: result.outcome.error };
  }
}
