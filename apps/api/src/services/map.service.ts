import { randomUUID } from 'node:crypto';
import { callCrawlQueue } from './crawl-queue-call.js';
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

  async map(team: Team, request: MapRequest, opts: { clientGone?: AbortSignal } = {}): Promise<{ id: string; links: unknown[]; warning?: string }> {
    await this.deps.credits.ensureAvailable(team.id, 1);
    const jobId = randomUUID();
    // Any positive timeout is taken; whole ms, and within what a timer can wait.
    const timeout = Math.min(Math.ceil(request.timeout ?? this.deps.defaultTimeoutMs), MAX_TIMER_MS - this.deps.graceMs);
    const job: Extract<CrawlQueueJob, { kind: 'map' }> = {
      v: 1, kind: 'map', jobId, teamId: team.id, request, deadline: this.now() + timeout,
    };
    const result = await callCrawlQueue(this.deps, job, { waitMs: timeout + this.deps.graceMs, clientGone: opts.clientGone });
    if (!result) {
      // A map that overran its budget (or never started): it was stopped rather than left to run for nobody.
      throw new TrawlError('MAP_TIMEOUT', `The map operation timed out after ${timeout} ms before any URL was found`, { details: { timeoutMs: timeout } });
    }
    if (!result.outcome.ok) throw TrawlError.fromData(result.outcome.error);
    const links = (result.outcome.document.links as unknown[]) ?? [];
    const warnings = [result.outcome.document.warning, deepPathWarning(request.url, links.length)].filter((w): w is string => typeof w === 'string');
    return { id: jobId, links, ...(warnings.length > 0 ? { warning: warnings.join(' ') } : {}) };
  }
}

/** Longest delay a Node timer takes, ms. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * A map started below the site's root (`https://site/docs/a/b`) that found at most one URL: the
 * links of a deep page say little about the site, its base domain says more.
 */
export function deepPathWarning(url: string, found: number): string | undefined {
  if (found > 1) return undefined;
  const u = new URL(url);
  if (u.pathname.split('/').filter((s) => s !== '').length === 0) return undefined;
  return `Only ${found} URL${found === 1 ? '' : 's'} found from the path ${u.pathname}. Mapping the base domain (${u.origin}) usually finds more; results can then be filtered by path.`;
}
