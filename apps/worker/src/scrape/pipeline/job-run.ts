import { DelayedError, type Job } from 'bullmq';
import type { JobDispatcher } from '@trawl/queue';

/**
 * The queue's hold on a job while the pipeline runs it. Two kinds: a BullMQ job whose lock this run
 * holds ({@link BullJobRun}), and a job admitted in this very process and run here without going
 * through BullMQ ({@link LocalJobRun}, see local-runs.ts). The pipeline asks only this.
 */
export interface JobRun {
  /** The job's id. */
  readonly id: string;
  /** Attempts made before this one. */
  readonly attemptsMade: number;
  /** Attempts the job has in all. */
  readonly attempts: number;
  /** When the job was put where this run took it from, ms since epoch (the pick-up hop starts there). */
  readonly queuedAt: number;
  /** The job's payload as queued (what a deferral keeps). */
  readonly data: Record<string, unknown>;
  /** Whether the run can put the job back to run later: a BullMQ job needs its lock token. */
  readonly canDefer: boolean;
  /**
   * Whether the job is a single scrape (not a crawl's page) its producer validated (DispatchSpec.validated)
   * and that the very call starting this run admitted, without waiting for a slot: a sync scrape the
   * API of this process just admitted, or a search's result page. Its producer built its payload in
   * this process (used as it is: ScrapeProcessor.runJob) and checked its team (the API with this
   * request; a search when it started, as any running job finishes once its team is disabled), and
   * no outcome or cancellation can exist yet for the id it just made, so the run reads none of them
   * (ScrapePipeline.run). Never true for a BullMQ run.
   */
  readonly fresh: boolean;
  /** Whether this run still owns the job (a BullMQ run whose lock expired does not). */
  owns(): Promise<boolean>;
  /**
   * Puts the job back to run at `at` (the same attempt), with `data` as its payload when given, and
   * ends this run: it always throws (BullMQ's DelayedError, or {@link LocalDeferral}).
   */
  deferUntil(at: number, data?: Record<string, unknown>): Promise<never>;
}

/** A BullMQ job run by a queue consumer; `token` is its lock (absent when run outside a worker). */
export class BullJobRun implements JobRun {
  readonly canDefer: boolean;
  readonly fresh = false;

  constructor(
    private readonly job: Job,
    private readonly token: string | undefined,
    private readonly queue: string,
    private readonly dispatcher: Pick<JobDispatcher, 'holdsLock'>,
  ) {
    this.canDefer = token !== undefined;
  }

  get id(): string {
    return this.job.id ?? '';
  }

  get attemptsMade(): number {
    return this.job.attemptsMade;
  }

  get attempts(): number {
    return this.job.opts.attempts ?? 1;
  }

  get queuedAt(): number {
    return this.job.timestamp;
  }

  get data(): Record<string, unknown> {
    return this.job.data as Record<string, unknown>;
  }

  owns(): Promise<boolean> {
    return this.dispatcher.holdsLock(this.queue, this.job.id, this.token);
  }

  async deferUntil(at: number, data?: Record<string, unknown>): Promise<never> {
    if (data) await this.job.updateData(data);
    await this.job.moveToDelayed(at, this.token);
    throw new DelayedError();
  }
}

/** Thrown by a {@link LocalJobRun} that defers its job: the local runner queues it in BullMQ, delayed. */
export class LocalDeferral extends Error {
  constructor(
    readonly at: number,
    readonly data: Record<string, unknown>,
  ) {
    super('deferred to the queue');
    this.name = 'LocalDeferral';
  }
}

/** A job admitted by this process and run here at once, without a BullMQ job (its first attempt). */
export class LocalJobRun implements JobRun {
  readonly attemptsMade = 0;
  readonly canDefer = true;
  readonly fresh: boolean;

  constructor(
    readonly id: string,
    readonly data: Record<string, unknown>,
    readonly attempts: number,
    readonly queuedAt: number,
    opts: { fresh?: boolean } = {},
  ) {
    this.fresh = opts.fresh ?? false;
  }

  owns(): Promise<boolean> {
    return Promise.resolve(true);
  }

  deferUntil(at: number, data?: Record<string, unknown>): Promise<never> {
    return Promise.reject(new LocalDeferral(at, data ?? this.data));
  }
}

/** Whether an error only says the run handed its job back to wait (BullMQ's or a local run's deferral). */
export function isDeferral(err: unknown): boolean {
  return err instanceof DelayedError || err instanceof LocalDeferral;
}
