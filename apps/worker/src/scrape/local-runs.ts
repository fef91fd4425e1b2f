import { UnrecoverableError } from 'bullmq';
import type { Logger } from '@trawl/observability';
import { JOB_CATALOG, type AdmissionFacts, type DispatchSpec, type JobDispatcher } from '@trawl/queue';
import type { WorkerMetrics } from '../worker-metrics.js';
import { LocalDeferral, LocalJobRun } from './pipeline/job-run.js';
import type { ScrapeProcessor } from './scrape.processor.js';

export interface LocalRunsDeps {
  /** The processor of the `scrape` queue (plain HTTP first) of this process. */
  processor: Pick<ScrapeProcessor, 'runJob'>;
  dispatcher: Pick<JobDispatcher, 'requeue' | 'keepAdmitted' | 'checkAfterMs'>;
  metrics: Pick<WorkerMetrics, 'localRuns' | 'jobsInFlight'>;
  logger: Logger;
  /** Aborted when the process stops: no new run starts, running ones go back to the queue. */
  shutdown: AbortSignal;
  /** Most jobs run here at once; the others go to BullMQ. 0 turns local runs off. */
  max: number;
  now?: () => number;
}

/** One local run: whose slot it holds, and when it ends. */
interface Running {
  teamId: string;
  jobId: string;
  startedAt: number;
  done: Promise<void>;
}

/**
 * Runs `scrape`-queue jobs that this process itself admitted (the next pages a finished crawl page
 * started, backlog jobs its released slots promoted) at once, in-process, instead of handing each to
 * BullMQ and picking it up again: no queue hop, no BullMQ job. The job keeps everything an admitted
 * job has (its team slot, its stored spec): the team's concurrency and fairness are the same, and if
 * this process dies the reaper finds the job missing from BullMQ and enqueues it, so nothing is lost.
 *
 * A run is the job's first attempt. What a BullMQ run would do with its job, a local run does through
 * the queue: a job that must wait (its host's politeness turn, a rate-limited target) is queued in
 * BullMQ delayed; an attempt that fails with attempts left is queued for the remaining attempts after
 * the queue's backoff; a run stopped by shutdown is queued for another worker.
 */
export class LocalRuns {
  private readonly running = new Map<string, Running>();
  private readonly now: () => number;
  private readonly keepAlive: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly deps: LocalRunsDeps) {
    this.now = deps.now ?? Date.now;
    // The reaper looks at an admitted job `checkAfterMs` after its admission: a run that is still
    // going by then must not look lost (it would be enqueued a second time).
    const every = Math.max(250, Math.floor(deps.dispatcher.checkAfterMs / 3));
    this.keepAlive = setInterval(() => this.keepAdmitted(every), every);
    this.keepAlive.unref();
  }

  /** Jobs running here now. */
  get size(): number {
    return this.running.size;
  }

  /** The dispatcher's {@link LocalRunner}: takes a `scrape` job when there is room. */
  readonly offer = (spec: DispatchSpec, admission: AdmissionFacts): boolean => {
    if (this.closed || this.deps.shutdown.aborted || spec.queue !== 'scrape' || this.running.size >= this.deps.max) return false;
    if (this.running.has(spec.jobId)) return true; // already running here
    const startedAt = this.now();
    // Fresh: a job its producer validated (DispatchSpec.validated) that the offering submit admitted at
    // once (every job a release promotes waited), and not a crawl's page (read by its crawl's rules).
    const fresh = spec.validated === true && !admission.limited && (spec.data as { crawl?: unknown }).crawl === undefined;
    const run = new LocalJobRun(spec.jobId, { ...spec.data, admission }, JOB_CATALOG.scrape.policy.attempts, startedAt, { fresh });
    const entry: Running = { teamId: spec.teamId, jobId: spec.jobId, startedAt, done: Promise.resolve() };
    this.running.set(spec.jobId, entry);
    entry.done = this.execute(spec, run).finally(() => this.running.delete(spec.jobId));
    return true;
  };

  /** Takes no more jobs and waits for the running ones (they stop at the shutdown abort and go back to the queue). */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.keepAlive);
    await Promise.all([...this.running.values()].map((r) => r.done));
  }

  private async execute(spec: DispatchSpec, run: LocalJobRun): Promise<void> {
    const { metrics, logger } = this.deps;
    const queue = spec.queue;
    // No queue wait is observed: the job never sat in a queue (trawl_local_runs_total counts it).
    metrics.jobsInFlight.inc({ queue });
    // Started from inside another job's step (its finish): its own run starts on a new turn.
    await Promise.resolve();
    let outcome: 'done' | 'deferred' | 'requeued' = 'done';
    try {
      await this.deps.processor.runJob(run);
    } catch (err) {
      if (err instanceof LocalDeferral) {
        outcome = 'deferred';
        await this.requeue(spec, err.data, { delayMs: err.at - this.now(), attempts: run.attempts });
      } else if (!(err instanceof UnrecoverableError)) {
        // The pipeline gave up this attempt without an outcome: a failure with attempts left, or the
        // process is stopping. The queue runs it again, for the attempts left.
        outcome = 'requeued';
        const stopping = this.deps.shutdown.aborted;
        await this.requeue(spec, run.data, {
          delayMs: stopping ? 0 : JOB_CATALOG.scrape.policy.backoffMs, attempts: stopping ? run.attempts : run.attempts - 1,
        });
        if (!stopping) logger.debug({ err, jobId: spec.jobId }, 'local run failed an attempt: queued for the next');
      }
      // UnrecoverableError: the pipeline recorded the job's failure; nothing is left to do.
    } finally {
      metrics.jobsInFlight.dec({ queue });
      metrics.localRuns.inc({ queue, outcome });
    }
  }

  private async requeue(spec: DispatchSpec, data: Record<string, unknown>, opts: { delayMs: number; attempts: number }): Promise<void> {
    try {
      await this.deps.dispatcher.requeue(spec, data, opts);
    } catch (err) {
      // Redis away: the job still holds its slot and its spec, so the reaper enqueues it once Redis is back.
      this.deps.logger.warn({ err, jobId: spec.jobId }, 'local run could not be queued: the reaper will enqueue it');
    }
  }

  private keepAdmitted(olderThanMs: number): void {
    const now = this.now();
    const due = [...this.running.values()].filter((r) => now - r.startedAt >= olderThanMs);
    if (due.length === 0) return;
    this.deps.dispatcher.keepAdmitted(due).catch((err: unknown) => this.deps.logger.warn({ err }, 'could not extend local runs'));
  }
}
