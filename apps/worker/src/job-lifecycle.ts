import { DelayedError, WaitingChildrenError, WaitingError, type Job, type Worker } from 'bullmq';
import type { WorkerMetrics } from './worker-metrics.js';

export type JobHandler = (job: Job, token?: string) => Promise<unknown>;

/** When the job became ready to run, for its first start (retries and returns are not queue wait). */
export function readySince(job: Job): number | undefined {
  const data = job.data as { hostSlotAt?: unknown; hostSlotAttempt?: unknown } | undefined;
  // A crawl page delayed for its host's rate was ready at its slot.
  if (typeof data?.hostSlotAt === 'number' && data.hostSlotAttempt === job.attemptsMade) return data.hostSlotAt;
  if (job.attemptsMade > 0 || (job.attemptsStarted ?? 1) > 1) return undefined;
  return job.timestamp + (job.opts.delay ?? 0);
}

const isControlFlow = (err: unknown) =>
  err instanceof DelayedError || err instanceof WaitingError || err instanceof WaitingChildrenError;

/**
 * Wraps a queue's handler with what every job shares: queue-wait and in-flight metrics, and the
 * shutdown rule. A job still running when the grace period ends (`shutdown` aborted) and failing
 * because of it goes back to its queue's waiting list without spending an attempt: another worker
 * runs it, and the processors' exactly-once checks make a job that had already recorded its outcome
 * only clean up.
 */
export function lifecycleHandler(queue: string, handler: JobHandler, deps: { metrics: WorkerMetrics; shutdown: AbortSignal; now?: () => number }): JobHandler {
  const now = deps.now ?? Date.now;
  return async (job, token) => {
    const since = readySince(job);
    if (since !== undefined) deps.metrics.queueWait.observe({ queue }, Math.max(0, now() - since) / 1000);
    deps.metrics.jobsInFlight.inc({ queue });
    try {
      return await handler(job, token);
    } catch (err) {
      if (deps.shutdown.aborted && token !== undefined && !isControlFlow(err)) {
        await job.moveToWait(token);
        deps.metrics.jobsReturned.inc({ queue });
        throw new WaitingError();
      }
      throw err;
    } finally {
      deps.metrics.jobsInFlight.dec({ queue });
    }
  };
}

/** Counts the stalled jobs a BullMQ worker finds (any worker checks every queue it consumes). */
export function countStalled(worker: Pick<Worker, 'on'>, queue: string, metrics: WorkerMetrics): void {
  worker.on('stalled', () => metrics.jobsStalled.inc({ queue }));
}
