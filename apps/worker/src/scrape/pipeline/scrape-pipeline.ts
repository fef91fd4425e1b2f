import { UnrecoverableError } from 'bullmq';
import { TrawlError, retryClassOf } from '@trawl/api-schema';
import { addUsage, NO_USAGE } from '@trawl/llm';
import { JOB_CATALOG, creditShortfall, isHostBusy, withFormatCredits, type HostResponse, type ScrapeJob } from '@trawl/queue';
import type { CacheWrites } from '../../cache/cache-step.js';
import { buildDocument, convertPage } from '../../convert/build-document.js';
import { parseRetryAfter } from '../../webhook/classify-webhook-response.js';
import { BrowserStage } from '../fetch/browser-stage.js';
import { DocumentsStage } from '../fetch/documents-stage.js';
import type { FetchStage } from '../fetch/fetch-stage.js';
import { HttpStage } from '../fetch/http-stage.js';
import { convertsOf, documentTransformers, transformersFor, type DocumentTransformer } from '../transformers/index.js';
import { ended, JobSignals, type ScrapeContext, type ScrapeDeps, type ScrapeQueue } from './context.js';
import { crawlHttpError, dropsBrokenLinks, finishJob } from './finish.js';
import { executeHandoff } from './handoff.js';
import { isDeferral, type JobRun } from './job-run.js';
import { runSteps, stepTimer, timed, type Step, type StepTimer } from './run-steps.js';

/**
 * The scrape job as a pipeline of named, timed steps (`trawl_scrape_step_seconds{step}`):
 *
 *   dedupe -> admit -> cache-lookup -> host-slot -> fetch -> broken-link -> convert -> transform:<name>... ->
 *   llm-tokens -> cache-store -> finish (or handoff)
 *
 * The fetch stage is the engine of the queue the job is on (HttpStage, BrowserStage, DocumentsStage);
 * a stage may end the run with a hand-off to another queue instead of a page. `finish` (outcome
 * written once, billed once, slot released) ends every terminal path, success or failure; a job that
 * is retried, delayed or returned at shutdown keeps its slot.
 */
export class ScrapePipeline {
  private readonly now: () => number;
  private readonly stage: FetchStage;
  private readonly transformers: readonly DocumentTransformer[];
  readonly steps: readonly Step<PipelineContext>[];

  constructor(
    readonly queue: ScrapeQueue,
    private readonly deps: ScrapeDeps,
  ) {
    this.now = deps.now ?? Date.now;
    const now = this.now;
    this.stage = queue === 'browser' ? new BrowserStage({ ...deps, now })
      : queue === 'documents' ? new DocumentsStage({ ...deps, now })
        : new HttpStage({ ...deps, now });
    this.transformers = deps.transformers ?? documentTransformers({ changes: deps.changes, ...(deps.llm ? { llm: deps.llm } : {}) });
    this.steps = this.buildSteps();
  }

  /** Runs a job whose payload parsed. */
  async run(run: JobRun, job: ScrapeJob, request: ScrapeContext['request'], log: ScrapeContext['log']): Promise<{ ok: boolean }> {
    const timer = stepTimer(this.deps.metrics.scrapeStep, log);
    const ctx: PipelineContext = {
      queue: this.queue, run, job, request, log, started: this.now(),
      signals: new JobSignals(() => ctx.job.deadline, undefined, this.deps.shutdown, this.now),
      transformers: transformersFor(this.transformers, request), timer,
    };
    // The reads a job starts with go out together (one round trip): the team's state and a crawl
    // page's credit check for the admit step, the cancellation watch, and the dedupe read. A fresh
    // run (admitted by the call that started it, without waiting: JobRun.fresh) reads none of them:
    // its team was read by its submitter a moment ago, and nothing can have finished or cancelled
    // the id that submitter just made.
    const { fresh } = run;
    if (fresh) {
      ctx.teamDisabled = Promise.resolve(false);
    } else if (job.crawl) {
      // A crawl spends credits page by page: stop before fetching once the team cannot pay for the
      // page and its formats (the LLM formats add theirs). One read of the team hash serves both checks.
      const cost = withFormatCredits(1, ctx.transformers.map((t) => t.credits(request)), { lockdown: request.lockdown });
      const gate = this.deps.teams.gateState(job.teamId);
      ctx.teamDisabled = gate.then((g) => g.disabled);
      ctx.creditCheck = gate.then((g) => {
        const short = creditShortfall(g.credits, g.creditsUsed, cost);
        if (short) throw short;
      });
      ctx.creditCheck.catch(() => undefined); // awaited by the admit step
    } else {
      ctx.teamDisabled = this.deps.teams.isDisabled(job.teamId);
    }
    ctx.teamDisabled.catch(() => undefined); // awaited (and its failure reported) by the admit step
    // A crawl page reads no cancellation marks: its crawl's status, read by the dedupe step after
    // the watch is registered, tells a crawl cancelled before that read (the status changes before
    // the mark is set), and a later cancellation is heard; a page is never cancelled on its own.
    const watching = job.crawl
      ? this.deps.cancellations.watch([job.jobId, job.crawl.id], { readMarks: false })
      : this.deps.cancellations.watch([job.jobId], { readMarks: !fresh });
    try {
      // A job whose outcome exists finished before a crash prevented the release (or its crawl ended): release only.
      if (!fresh) await timed('dedupe', timer, () => this.dedupe(ctx));
    } catch (err) {
      void watching.then((w) => w.dispose(), () => undefined);
      throw err;
    }
    const cancel = await watching;
    if (ctx.released) {
      cancel.dispose();
      return { ok: true };
    }
    ctx.signals = new JobSignals(() => ctx.job.deadline, cancel.signal, this.deps.shutdown, this.now);
    try {
      return await this.execute(ctx);
    } finally {
      cancel.dispose();
    }
  }

