import { TrawlError, type ScrapeRequest } from '@trawl/api-schema';
import type { Logger } from '@trawl/observability';
import { scrapeCredits, timeHop, type JobOutcome, type ScrapeJob } from '@trawl/queue';
import { enforceResultSize } from '../result-size.js';
import type { CacheWrites } from '../../cache/cache-step.js';
import type { ScrapeDeps } from './context.js';

type FinishDeps = Pick<ScrapeDeps, 'crawlPages' | 'credits' | 'results' | 'dispatcher' | 'documentBodies' | 'maxResultBytes'> & { now: () => number };

/** What a successful run hands to {@link finishJob}. */
export interface FinishRun {
  links?: string[];
  finalUrl: string;
  /**
   * The run's page-cache writes (CacheStep.store), started here with the document's JSON; the job
   * ends once they do (they go out with its release). An outcome that wakes a caller elsewhere does
   * not overtake them: they go out with the charge (one round trip for both), and the outcome is
   * stored after them. An outcome handed to its caller in this process goes first, and they follow
   * once its answer is written: a read of their entries in this process waits for them (PageCache),
   * so the caller's next request still finds them. A crawl page's record does not wait for them.
   */
  cacheWrites?: CacheWrites | undefined;
}

/**
 * A crawl's broken link (the page answered 4xx/5xx) is an error of the crawl, listed in `/errors`: not
 * a document, nor a charge. Batch pages with such a status are documents (they were asked for).
 */
export function crawlHttpError(job: ScrapeJob, statusCode: number): TrawlError | undefined {
  if (job.crawl?.kind !== 'crawl' || statusCode < 400) return undefined;
  return new TrawlError('SCRAPE_HTTP_ERROR', `The page answered HTTP ${statusCode}`, { details: { statusCode } });
}

/**
 * Whether a page of `job` answering 4xx/5xx ends as a broken link as soon as it is fetched: a crawl's
 * page, unless it is under change tracking (its transformer tells a page that is gone, a `removed`
 * document, from a broken link). Such a page is not converted, and the browser need not settle it.
 */
export function dropsBrokenLinks(job: ScrapeJob, request: ScrapeRequest): boolean {
  return job.crawl?.kind === 'crawl' && !request.formats.some((f) => f.type === 'changeTracking');
}

/**
 * The end of every terminal path of a job: charge (once), store the outcome (which wakes the waiting
 * gateway; a crawl page goes to its crawl), drop a parked document's bytes, then free the slot.
 */
export async function finishJob(
  deps: FinishDeps, job: ScrapeJob, outcome: JobOutcome, log: Logger, run?: FinishRun,
): Promise<void> {
  // Released only once the outcome is recorded: a job whose recording failed is retried holding its
  // slot (a crash here leaves the slot to the reaper). A crawl page's charge, which follows its
  // recording, goes out with the release (one round trip for both), and its cache writes end with them.
  // An outcome handed to a caller in this process as it was sent (`retained`) is released once its
  // write ends: a crash before that leaves the reaper a slot whose job has no stored outcome, as
  // before the hand-over. A failed write is reported, not retried: the outcome was delivered.
  const { charge, pending, retained } = await timeHop('worker:finish-record', () => record(deps, job, outcome, log, run));
  await timeHop('worker:finish-release', async () => {
    await retained;
    await Promise.all([charge, pending, deps.dispatcher.release(job.teamId, job.jobId)]);
  });
  if (job.document) await deps.documentBodies.delete(job.jobId);
}

/**
 * Records the outcome. A crawl page hands back its charge and its cache writes, sent and not awaited:
 * nothing of the crawl reads the cache, so the page's record (and its next pages) need not wait for
 * the compression and the writes.
 */
