import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { TrawlError, retryClassOf, redactUrl, parseRequestSchema, scrapeRequestSchema, type ScrapeRequest } from '@trawl/api-schema';
import type { BlobStore } from '@trawl/blob-store';
import type { Logger } from '@trawl/observability';
import {
  scrapeCredits, scrapeJobSchema,
  type CachedPage, type CreditLedger, type DocumentBodyStore, type HostRateLimiter, type JobDispatcher, type JobOutcome, type ProfileStore, type ResultStore, type ScrapeJob,
  type CancellationWatcher, type TeamStore,
} from '@trawl/queue';
import type { BrowserFetcher, BrowserFetchResult, StorageState } from '@trawl/browser';
import { acceptLanguageFor, type Fetcher, type FetchResult, type ProxyPools, type ProxyTier } from '@trawl/scrape-engine';
import type { CrawlPages } from '../crawl/crawl-pages.js';
import { DocumentRunner } from '../document/document-runner.js';
import type { DocumentParser } from '../document/document-parser.js';
import type { HtmlConverter } from '../html-converter.js';
import type { WorkerMetrics } from '../worker-metrics.js';
import { buildDocument, convertPage } from './build-document.js';
import type { RunResult } from './run-result.js';
import { storeBrowserBinaries } from './browser-binaries.js';
import { isBotWall, isJavascriptShell } from './page-signals.js';
import type { CacheStep } from '../cache/cache-step.js';
import { ChangeTracker } from './change-tracking.js';
import { enforceResultSize } from './result-size.js';

/** The queue a processor consumes: `scrape` (plain HTTP first), `browser` or `documents`. */
export type ScrapeQueue = 'scrape' | 'browser' | 'documents';

export interface ScrapeProcessorDeps {
  http: Fetcher;
  /** The browser engine; absent in processes without the browser role. */
  browser?: BrowserFetcher;
  /** Hand plain-HTTP jobs that need a browser (JS shell, `auto` bot wall) to the browser queue. */
  browserFallback: boolean;
  proxies: ProxyPools;
  /** The parser of the documents role; absent in processes without it. */
  documents?: DocumentParser;
  /** Files waiting for the documents role (downloads handed over, uploads). */
  documentBodies: DocumentBodyStore;
  /** Hand PDFs, office files, CSV and images to the documents queue; false refuses them. */
  documentParsing: boolean;
  /** Where screenshots and action PDFs go; required by the browser role. */
  blobs?: BlobStore;
  /** Lifetime of the blob URLs put in documents, seconds. */
  blobUrlTtlSec: number;
  profiles: ProfileStore;
  converter: HtmlConverter;
  results: ResultStore;
  dispatcher: JobDispatcher;
  credits: CreditLedger;
  /** Whether a job's team was disabled while the job waited: such jobs do not start. */
  teams: Pick<TeamStore, 'isDisabled'>;
  metrics: WorkerMetrics;
  logger: Logger;
  maxResponseBytes: number;
  /** Largest Document stored (its JSON), bytes; a larger one fails with RESULT_TOO_LARGE. */
  maxResultBytes: number;
  /** Largest `executeJavascript` return, bytes. */
  maxActionReturnBytes: number;
  /** The crawl side of crawl and batch pages. */
  crawlPages: CrawlPages;
  /** Per-host request rate applied to crawl and batch pages. */
  hostRate: HostRateLimiter;
  /** Aborted when the process shuts down: in-flight jobs stop and go back to the queue. */
  shutdown: AbortSignal;
  /** Cancellations of jobs (their sync caller went away) and crawls (cancelled): running work stops. */
  cancellations: Pick<CancellationWatcher, 'watch'>;
  /** The page cache around every fetch. */
  cache: CacheStep;
  /** The `changeTracking` format. */
  changes: ChangeTracker;
  now?: () => number;
}