  private async dedupe(ctx: PipelineContext): Promise<void> {
    const { job } = ctx;
    const finished = job.crawl ? !(await this.deps.crawlPages.shouldRun(job)) : await this.deps.results.has(job.jobId);
    if (!finished) return;
    await this.deps.dispatcher.release(job.teamId, job.jobId);
    ctx.released = true;
  }

  private fetches(ctx: PipelineContext): boolean {
    // The documents role fetches nothing (its file was downloaded by the attempt that handed it over).
    return ctx.queue !== 'documents';
  }

  private buildSteps(): Step<PipelineContext>[] {
    const d = this.deps;
    return [
      {
        name: 'admit',
        run: async (ctx) => {
          // A crawl page's timeout counts from its start, not from when it was discovered.
          if (ctx.job.crawl && this.fetches(ctx)) ctx.job = { ...ctx.job, deadline: this.now() + ctx.request.timeout };
          if (ctx.job.admission && !ctx.job.escalation) d.metrics.admissionWait.observe(ctx.job.admission.waitMs / 1000);
          // A team disabled while its job waited: the job fails without contacting anything (jobs
          // already running when it was disabled finish).
          if (await (ctx.teamDisabled ?? d.teams.isDisabled(ctx.job.teamId))) throw new TrawlError('TEAM_DISABLED', 'The team was disabled before this job started');
          await ctx.creditCheck;
        },
      },
      {
        // The cache first (an escalated job already missed it on the http role): a hit takes no host slot.
        name: 'cache-lookup',
        when: (ctx) => this.fetches(ctx) && !ctx.job.escalation && !ctx.job.document,
        run: async (ctx) => {
          const { signal } = ctx.signals.next();
          const hit = await d.cache.lookup(ctx.job, ctx.request, ctx.log, signal);
          if (hit) ctx.source = hit;
        },
      },
      {
        name: 'host-slot',
        when: (ctx) => ctx.source === undefined && ctx.job.crawl !== undefined && this.fetches(ctx),
        run: async (ctx) => {
          await this.waitForHostSlot(ctx);
          ctx.job = { ...ctx.job, deadline: this.now() + ctx.request.timeout };
        },
      },
      {
        name: 'fetch',
        when: (ctx) => ctx.source === undefined,
        run: async (ctx) => {
          const started = this.now();
          let outcome;
          try {
            outcome = await this.stage.fetch(ctx);
          } catch (err) {
            await this.endHostLease(ctx, { statusCode: 0 });
            throw err;
          }
          const page = outcome.kind === 'page' ? outcome.source.page : undefined;
          await this.endHostLease(ctx, page ? {
            statusCode: page.statusCode, latencyMs: page.timings.ttfbMs > 0 ? page.timings.ttfbMs : this.now() - started,
            retryAfterMs: isHostBusy(page.statusCode) ? parseRetryAfter(page.headers['retry-after'], this.now()) : undefined,
          } : { statusCode: 0, latencyMs: this.now() - started });
          if (outcome.kind === 'handoff') ctx.handoff = outcome.handoff;
          else ctx.source = outcome.source;
        },
      },
      {
        // A crawl's broken link ends here: finish would drop its document, so nothing is converted,
        // sent to an LLM format or cached for it.
        name: 'broken-link',
        when: (ctx) => ctx.source !== undefined && dropsBrokenLinks(ctx.job, ctx.request),
        run: (ctx) => {
          const error = crawlHttpError(ctx.job, ctx.source!.page.statusCode);
          if (error) throw error;
        },
      },
      {
        name: 'convert',
        run: async (ctx) => {
          const source = ctx.source!;
          const { signal } = ctx.signals.next();
          ctx.wantsLinks ??= await d.crawlPages.wantsLinks(ctx.job);
          const formats = convertsOf(ctx.transformers);
          d.cache.prepare(ctx.request, source);
          const converted = source.converted ?? await convertPage(d.converter, ctx.request, source.page, signal,
            ctx.wantsLinks ? { ...formats, links: true } : formats,
            { ...(source.onlyMainContent !== undefined ? { onlyMainContent: source.onlyMainContent } : {}), priority: ctx.job.mode === 'sync' ? 'latency' : 'throughput' });
          const handoff = this.stage.review?.(ctx, source, converted);
          if (handoff) {
            ctx.handoff = handoff;
            return;
          }
          ctx.converted = converted;
          if (converted.links) ctx.links = converted.links;
          ctx.document = buildDocument(ctx.request, source, converted, { jobId: ctx.job.jobId, admission: ctx.job.admission });
        },
      },
      ...this.transformers.map((t): Step<PipelineContext> => ({
        name: `transform:${t.name}`,
        when: (ctx) => ctx.transformers.includes(t),
        run: (ctx) => t.run({
          job: ctx.job, request: ctx.request, source: ctx.source!, converted: ctx.converted ?? {}, log: ctx.log,
          signal: () => ctx.signals.next().signal,
          usage: (u) => {
            ctx.llmUsage = addUsage(ctx.llmUsage ?? NO_USAGE, u);
          },
        }, ctx.document!),
      })),
      {
        // The team's token usage: once per page, after every LLM format ran.
        name: 'llm-tokens',
        when: (ctx) => d.tokens !== undefined && ctx.llmUsage !== undefined && ctx.llmUsage.promptTokens + ctx.llmUsage.completionTokens > 0,
        run: (ctx) => d.tokens!.record(ctx.job.teamId, ctx.llmUsage!.promptTokens + ctx.llmUsage!.completionTokens),
      },
      {
        // A hit stores no page, only its derived formats (see CacheStep.store). Finish starts the
        // writes (FinishRun.cacheWrites).
        name: 'cache-store',
        run: (ctx) => {
          ctx.cacheWrites = d.cache.store(ctx.job, ctx.request, ctx.source!, ctx.document!, ctx.log);
        },
      },
    ];
  }

