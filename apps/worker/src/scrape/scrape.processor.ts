import { UnrecoverableError, type Job } from 'bullmq';
import { TrawlError, redactUrl, parseRequestSchema, scrapeRequestSchema, type ScrapeRequest } from '@trawl/api-schema';
import { hopTimingOn, parseJob, recordHop, replyToSchema, type ScrapeJob } from '@trawl/queue';
import { timed, stepTimer } from './pipeline/run-steps.js';
import { ScrapePipeline } from './pipeline/scrape-pipeline.js';
import { BullJobRun, type JobRun } from './pipeline/job-run.js';
import type { ScrapeDeps, ScrapeQueue } from './pipeline/context.js';

export type { ScrapeDeps as ScrapeProcessorDeps, ScrapeQueue } from './pipeline/context.js';

/** The request of a job payload; one that fails validation can never succeed: no retry. */
function parseRequest(job: ScrapeJob): ScrapeRequest {
  if (job.document?.source === 'upload') {
    // An upload has a file: URL of its name instead of a page to fetch; the page-only fields hold
    // neutral values the parse schema derives again.
    const { url, waitFor: _w, mobile: _m, lockdown: _l, storeInCache: _s, maxAge: _a, ...options } = job.request;
    const request = parseRequestSchema.safeParse(options);
    if (!request.success || typeof url !== 'string') throw new UnrecoverableError(`invalid parse request in job: ${request.error?.message ?? 'no url'}`);
    return { ...request.data, url };
  }
  const request = scrapeRequestSchema.safeParse(job.request);
  if (!request.success) throw new UnrecoverableError(`invalid scrape request in job: ${request.error.message}`);
  return request.data;
}

/**
 * The payload of a fresh run (JobRun.fresh): the job object its producer in this process built a
 * moment ago, typed by the job catalog at its `submit`, whose request the scrape request schema parsed
 * (the producer says so: DispatchSpec.validated), not bytes from Redis. Parsing it again would give the
 * same values (a queued copy, its JSON, is parsed to them): it is used as it is. The local runner
 * carries payloads untyped, hence the cast.
 */
function freshPayload(data: Record<string, unknown>): { job: ScrapeJob; request: ScrapeRequest } {
  const job = data as unknown as ScrapeJob;
  return { job, request: job.request as ScrapeRequest };
}

/**
 * The BullMQ consumer of a scrape queue (`scrape`, `browser` or `documents`): parses the job and runs
 * it through the queue's ScrapePipeline (scrape/pipeline/scrape-pipeline.ts). A payload no worker
 * can run fails at once, and its waiting caller is told.
 */
export class ScrapeProcessor {
  private readonly pipeline: ScrapePipeline;
  private readonly now: () => number;

  constructor(
    private readonly queue: ScrapeQueue,
    private readonly deps: ScrapeDeps,
  ) {
    this.pipeline = new ScrapePipeline(queue, deps);
    this.now = deps.now ?? Date.now;
  }

  /** Runs a BullMQ job of the queue; `token` is its lock. */
  process(bullJob: Job, token?: string): Promise<{ ok: boolean }> {
    return this.runJob(new BullJobRun(bullJob, token, this.queue, this.deps.dispatcher));
  }

  /** Runs a job held by `run` (a BullMQ job, or one run in this process without the queue). */
  async runJob(run: JobRun): Promise<{ ok: boolean }> {
    // From where the job was queued (BullMQ's add, or the local admission) to this run.
    if (hopTimingOn()) recordHop('worker:pickup', Date.now() - run.queuedAt);
    const timer = stepTimer(this.deps.metrics.scrapeStep, this.deps.logger);
    let parsed: { job: ScrapeJob; request: ScrapeRequest };
    try {
      parsed = run.fresh ? freshPayload(run.data) : await timed('parse', timer, () => {
        const job = parseJob(this.queue, run.data);
        return { job, request: parseRequest(job) };
      });
    } catch (err) {
      await this.refuseInvalid(run.data, err);
      throw err;
    }
    const { job, request } = parsed;
    const log = this.deps.logger.child({
      jobId: job.jobId, queue: this.queue, attempt: run.attemptsMade + 1,
      ...(job.crawl ? { crawlId: job.crawl.id } : {}),
      ...(job.zeroDataRetention ? { zdr: true } : { url: redactUrl(request.url) }),
    });
    return this.pipeline.run(run, job, request, log);
  }

  /**
   * A payload no worker can run (a producer of another version, a field over its bound): a waiting
   * caller gets a failed outcome at once instead of its timeout, and the slot goes back.
   */
  private async refuseInvalid(data: unknown, err: unknown): Promise<void> {
    const { jobId, teamId, crawl, replyTo } = (data ?? {}) as { jobId?: unknown; teamId?: unknown; crawl?: unknown; replyTo?: unknown };
    if (typeof jobId !== 'string' || typeof teamId !== 'string' || crawl !== undefined) return;
    this.deps.logger.error({ err, jobId }, 'invalid job payload');
    const error = new TrawlError('SCRAPE_FAILED', 'The job could not be read by the worker (invalid payload)').toData();
    await this.deps.results.put({ jobId, teamId, finishedAt: new Date(this.now()).toISOString(), outcome: { ok: false, error } }, {
      zeroDataRetention: true, replyTo: replyToSchema.safeParse(replyTo).data,
    });
    await this.deps.documentBodies.delete(jobId);
    await this.deps.dispatcher.release(teamId, jobId);
  }
}