/** The page as the cache keeps it: text kinds only (documents are kept by the documents role). */
function cacheablePage(page: FetchResult, facts: Pick<CachedPage, 'engine' | 'proxyUsed' | 'cachedAt' | 'timezone' | 'screenshot'>): { cacheable?: CachedPage } {
  if (page.text === undefined || !['html', 'xhtml', 'text', 'json', 'xml'].includes(page.kind)) return {};
  return {
    cacheable: {
      kind: 'page', url: page.url, statusCode: page.statusCode, contentType: page.contentType, contentKind: page.kind,
      ...(page.charset ? { charset: page.charset } : {}), body: page.text, ...facts,
    },
  };
}

/** A job payload or request that fails validation can never succeed: no retry. */
function parsePayload(data: unknown): { job: ScrapeJob; request: ScrapeRequest } {
  const job = scrapeJobSchema.safeParse(data);
  if (!job.success) throw new UnrecoverableError(`invalid scrape job payload: ${job.error.message}`);
  if (job.data.document?.source === 'upload') {
    // An upload has a file: URL of its name instead of a page to fetch; the page-only fields hold
    // neutral values the parse schema derives again.
    const { url, waitFor: _w, mobile: _m, lockdown: _l, storeInCache: _s, maxAge: _a, ...options } = job.data.request;
    const request = parseRequestSchema.safeParse(options);
    if (!request.success || typeof url !== 'string') throw new UnrecoverableError(`invalid parse request in job: ${request.error?.message ?? 'no url'}`);
    return { job: job.data, request: { ...request.data, url } };
  }
  const request = scrapeRequestSchema.safeParse(job.data.request);
  if (!request.success) throw new UnrecoverableError(`invalid scrape request in job: ${request.error.message}`);
  return { job: job.data, request: request.data };
}

/**
 * Executes one scrape job: engine -> convert -> document -> charge -> store -> release the slot.
 * On the `scrape` queue plain HTTP runs first and hands the job to the `browser` queue when the page
 * needs JavaScript (or, with `proxy: auto`, when it is blocked); the slot and deadline travel with it.
 * Each job's outcome is written exactly once; a job re-run after a crash finds it and only releases.
 */
export class ScrapeProcessor {
  private readonly now: () => number;
  private readonly documents: DocumentRunner;
  /** The cancellation signal of each job this processor runs now, by job id. */
  private readonly cancels = new Map<string, AbortSignal>();

  constructor(
    private readonly queue: ScrapeQueue,
    private readonly deps: ScrapeProcessorDeps,
  ) {
    this.now = deps.now ?? Date.now;
    this.documents = new DocumentRunner(deps);
  }

  async process(bullJob: Job, token?: string): Promise<{ ok: boolean }> {
    let parsed: ReturnType<typeof parsePayload>;
    try {
      parsed = parsePayload(bullJob.data);
    } catch (err) {
      await this.refuseInvalid(bullJob.data, err);
      throw err;
    }
    const { request, job } = parsed;
    const log = this.deps.logger.child({
      jobId: job.jobId, queue: this.queue, attempt: bullJob.attemptsMade + 1,
      ...(job.crawl ? { crawlId: job.crawl.id } : {}),
      ...(job.zeroDataRetention ? { zdr: true } : { url: redactUrl(request.url) }),
    });
    const finished = job.crawl ? !(await this.deps.crawlPages.shouldRun(job)) : (await this.deps.results.get(job.jobId)) !== null;
    if (finished) {
      // Finished before a crash prevented the release (or its crawl ended): release only.
      await this.deps.dispatcher.release(job.teamId, job.jobId);
      return { ok: true };
    }
    const cancel = await this.deps.cancellations.watch(job.crawl ? [job.jobId, job.crawl.id] : [job.jobId]);
    this.cancels.set(job.jobId, cancel.signal);
    try {
      return await this.execute(bullJob, job, request, log, token);
    } finally {
      cancel.dispose();
      this.cancels.delete(job.jobId);
    }
  }

