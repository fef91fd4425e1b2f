import { randomUUID } from 'node:crypto';
import { TrawlError, type MapRequest } from '@trawl/api-schema';
import type { CrawlQueueJob, CreditLedger, JobCancellations, QueueSet, ResultStore, ResultWaiter, Team } from '@trawl/queue';

export interface MapServiceDeps {
  queues: QueueSet;
  waiter: ResultWaiter;
  results: ResultStore;
  credits: CreditLedger;
  /** Stops a running map once nobody waits for it (client gone, timed out). */
  cancellations: Pick<JobCancellations, 'cancel'>;
  /** Budget of a map without `timeout`, ms. */
  defaultTimeoutMs: number;
  /** How long past its budget the gateway waits for the worker's answer, ms. */
  graceMs: number;
  now?: () => number;
}

/**
 * `POST /v2/map`: a `map` job on the crawl queue (a worker reads sitemaps and discovers links over
 * plain HTTP), awaited through the results channel like a sync scrape.
 */
export class MapService {
  private readonly now: () => number;

  constructor(private readonly deps: MapServiceDeps) {
    this.now = deps.now ?? Date.now;
  }

  async map(team: Team, request: MapRequest, opts: { clientGone?: AbortSignal } = {}): Promise<{ id: string; links: unknown[] }> {
    await this.deps.credits.ensureAvailable(team.id, 1);
    const jobId = randomUUID();
    const timeout = request.timeout ?? this.deps.defaultTimeoutMs;
    const job: CrawlQueueJob = {
      v: 1, kind: 'map', jobId, teamId: team.id, request, deadline: this.now() + timeout,
    };
    const outcome = this.deps.waiter.wait(jobId, timeout + this.deps.graceMs);
    // Behind crawl seeding and pumps (priority 1), so maps never hold every crawl back.
    await this.deps.queues.get('crawl').add('map', job, { jobId, priority: 5 });
    const cancel = () => void this.deps.cancellations.cancel(jobId).catch(() => undefined);
    opts.clientGone?.addEventListener('abort', cancel, { once: true });
    let result: Awaited<typeof outcome>;
    try {
      result = await outcome;
    } finally {
      opts.clientGone?.removeEventListener('abort', cancel);
    }
    if (!result) {
      // A map that overran its budget (or never started) stops now rather than for nobody.
      await this.deps.cancellations.cancel(jobId);
      throw new TrawlError('MAP_TIMEOUT', `Map timed out after ${timeout} ms`, { details: { timeoutMs: timeout } });
    }
    await this.deps.results.delete(jobId);
    if (!result.outcome.ok) throw TrawlError.fromData(result.outcome.error);
    return { id: jobId, links: (result.outcome.document.links as unknown[]) ?? [] };
  }
}
