import { describe, expect, it } from '@jest/globals';
import { UnrecoverableError } from 'bullmq';
import { createLogger, createMetricsRegistry } from '@trawl/observability';
import type { DispatchSpec } from '@trawl/queue';
import { createWorkerMetrics } from '../worker-metrics.js';
import type { JobRun } from './pipeline/job-run.js';
import { LocalRuns } from './local-runs.js';

const log = createLogger({ role: 'test', level: 'silent' });

const spec = (jobId: string, queue = 'scrape'): DispatchSpec => ({
  jobId, teamId: 'team', queue, name: 'scrape', priorityClass: 'bulk', enqueuedAt: 0,
  data: { v: 1, jobId, teamId: 'team', request: { url: 'http://a.example/' } },
});

/** LocalRuns over a processor that does what `behave` says, and a dispatcher that records requeues. */
function setup(behave: (run: JobRun) => Promise<unknown>, opts: { max?: number; shutdown?: AbortController } = {}) {
  const requeued: { jobId: string; data: Record<string, unknown>; delayMs?: number; attempts?: number }[] = [];
  const runs: JobRun[] = [];
  const metrics = createWorkerMetrics(createMetricsRegistry({ role: 'test' }));
  const shutdown = opts.shutdown ?? new AbortController();
  const local = new LocalRuns({
    processor: { runJob: async (run) => { runs.push(run); await behave(run); return { ok: true }; } },
    dispatcher: {
      checkAfterMs: 15_000,
      keepAdmitted: async () => undefined,
      requeue: async (s, data, o = {}) => { requeued.push({ jobId: s.jobId, data, ...o }); },
    },
    metrics, logger: log, shutdown: shutdown.signal, max: opts.max ?? 4, now: () => 1_000,
  });
  const outcomes = async () => (await metrics.localRuns.get()).values.map((v) => `${v.labels.outcome}=${v.value}`).sort();
  return { local, requeued, runs, outcomes, shutdown };
}

describe('LocalRuns', () => {
  it('runs a scrape job in-process as its first attempt, with its admission facts in the payload', async () => {
    const { local, runs, requeued, outcomes } = setup(async () => undefined);
    expect(local.offer(spec('a'), { limited: true, waitMs: 12 })).toBe(true);
    await local.close();
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ id: 'a', attemptsMade: 0, attempts: 3, canDefer: true });
    expect(runs[0]!.data).toMatchObject({ jobId: 'a', admission: { limited: true, waitMs: 12 } });
    expect(requeued).toEqual([]);
    expect(await outcomes()).toEqual(['done=1']);
  });

  it('a run is fresh only for a validated single scrape its submit admitted at once: not one that waited, a crawl page or an unvalidated one', async () => {
    const { local, runs } = setup(async () => undefined);
    const validated = (jobId: string): DispatchSpec => ({ ...spec(jobId), validated: true });
    local.offer(validated('now'), { limited: false, waitMs: 0 });
    local.offer(validated('waited'), { limited: true, waitMs: 5 });
    const page = validated('page');
    local.offer({ ...page, data: { ...page.data, crawl: { id: 'c', kind: 'crawl', depth: 1 } } }, { limited: false, waitMs: 0 });
    local.offer(spec('unvalidated'), { limited: false, waitMs: 0 });
    await local.close();
    expect(Object.fromEntries(runs.map((r) => [r.id, r.fresh]))).toEqual({ now: true, waited: false, page: false, unvalidated: false });
  });

  it('declines jobs of other queues, beyond its room, and once closed or stopping', async () => {
    let finish!: () => void;
    const held = new Promise<void>((r) => { finish = r; });
    const { local, shutdown } = setup(() => held, { max: 2 });
    expect(local.offer(spec('x', 'browser'), { limited: false, waitMs: 0 })).toBe(false);
    expect(local.offer(spec('a'), { limited: false, waitMs: 0 })).toBe(true);
    expect(local.offer(spec('a'), { limited: false, waitMs: 0 })).toBe(true); // already running here: not twice
    expect(local.offer(spec('b'), { limited: false, waitMs: 0 })).toBe(true);
    expect(local.size).toBe(2);
    expect(local.offer(spec('c'), { limited: false, waitMs: 0 })).toBe(false);
    shutdown.abort();
    finish();
    expect(local.offer(spec('d'), { limited: false, waitMs: 0 })).toBe(false);
    await local.close();
    expect(local.size).toBe(0);
  });

  it('a deferral (host politeness, rate limit) goes to the queue delayed, with its new payload and every attempt', async () => {
    const { local, requeued, outcomes } = setup((run) => run.deferUntil(1_500, { ...run.data, hostSlotAt: 1_500, hostSlotAttempt: 0 }));
    local.offer(spec('a'), { limited: false, waitMs: 0 });
    await local.close();
    expect(requeued).toEqual([{ jobId: 'a', delayMs: 500, attempts: 3, data: expect.objectContaining({ jobId: 'a', hostSlotAt: 1_500, hostSlotAttempt: 0 }) }]);
    expect(await outcomes()).toEqual(['deferred=1']);
  });

  it('a failed attempt with attempts left goes to the queue for the rest, after the backoff; a final failure stays done', async () => {
    const { local, requeued, outcomes } = setup(async (run) => {
      if (run.id === 'retry') throw new Error('connection reset');
      throw new UnrecoverableError('SCRAPE_FAILED'); // the pipeline recorded the outcome
    });
    local.offer(spec('retry'), { limited: false, waitMs: 0 });
    local.offer(spec('final'), { limited: false, waitMs: 0 });
    await local.close();
    expect(requeued).toEqual([{ jobId: 'retry', delayMs: 250, attempts: 2, data: expect.objectContaining({ jobId: 'retry' }) }]);
    expect(await outcomes()).toEqual(['done=1', 'requeued=1']);
  });

  it('a run stopped by shutdown goes back to the queue at once with all its attempts', async () => {
    const shutdown = new AbortController();
    let started!: () => void;
    const running = new Promise<void>((r) => { started = r; });
    const { local, requeued } = setup(() => new Promise((_, reject) => {
      shutdown.signal.addEventListener('abort', () => reject(new Error('shutdown')));
      started();
    }), { shutdown });
    local.offer(spec('a'), { limited: false, waitMs: 0 });
    const closed = local.close();
    await running;
    shutdown.abort();
    await closed;
    expect(requeued).toEqual([{ jobId: 'a', delayMs: 0, attempts: 3, data: expect.objectContaining({ jobId: 'a' }) }]);
  });
});