  /** Runs a job that has not finished yet: cache, engine, conversion, outcome; retries or fails for good. */
  private async execute(bullJob: Job, job: ScrapeJob, request: ScrapeRequest, log: Logger, token: string | undefined): Promise<{ ok: boolean }> {
    // The documents role fetches nothing (its file was downloaded by the attempt that handed it over).
    const fetches = this.queue !== 'documents';
    // A crawl page's timeout counts from its start, not from when it was discovered.
    if (job.crawl && fetches) job = { ...job, deadline: this.now() + request.timeout };
    const started = this.now();
    if (job.admission && !job.escalation) this.deps.metrics.admissionWait.observe(job.admission.waitMs / 1000);
    let engine = this.queue === 'browser' ? 'browser' : 'http';
    try {
      // A team disabled while its job waited: the job fails without contacting anything (jobs
      // already running when it was disabled finish).
      if (await this.deps.teams.isDisabled(job.teamId)) throw new TrawlError('TEAM_DISABLED', 'The team was disabled before this job started');
      // A crawl spends credits page by page: stop before fetching once the team has none left.
      if (job.crawl) await this.deps.credits.ensureAvailable(job.teamId, 1);
      // The cache first (an escalated job already missed it on the http role): a hit takes no host slot.
      let result = fetches && !job.escalation ? await this.fromCache(job, request, log) : undefined;
      if (!result) {
        if (job.crawl && fetches) {
          await this.waitForHostSlot(bullJob, job, request.url, token);
          job = { ...job, deadline: this.now() + request.timeout };
        }
        result = await this.run(job, request, log);
      }
      if (result.kind === 'handed-off') {
        this.deps.metrics.jobDuration.observe({ queue: this.queue, engine, outcome: 'handoff' }, (this.now() - started) / 1000);
        return { ok: true };
      }
      engine = result.engine;
      if (engine !== 'cache') await this.deps.cache.store(job, request, result, log);
      if (ChangeTracker.wanted(request)) await this.deps.changes.track(job, request, result.document, { hidden: job.crawl?.hidden === true });
      await this.finish(job, { ok: true, document: result.document }, log, result);
      if (job.document) await this.deps.documentBodies.delete(job.jobId);
      this.deps.metrics.jobDuration.observe({ queue: this.queue, engine, outcome: 'success' }, (this.now() - started) / 1000);
      return { ok: true };
    } catch (err) {
      if (err instanceof DelayedError) throw err; // waiting for its host slot: not a failure
      const te = TrawlError.from(err);
      if (this.deps.shutdown.aborted) throw err; // back to the queue; another worker finishes it
      // Lost its lock (stalled back to the queue): the run holding the job now records its outcome.
      if (!(await this.deps.dispatcher.holdsLock(this.queue, bullJob.id, token))) throw err;
      const attemptsLeft = (bullJob.opts.attempts ?? 1) - (bullJob.attemptsMade + 1);
      if (retryClassOf(te) !== 'never' && attemptsLeft > 0 && job.deadline - this.now() > 1000) {
        log.info({ code: te.code }, 'scrape attempt failed, retrying');
        throw te;
      }
      if (te.code === 'UNKNOWN_ERROR') log.error({ err }, 'scrape failed unexpectedly');
      else log.info({ code: te.code }, 'scrape failed');
      await this.finish(job, { ok: false, error: te.toData() }, log);
      if (job.document) await this.deps.documentBodies.delete(job.jobId);
      this.deps.metrics.jobDuration.observe({ queue: this.queue, engine, outcome: te.code }, (this.now() - started) / 1000);
      throw new UnrecoverableError(te.code);
    }
  }

  /**
   * A payload no worker can run (a producer of another version, a field over its bound): a waiting
   * caller gets a failed outcome at once instead of its timeout, and the slot goes back.
   */
  private async refuseInvalid(data: unknown, err: unknown): Promise<void> {
    const { jobId, teamId, crawl } = (data ?? {}) as { jobId?: unknown; teamId?: unknown; crawl?: unknown };
    if (typeof jobId !== 'string' || typeof teamId !== 'string' || crawl !== undefined) return;
    this.deps.logger.error({ err, jobId }, 'invalid job payload');
    const error = new TrawlError('SCRAPE_FAILED', 'The job could not be read by the worker (invalid payload)').toData();
    await this.deps.results.put({ jobId, teamId, finishedAt: new Date(this.now()).toISOString(), outcome: { ok: false, error } }, { zeroDataRetention: true });
    await this.deps.documentBodies.delete(jobId);
    await this.deps.dispatcher.release(teamId, jobId);
  }