async function record(
  deps: FinishDeps, job: ScrapeJob, outcome: JobOutcome, log: Logger, run?: FinishRun,
): Promise<{ charge?: Promise<unknown>; pending?: Promise<unknown>; retained?: Promise<unknown> }> {
  // A crawl page keeps its links only when they were asked for: they are neither stored nor measured.
  if (job.crawl && outcome.ok && !(job.request as { formats?: { type: string }[] }).formats?.some((f) => f.type === 'links')) {
    delete outcome.document.links;
  }
  // The document's JSON, written once to measure it, is what its store writes (not changed after this).
  const sized = enforceResultSize(outcome, deps.maxResultBytes);
  if (sized.outcome !== outcome) log.info({ code: 'RESULT_TOO_LARGE', limitBytes: deps.maxResultBytes }, 'scrape failed');
  outcome = sized.outcome;
  const documentJson = outcome.ok ? sized.documentJson : undefined;
  const statusCode = outcome.ok ? outcome.document.metadata.statusCode : 0;
  const removal = outcome.ok && outcome.document.changeTracking?.changeStatus === 'removed';
  const httpError = removal ? undefined : crawlHttpError(job, statusCode);
  // A tracked page that is now gone is a document saying `removed`, not a broken link.
  if (httpError) outcome = { ok: false, error: httpError.toData() };
  // Lockdown bills its miss too (1 credit), though no document results: charged with the outcome, once.
  const credits = outcome.ok
    ? outcome.document.metadata.creditsUsed ?? 0
    : outcome.error.code === 'SCRAPE_LOCKDOWN_CACHE_MISS' ? scrapeCredits({ lockdown: { hit: false } }) : 0;
  if (job.crawl) {
    const pending = run?.cacheWrites?.(documentJson);
    const request = job.request as { url: string };
    const { charged } = await deps.crawlPages.record(job, request.url, outcome.ok
      ? {
        ok: true, document: outcome.document, ...(documentJson !== undefined ? { documentJson } : {}),
        links: run?.links ?? [], finalUrl: run?.finalUrl ?? request.url, creditsUsed: credits,
      }
      : { ok: false, error: outcome.error, ...(credits > 0 ? { creditsUsed: credits } : {}) }, log,
    credits > 0 ? () => deps.credits.charge(job.teamId, credits) : undefined);
    return { ...(charged ? { charge: charged } : {}), ...(pending ? { pending } : {}) };
  }
  // A caller waiting in this process is answered before the outcome is written (ResultStore.put's
  // `handOverFirst`; the write follows the answer): the stored copy that GET /v2/scrape/:id reads is
  // awaited before the release, and so are the cache writes, registered now (reads of their entries
  // in this process wait for them) and sent once the answer is written (see FinishRun.cacheWrites).
  const handOver = deps.results.handsOverFirst(job.jobId, { zeroDataRetention: job.zeroDataRetention });
  let answered: (() => void) | undefined;
  const after = handOver ? new Promise<void>((resolve) => { answered = resolve; }) : undefined;
  const pending = run?.cacheWrites?.(documentJson, after);
  const stored = { jobId: job.jobId, teamId: job.teamId, finishedAt: new Date(deps.now()).toISOString(), outcome };
  // Stored for a caller elsewhere: compressed while the charge (and the cache writes) go out.
  const copy = handOver ? undefined : deps.results.storedCopy(stored, { zeroDataRetention: job.zeroDataRetention, documentJson });
  try {
    // Charged durably before the outcome can be read.
    await Promise.all([handOver ? undefined : pending, credits > 0 ? deps.credits.charge(job.teamId, credits) : undefined]);
    // (Should its caller have gone meanwhile, put stores the outcome first, and the writes follow.)
    const { retained } = await deps.results.put(stored, { zeroDataRetention: job.zeroDataRetention, handOverFirst: true, replyTo: job.replyTo, documentJson, copy });
    return {
      ...(retained ? { retained: retained.catch((err: unknown) => log.warn({ err }, 'storing a delivered outcome failed: GET /v2/scrape/:id may not find it')) } : {}),
      ...(pending ? { pending } : {}),
    };
  } finally {
    // Whatever happened to the charge and the outcome, the page is cached (as a fetched page always
    // was). setImmediate: once this turn's microtasks, the answer among them, have run.
    if (answered) setImmediate(answered);
  }
}