  private async execute(ctx: PipelineContext): Promise<{ ok: boolean }> {
    const { timer } = ctx;
    let engine: string = ctx.queue === 'browser' ? 'browser' : 'http';
    try {
      await runSteps(this.steps, ctx, timer, ended);
      if (ctx.handoff) {
        const handoff = ctx.handoff;
        await timed('handoff', timer, () => executeHandoff(this.deps, ctx.job, handoff, this.now()));
        this.observe(ctx, engine, 'handoff');
        return { ok: true };
      }
      const source = ctx.source!;
      const document = ctx.document!;
      engine = source.engine;
      // Billed once, with the outcome: the page's cost plus what its transformers add.
      document.metadata.creditsUsed = withFormatCredits(source.creditsUsed, ctx.transformers.map((t) => t.credits(ctx.request)), { lockdown: ctx.request.lockdown });
      await timed('finish', timer, () => finishJob(this.finishDeps(), ctx.job, { ok: true, document }, ctx.log, {
        finalUrl: source.page.url, ...(ctx.links ? { links: ctx.links } : {}), ...(ctx.cacheWrites ? { cacheWrites: ctx.cacheWrites } : {}),
      }));
      this.observe(ctx, engine, 'success');
      return { ok: true };
    } catch (err) {
      if (isDeferral(err)) throw err; // waiting for its host slot: not a failure
      const te = TrawlError.from(err);
      if (this.deps.shutdown.aborted) throw err; // back to the queue; another worker finishes it
      // Lost its lock (stalled back to the queue): the run holding the job now records its outcome.
      if (!(await ctx.run.owns())) throw err;
      const retry = retryClassOf(te);
      const timeLeft = ctx.job.deadline - this.now();
      if (retry === 'delay' && timeLeft > 1000 && ctx.run.canDefer) {
        // A rate-limited target said "not now": wait without spending an attempt.
        ctx.log.info({ code: te.code }, 'scrape rate-limited, delaying');
        const delayMs = Math.min(timeLeft - 1000, JOB_CATALOG[ctx.queue].policy.backoffMs * 2 ** ctx.run.attemptsMade);
        return ctx.run.deferUntil(this.now() + delayMs);
      }
      const attemptsLeft = ctx.run.attempts - (ctx.run.attemptsMade + 1);
      if (retry !== 'never' && attemptsLeft > 0 && timeLeft > 1000) {
        ctx.log.info({ code: te.code }, 'scrape attempt failed, retrying');
        throw te;
      }
      if (te.code === 'UNKNOWN_ERROR') ctx.log.error({ err }, 'scrape failed unexpectedly');
      else ctx.log.info({ code: te.code }, 'scrape failed');
      await timed('finish', timer, () => finishJob(this.finishDeps(), ctx.job, { ok: false, error: te.toData() }, ctx.log));
      this.observe(ctx, engine, te.code);
      throw new UnrecoverableError(te.code);
    } finally {
      await ctx.hostReleased; // ended while the page went on (see endHostLease)
    }
  }

