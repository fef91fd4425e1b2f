import type { CrawlQueueJob, JobCancellations, QueueSet, ResultStore, ResultWaiter, StoredResult } from '@trawl/queue';

/** What {@link callCrawlQueue} needs. */
export interface CrawlQueueCallDeps {
  queues: QueueSet;
  waiter: ResultWaiter;
  results: ResultStore;
  /** Stops the job once nobody waits for it (client gone, timed out). */
  cancellations: Pick<JobCancellations, 'cancel'>;
}

/**
 * Runs a request/answer job on the crawl queue (`map`, `crawl-params`, ...) and waits for its result
 * through the results channel, like a sync scrape: behind crawl seeding and pumps (priority 5), so
 * these never hold every crawl back. A client that goes away cancels the job; a job not answered
 * within `waitMs` is cancelled too (it would otherwise run for nobody) and `null` is returned. The
 * stored result is deleted once read.
 */
export async function callCrawlQueue(
  deps: CrawlQueueCallDeps,
  job: Extract<CrawlQueueJob, { jobId: string }>,
  opts: { waitMs: number; clientGone?: AbortSignal | undefined },
): Promise<StoredResult | null> {
  const outcome = deps.waiter.wait(job.jobId, opts.waitMs);
  // Answered on this process's own results channel (ResultWaiter.replyTo).
  await deps.queues.get('crawl').add(job.kind, { ...job, replyTo: deps.waiter.replyTo }, { jobId: job.jobId, priority: 5 });
  const cancel = () => void deps.cancellations.cancel(job.jobId).catch(() => undefined);
  opts.clientGone?.addEventListener('abort', cancel, { once: true });
  let result: StoredResult | null;
  try {
    result = await outcome;
  } finally {
    opts.clientGone?.removeEventListener('abort', cancel);
  }
  if (!result) {
    await deps.cancellations.cancel(job.jobId);
    return null;
  }
  await deps.results.delete(job.jobId);
  return result;
}
