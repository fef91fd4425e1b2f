import type { Redis } from 'ioredis';
import type { Admission, AdmitOutcome, DispatchSpec, PromotedJob } from './admission.js';
import { SCRAPE_QUEUE_NAMES, bullPriority, type JobPayload, type QueueName, type ScrapeQueueName } from './job-catalog.js';
import type { QueueSet } from './queue-set.js';
import type { RedisKeys } from './redis-keys.js';
import { releaseLockScript } from './redis-script.js';
import { timeHop } from './hop-timing.js';

/**
 * A job to submit: `data` is the payload type the job catalog gives `queue`. A union over the queue
 * names (`Q`), so `queue` and `data` always agree: a payload sent to another queue does not compile.
 */
export type JobSpec<Q extends QueueName = QueueName> = {
  [K in Q]: Omit<DispatchSpec, 'queue' | 'data'> & { queue: K; data: JobPayload<K> };
}[Q];
/** BullMQ's reason for a job failed by its stalled-job check. */
const STALLED_OUT_REASON = 'job stalled more than allowable limit';

/** How a job got its slot: whether it waited in its team's backlog, and for how long (ms). */
export interface AdmissionFacts {
  limited: boolean;
  waitMs: number;
}

/**
 * Takes an admitted job to run in this process at once, instead of a BullMQ job: true when it took
 * it. A job it takes keeps its slot and its stored spec as any admitted job does, so if this process
 * dies the reaper finds it missing from BullMQ and enqueues it (see {@link JobDispatcher.reconcile});
 * while it runs, its runner pushes its check time forward ({@link JobDispatcher.keepAdmitted}).
 */
export type LocalRunner = (spec: DispatchSpec, admission: AdmissionFacts) => boolean;

/** What one reconciliation pass found and repaired. */
export interface ReconcileReport {
  checked: number;
  /** Slots held by jobs that had finished or vanished, given back. */
  released: number;
  /** Admitted jobs that never reached BullMQ (a producer died in between), enqueued again. */
  recovered: number;
}

/**
 * Submits jobs through their team's concurrency group into BullMQ, and gives slots back. Only jobs
 * holding a slot are in BullMQ, so one team's backlog never sits in front of another team's jobs.
 */