  private finishDeps() {
    return { ...this.deps, now: this.now };
  }

  private observe(ctx: PipelineContext, engine: string, outcome: string): void {
    this.deps.metrics.jobDuration.observe({ queue: ctx.queue, engine, outcome }, (this.now() - ctx.started) / 1000);
  }

  /**
   * Crawl politeness (`HostRateLimiter`): takes a lease on the page's host; a turn in the future
   * turns the job into a delayed job (it keeps its team slot, not a worker) and ends this run.
   */
  private async waitForHostSlot(ctx: PipelineContext): Promise<void> {
    const { run, job } = ctx;
    const limiter = this.deps.hostRate;
    if (!run.canDefer || !limiter.enabled) return;
    const host = new URL(ctx.request.url).host;
    const reserved = job.hostSlotAt !== undefined && job.hostSlotAttempt === run.attemptsMade;
    // The lease outlives the request's own timeout: it only expires when its worker died.
    const ticket = await limiter.acquire(host, job.jobId, { now: this.now(), reserved, leaseMs: ctx.request.timeout + 15_000 });
    if (ticket.kind === 'go') {
      ctx.hostLease = host;
      return;
    }
    const at = Math.max(ticket.until, this.now() + 1);
    await run.deferUntil(at, ticket.reserved ? { ...run.data, hostSlotAt: ticket.until, hostSlotAttempt: run.attemptsMade } : undefined);
  }

  /**
   * Ends the page's host lease with what the host answered. A crawl page the host refused with
   * 429/503 goes back to wait for the host (held by its Retry-After, or the backed-off delay) without
   * spending an attempt, a bounded number of times; after that its status is its outcome.
   */
  private async endHostLease(ctx: PipelineContext, res: HostResponse): Promise<void> {
    const host = ctx.hostLease;
    if (host === undefined) return;
    ctx.hostLease = undefined;
    const { run } = ctx;
    const retries = ctx.job.hostBusyRetries ?? 0;
    const completing = this.deps.hostRate.complete(host, ctx.job.jobId, res, this.now());
    if (!isHostBusy(res.statusCode) || !run.canDefer || retries >= MAX_HOST_BUSY_RETRIES) {
      // Nothing here depends on the answer: the page goes on while the lease ends (finish waits for
      // it). A lease that could not be ended expires on its own (its request timeout + 15 s).
      ctx.hostReleased = completing.then(() => undefined, (err: unknown) => ctx.log.warn({ err, host }, 'host lease not ended: it expires'));
      return;
    }
    const nextFree = await completing;
    ctx.log.info({ statusCode: res.statusCode, retryAt: nextFree }, 'host is busy, page waits for it');
    const { hostSlotAt: _slot, hostSlotAttempt: _attempt, ...data } = run.data;
    await run.deferUntil(Math.max(nextFree, this.now() + 1), { ...data, hostBusyRetries: retries + 1 });
  }
}

/** Times a crawl page is put back for a 429/503 of its host before that status is its outcome. */
const MAX_HOST_BUSY_RETRIES = 5;

/** The context of this pipeline: the job's transformers and step timer travel with it. */
interface PipelineContext extends ScrapeContext {
  readonly transformers: readonly DocumentTransformer[];
  readonly timer: StepTimer;
  /** Host whose politeness lease this run holds during its fetch. */
  hostLease?: string | undefined;
  /** Whether the team is disabled, read when the run starts (see `run`). */
  teamDisabled?: Promise<boolean>;
  /** A crawl page's credit check, sent when the run starts (see `run`). */
  creditCheck?: Promise<void>;
  /** The host lease being ended after the fetch (never rejects); finish waits for it. */
  hostReleased?: Promise<void>;
  /** The cache writes of the cache-store step, which finish starts. */
  cacheWrites?: CacheWrites | undefined;
}