  /**
   * Crawl politeness: reserves the page's slot in its host's shared request rate; a slot in the
   * future turns the job into a delayed job (it keeps its team slot, not a worker) and ends this run.
   */
  private async waitForHostSlot(bullJob: Job, job: ScrapeJob, url: string, token: string | undefined): Promise<void> {
    if (token === undefined || (job.hostSlotAt !== undefined && job.hostSlotAttempt === bullJob.attemptsMade)) return;
    const slot = await this.deps.hostRate.reserve(new URL(url).host, this.now());
    if (slot <= this.now() + 5) return;
    await bullJob.updateData({ ...bullJob.data as Record<string, unknown>, hostSlotAt: Math.ceil(slot), hostSlotAttempt: bullJob.attemptsMade });
    await bullJob.moveToDelayed(Math.ceil(slot), token);
    throw new DelayedError();
  }

  /** A cache hit, undefined to fetch; cache-only requests fail here on a miss. */
  private async fromCache(job: ScrapeJob, request: ScrapeRequest, log: Logger): Promise<RunResult | undefined> {
    if (job.document) return undefined;
    const { signal } = this.signalFor(job);
    return this.deps.cache.lookup(job, request, signal, await this.deps.crawlPages.wantsLinks(job), log);
  }

  /**
   * The one signal each stage of a job runs under: its deadline (the request's timeout counted from
   * admission), its cancellation and the process' shutdown. A job past its deadline or cancelled
   * does not start the stage at all.
   */
  private signalFor(job: ScrapeJob): { signal: AbortSignal; remaining: number } {
    const cancelled = this.cancels.get(job.jobId);
    if (cancelled?.aborted) throw TrawlError.from(cancelled.reason);
    const remaining = job.deadline - this.now();
    if (remaining <= 0) throw new TrawlError('SCRAPE_TIMEOUT', 'The scrape could not start before its timeout');
    return { signal: AbortSignal.any([AbortSignal.timeout(remaining), this.deps.shutdown, ...(cancelled ? [cancelled] : [])]), remaining };
  }

  private async run(job: ScrapeJob, request: ScrapeRequest, log: Logger): Promise<RunResult> {
    if (this.queue === 'browser') return this.runBrowser(job, request, log);
    if (this.queue === 'documents') {
      const { signal } = this.signalFor(job);
      return this.documents.run(job, request, signal, await this.deps.crawlPages.wantsLinks(job));
    }
    const { signal } = this.signalFor(job);
    const page = await this.deps.http.fetch({
      url: request.url,
      headers: request.headers ?? {},
      skipTlsVerification: request.skipTlsVerification,
      signal,
      maxBytes: this.deps.maxResponseBytes,
      ...this.proxyFor('basic', request),
      ...(request.location?.languages?.length ? { acceptLanguage: acceptLanguageFor(request.location.languages) } : {}),
    });
    const toDocuments = await this.documents.takeOver(job, request, page, 'basic');
    if (toDocuments) return toDocuments;
    const html = page.kind === 'html' || page.kind === 'xhtml' ? page.text ?? '' : undefined;
    if (this.deps.browserFallback && request.proxy === 'auto' && isBotWall(page.statusCode, html)) {
      log.info({ statusCode: page.statusCode }, 'blocked on the basic tier, retrying with the enhanced tier');
      return this.handoff(job, 'blocked');
    }
    const links = await this.deps.crawlPages.wantsLinks(job);
    const converted = await this.convert(request, page, signal, links);
    if (this.deps.browserFallback && html !== undefined && isJavascriptShell(html, converted.markdown ?? '')) {
      log.info('page is a JavaScript shell, moving to the browser');
      return this.handoff(job, 'js-shell');
    }
    log.debug({ statusCode: page.statusCode, kind: page.kind, timings: converted.timings }, 'scrape converted');
    const creditsUsed = scrapeCredits({ proxyUsed: 'basic' });
    const document = buildDocument(request, page, converted, { jobId: job.jobId, admission: job.admission, creditsUsed, proxyUsed: 'basic' });
    return {
      kind: 'document', engine: 'http', document, finalUrl: page.url, ...(converted.links ? { links: converted.links } : {}),
      ...cacheablePage(page, { engine: 'http', proxyUsed: 'basic', cachedAt: this.now() }),
    };
  }