export class JobDispatcher {
  private local: LocalRunner | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly admission: Admission,
    private readonly queues: QueueSet,
  ) {}

  /**
   * Jobs admitted by this dispatcher from now on are offered to `runner` first (a worker that runs
   * them in-process); what it declines goes to BullMQ. `undefined` turns it off.
   */
  runLocally(runner: LocalRunner | undefined): void {
    this.local = runner;
  }

  /** Admits the job or queues it in its team's backlog; every job that got a slot goes to BullMQ (or a local runner). */
  async submit(spec: JobSpec): Promise<AdmitOutcome> {
    const outcome = await timeHop('gateway:admission', () => this.admission.admit(spec));
    await timeHop('gateway:bullmq-add', () => this.enqueue(outcome.promoted));
    return outcome;
  }

  /** Gives the job's slot back (idempotent) and starts the jobs that get it. */
  async release(teamId: string, jobId: string): Promise<boolean> {
    const { released, promoted } = await this.admission.release(teamId, jobId);
    await this.enqueue(promoted);
    return released;
  }

  /** Takes back a job that is still waiting for a slot; false when it already started. */
  withdraw(teamId: string, jobId: string): Promise<boolean> {
    return this.admission.withdraw(teamId, jobId);
  }

  /**
   * Moves a running job to another queue, keeping its slot and admission facts (the http engine
   * handing a page to the browser engine). The stored spec changes first, so a crash in between
   * leaves the reaper a spec naming the new queue, where it finds the job missing and adds it.
   */
  async handoff<Q extends Exclude<ScrapeQueueName, 'scrape'>>(teamId: string, jobId: string, toQueue: Q, data: JobPayload<Q>): Promise<void> {
    const spec = await this.admission.spec(teamId, jobId);
    if (!spec) return; // released meanwhile (withdrawn or reaped): nothing may run any more
    const moved: DispatchSpec = { ...spec, queue: toQueue, data };
    await this.admission.updateSpec(teamId, moved);
    const admission = data.admission ?? { limited: false, waitMs: 0 };
    await this.add(moved, admission);
  }

  /**
   * Whether a job is still going somewhere: `live` (admitted, waiting for a slot, or in a scrape
   * queue), `ended` (BullMQ finished or failed it), or `lost` (known nowhere: never enqueued).
   */
  async liveState(teamId: string, jobId: string): Promise<'live' | 'ended' | 'lost'> {
    if (await this.admission.spec(teamId, jobId)) return 'live';
    let ended = false;
    for (const queue of SCRAPE_QUEUE_NAMES) {
      const state = await this.queues.get(queue).getJobState(jobId);
      if (state === 'completed' || state === 'failed') ended = true;
      else if (state !== 'unknown') return 'live';
    }
    return ended ? 'ended' : 'lost';
  }

  /**
   * Whether the run holding `token` still owns the job (BullMQ's lock). A run whose lock expired
   * (its process starved, Redis away longer than the lock) has had its job stalled back to the queue
   * and handed to another run: it must record no outcome of its own. True without a token.
   */
  async holdsLock(queue: string, jobId: string | undefined, token: string | undefined): Promise<boolean> {
    if (token === undefined || jobId === undefined) return true;
    return (await this.redis.get(this.keys.bullJobLock(queue, jobId))) === token;
  }

  /**
   * Whether BullMQ failed the job for stalling too often (`maxStalledCount`: its runs died or starved
   * past their locks each time), as opposed to a failure its own run recorded.
   */
  async stalledOut(jobId: string): Promise<boolean> {
    for (const queue of SCRAPE_QUEUE_NAMES) {
      const job = await this.queues.get(queue).getJob(jobId);
      if (job?.failedReason === STALLED_OUT_REASON) return true;
    }
    return false;
  }

  /** Forgets a finished job in every scrape queue, so that its id can be submitted again. */
  async forget(jobId: string): Promise<void> {
    for (const queue of SCRAPE_QUEUE_NAMES) await this.queues.get(queue).remove(jobId);
  }

  counts(teamId: string): Promise<{ active: number; waiting: number }> {
    return this.admission.counts(teamId);
  }

  /**
   * Puts an admitted job that a local runner took into BullMQ after all (it deferred, failed an
   * attempt, or its process is stopping), keeping its slot: `data` is its payload now, `delayMs` when
   * it may run, `attempts` what it has left.
   */
  async requeue(spec: DispatchSpec, data: Record<string, unknown>, opts: { delayMs?: number; attempts?: number } = {}): Promise<void> {
    await this.queues.get(spec.queue).add(spec.name, data, {
      jobId: spec.jobId,
      priority: bullPriority(spec.priorityClass),
      ...(opts.delayMs !== undefined && opts.delayMs > 0 ? { delay: opts.delayMs } : {}),
      ...(opts.attempts !== undefined ? { attempts: Math.max(1, opts.attempts) } : {}),
    });
  }

  /** Pushes the reaper's next look at admitted jobs still running (locally) forward. */
  async keepAdmitted(jobs: Iterable<{ teamId: string; jobId: string }>): Promise<void> {
    await Promise.all([...jobs].map((j) => this.admission.extend(j.teamId, j.jobId)));
  }

  /** How long after admission (or a check) the reaper looks at an admitted job, ms. */
  get checkAfterMs(): number {
    return this.admission.checkAfterMs;
  }

  private async enqueue(promoted: PromotedJob[]): Promise<void> {
    for (const p of promoted) {
      const admission = { limited: p.limited, waitMs: p.waitMs };
      if (this.local?.(p.spec, admission)) continue;
      await this.add(p.spec, admission);
    }
  }

  private add(spec: DispatchSpec, admission: AdmissionFacts): Promise<void> {
    // jobId makes the add idempotent: adding a job BullMQ already holds is a no-op.
    return this.requeue(spec, { ...spec.data, admission });
  }

  /**
   * One reaper pass (any process may run it; a Redis lock makes it one at a time): for every admitted
   * job whose check time has passed, asks BullMQ what became of it. Finished or vanished jobs give
   * their slot back; admitted jobs missing from BullMQ are enqueued again; others are checked later.
   * This is what guarantees a team's active count returns to zero after any crash.
   */
  async reconcile(opts: { lockMs?: number } = {}): Promise<ReconcileReport | null> {
    const lockKey = this.keys.admReaperLock();
    const token = `${process.pid}-${Date.now()}-${Math.random()}`;
    const locked = await this.redis.set(lockKey, token, 'PX', opts.lockMs ?? 10_000, 'NX');
    if (!locked) return null;
    const report: ReconcileReport = { checked: 0, released: 0, recovered: 0 };
    try {
      for (const teamId of await this.redis.smembers(this.keys.admTeams())) {
        for (const jobId of await this.admission.dueForCheck(teamId)) {
          report.checked += 1;
          await this.reconcileJob(teamId, jobId, report);
        }
        const c = await this.admission.counts(teamId);
        if (c.active === 0 && c.waiting === 0) await this.redis.srem(this.keys.admTeams(), teamId);
      }
    } finally {
      // Release the lock only if it is still ours.
      await releaseLockScript.run(this.redis, [lockKey], [token]);
    }
    return report;
  }

  private async reconcileJob(teamId: string, jobId: string, report: ReconcileReport): Promise<void> {
    const spec = await this.admission.spec(teamId, jobId);
    if (!spec) {
      if (await this.release(teamId, jobId)) report.released += 1;
      return;
    }
    const state = await this.queues.get(spec.queue).getJobState(jobId);
    if (state === 'completed' || state === 'failed') {
      if (await this.release(teamId, jobId)) report.released += 1;
    } else if (state === 'unknown') {
      await this.add(spec, { limited: false, waitMs: 0 });
      await this.admission.extend(teamId, jobId);
      report.recovered += 1;
    } else {
      await this.admission.extend(teamId, jobId);
    }
  }
}