  private async handoff(job: ScrapeJob, escalation: 'js-shell' | 'blocked'): Promise<RunResult> {
    // The browser's request is a new one to the host: it reserves its own slot.
    const { hostSlotAt: _slot, hostSlotAttempt: _attempt, ...rest } = job;
    await this.deps.dispatcher.handoff(job.teamId, job.jobId, 'browser', { ...rest, escalation });
    return { kind: 'handed-off' };
  }

  private proxyFor(tier: ProxyTier, request: ScrapeRequest) {
    const proxy = this.deps.proxies.pick({ tier, ...(request.location?.country ? { country: request.location.country } : {}) });
    return proxy ? { proxy } : {};
  }

  /**
   * The browser engine. `enhanced` (asked for, or the `auto` retry after a block) uses the stealth
   * browser and the enhanced pool; `auto` that meets a bot wall on the basic tier retries in place.
   */
  private async runBrowser(job: ScrapeJob, request: ScrapeRequest, log: Logger): Promise<RunResult> {
    const browser = this.deps.browser;
    if (!browser) throw new UnrecoverableError('a browser job reached a process without the browser role');
    const profile = request.profile;
    const saveProfile = profile !== undefined && profile.saveChanges;
    if (saveProfile) await this.deps.profiles.lockForSaving(job.teamId, profile.name, job.jobId, job.deadline - this.now() + 30_000);
    try {
      const storageState = profile ? (await this.deps.profiles.load(job.teamId, profile.name)) as StorageState | undefined : undefined;
      let tier: ProxyTier = request.proxy === 'enhanced' || job.escalation === 'blocked' ? 'enhanced' : 'basic';
      let page = await this.browserFetch(browser, job, request, tier, storageState, saveProfile);
      if (tier === 'basic' && request.proxy === 'auto' && isBotWall(page.statusCode, page.text)) {
        log.info({ statusCode: page.statusCode }, 'blocked on the basic tier, retrying with the enhanced tier');
        tier = 'enhanced';
        page = await this.browserFetch(browser, job, request, tier, storageState, saveProfile);
      }
      if (saveProfile && page.storageState) await this.deps.profiles.save(job.teamId, profile.name, page.storageState);
      const toDocuments = await this.documents.takeOver(job, request, page, tier);
      if (toDocuments) return toDocuments;
      const { signal } = this.signalFor(job);
      const converted = await this.convert(request, page, signal, await this.deps.crawlPages.wantsLinks(job));
      const binaries = await storeBrowserBinaries(page, { blobs: this.deps.blobs, teamId: job.teamId, jobId: job.jobId, urlTtlSec: this.deps.blobUrlTtlSec });
      const creditsUsed = scrapeCredits({ proxyUsed: tier });
      const document = buildDocument(request, page, converted, {
        jobId: job.jobId, admission: job.admission, creditsUsed, proxyUsed: tier, timezone: page.timezone, ...binaries,
      });
      const engine = tier === 'enhanced' ? 'browser-stealth' : 'browser';
      const shot = request.formats.find((f) => f.type === 'screenshot');
      return {
        kind: 'document', engine, document, finalUrl: page.url,
        ...(converted.links ? { links: converted.links } : {}),
        ...cacheablePage(page, {
          engine, proxyUsed: tier, cachedAt: this.now(), timezone: page.timezone,
          ...(page.screenshot && shot?.type === 'screenshot' ? {
            screenshot: {
              data: page.screenshot.data, contentType: page.screenshot.contentType === 'image/jpeg' ? 'image/jpeg' : 'image/png', fullPage: shot.fullPage,
              ...(shot.quality !== undefined ? { quality: shot.quality } : {}), ...(shot.viewport ? { viewport: shot.viewport } : {}),
            },
          } : {}),
        }),
      };
    } finally {
      if (saveProfile) await this.deps.profiles.unlock(job.teamId, profile.name, job.jobId);
    }
  }

  private browserFetch(
    browser: BrowserFetcher, job: ScrapeJob, request: ScrapeRequest, tier: ProxyTier,
    storageState: StorageState | undefined, captureStorageState: boolean,
  ): Promise<BrowserFetchResult> {
    const { signal, remaining } = this.signalFor(job);
    const screenshot = request.formats.find((f) => f.type === 'screenshot');
    return browser.fetch({
      url: request.url,
      headers: request.headers ?? {},
      skipTlsVerification: request.skipTlsVerification,
      signal,
      timeoutMs: remaining,
      maxBytes: this.deps.maxResponseBytes,
      maxActionReturnBytes: this.deps.maxActionReturnBytes,
      ...this.proxyFor(tier, request),
      stealth: tier === 'enhanced',
      mobile: request.mobile,
      blockAds: request.blockAds,
      waitForMs: request.waitFor,
      ...(request.actions?.length ? { actions: request.actions } : {}),
      ...(request.location ? { location: request.location } : {}),
      ...(screenshot?.type === 'screenshot'
        ? { screenshot: { fullPage: screenshot.fullPage, quality: screenshot.quality, viewport: screenshot.viewport } }
        : {}),
      ...(storageState ? { storageState } : {}),
      captureStorageState,
    });
  }

  /** Runs the conversion; `links` asks for the page's links even when the request did not (crawl discovery). */
  private convert(request: ScrapeRequest, page: FetchResult, signal: AbortSignal, links = false) {
    return convertPage(this.deps.converter, request, page, signal, { links });
  }

  /**
   * Charge, store the outcome (which wakes the waiting gateway; a crawl page goes to its crawl), then
   * free the slot.
   */
  private async finish(job: ScrapeJob, outcome: JobOutcome, log: Logger, run?: { links?: string[]; finalUrl: string }): Promise<void> {
    const stored = enforceResultSize(outcome, this.deps.maxResultBytes);
    if (stored !== outcome) log.info({ code: 'RESULT_TOO_LARGE', limitBytes: this.deps.maxResultBytes }, 'scrape failed');
    outcome = stored;
    const statusCode = outcome.ok ? Number((outcome.document.metadata as { statusCode?: number } | undefined)?.statusCode ?? 200) : 0;
    const removal = outcome.ok && (outcome.document.changeTracking as { changeStatus?: string } | undefined)?.changeStatus === 'removed';
    if (job.crawl?.kind === 'crawl' && statusCode >= 400 && !removal) {
      // A broken link found by a crawl is an error of the crawl, not a document (nor a charge); a
      // tracked page that is now gone is a document saying `removed`.
      outcome = { ok: false, error: new TrawlError('SCRAPE_HTTP_ERROR', `The page answered HTTP ${statusCode}`, { details: { statusCode } }).toData() };
    }
    // Lockdown bills its miss too (1 credit), though no document results: charged with the outcome, once.
    const credits = outcome.ok
      ? Number((outcome.document.metadata as { creditsUsed?: number } | undefined)?.creditsUsed ?? 0)
      : outcome.error.code === 'SCRAPE_LOCKDOWN_CACHE_MISS' ? scrapeCredits({ lockdown: { hit: false } }) : 0;
    if (job.crawl) {
      const request = job.request as { url: string; formats?: { type: string }[] };
      if (outcome.ok && !request.formats?.some((f) => f.type === 'links')) delete outcome.document.links;
      const { billed } = await this.deps.crawlPages.record(job, request.url, outcome.ok
        ? { ok: true, document: outcome.document, links: run?.links ?? [], finalUrl: run?.finalUrl ?? request.url, creditsUsed: credits }
        : { ok: false, error: outcome.error, ...(credits > 0 ? { creditsUsed: credits } : {}) }, log);
      if (billed && credits > 0) await this.deps.credits.charge(job.teamId, credits);
      await this.deps.dispatcher.release(job.teamId, job.jobId);
      return;
    }
    if (credits > 0) await this.deps.credits.charge(job.teamId, credits);
    await this.deps.results.put(
      { jobId: job.jobId, teamId: job.teamId, finishedAt: new Date(this.now()).toISOString(), outcome },
      { zeroDataRetention: job.zeroDataRetention },
    );
    await this.deps.dispatcher.release(job.teamId, job.jobId);
  }
}
