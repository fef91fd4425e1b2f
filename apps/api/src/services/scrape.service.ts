import { randomUUID } from 'node:crypto';
import {
  TrawlError,
  redactUrl,
  needsBrowser,
  llmFormatCredits,
  type Capability,
  type ScrapeRequest,
} from '@trawl/api-schema';
import type { Logger } from '@trawl/observability';
import { assertCapabilities } from './assert-capabilities.js';
import {
  RedisBreakerOpenError, cacheKeyOf, cacheReadOf, derivableRequest, derivedOptionsHash, scrapeCredits, staleReason, timeHop,
  type CreditLedger, type DerivedEntry, type DocumentBodyStore, type JobCancellations, type JobDispatcher, type PageCache,
  type ResultStore, type ResultWaiter, type ScrapeJob, type ScrapeQueueName, type StoredResult, type Team,
} from '@trawl/queue';

/** The page cache as the gateway reads it: derived entries only (see {@link ScrapeService.scrape}). */
export interface GatewayCache {
  pages: Pick<PageCache, 'getDerived'>;
  /** One cache for every team (`TRAWL_CACHE_SHARED`); false keys entries by team. */
  shared: boolean;
  /** `trawl_gateway_cache_lookups_total{mode, outcome}`. */
  lookups: { inc(labels: { mode: string; outcome: string }): void };
}

export interface ScrapeServiceDeps {
  dispatcher: JobDispatcher;
  waiter: ResultWaiter;
  results: ResultStore;
  credits: CreditLedger;
  /** Where uploads wait for the documents role. */
  documentBodies: DocumentBodyStore;
  /** Stops a job that already started once nobody waits for it (client gone, timed out). */
  cancellations: Pick<JobCancellations, 'cancel'>;
  /** Capabilities beyond plain HTTP that this deployment's workers serve. */
  capabilities: ReadonlySet<Capability>;
  /** An LLM is configured: `highlights` are picked by it and cost what the other LLM formats cost. */
  llmConfigured: boolean;
  /** How long past its timeout a sync request waits for the worker's own timeout answer, ms. */
  graceMs: number;
  /** The page cache, when enabled: derived hits are answered here, without a slot or a worker. */
  cache?: GatewayCache;
  now?: () => number;
}

/** An uploaded file, stored in the DocumentBodyStore under `jobId`. */
export interface StoredUpload {
  jobId: string;
  size: number;
  filename: string;
  mimeType?: string;
}

/** A scrape's job id and the document or error it ended with. */
export interface ScrapeOutcome {
  jobId: string;
  document: Record<string, unknown>;
  /** `JSON.stringify(document)` as the worker wrote it, when the outcome came with it (see ResultWaiter.documentJsonOf). */
  documentJson?: string;
}

/** The 408 of a sync scrape that ran out of time, whichever path answers it. */
export function scrapeTimeoutError(timeoutMs: number): TrawlError {
  return new TrawlError('SCRAPE_TIMEOUT', `Scrape timed out after ${timeoutMs} ms`, { details: { timeoutMs } });
}

/**
 * `POST /v2/scrape`: refuse what this deployment cannot serve, check credits, submit through the
 * team's concurrency group, wait for the outcome event, and turn it into a document or an error.
 */
export class ScrapeService {
  private readonly now: () => number;

  constructor(private readonly deps: ScrapeServiceDeps) {
    this.now = deps.now ?? Date.now;
  }

  /**
   * When a sync scrape received at `receivedAt` must have its answer: its `timeout` counted from the
   * request's arrival, plus the grace the gateway gives the worker's own timeout answer.
   */
  answerBy(request: Pick<ScrapeRequest, 'timeout'>, receivedAt: number): number {
    return receivedAt + request.timeout + this.deps.graceMs;
  }

  /**
   * `team`: the record this request's authentication read from Redis (the key's team id may be
   * remembered, the record never is). `receivedAt`: when the gateway received the request; its
   * `timeout` counts from there (the time its authentication, rate limit and admission took included).
   */
  async scrape(team: Team, request: ScrapeRequest, opts: { log: Logger; clientGone?: AbortSignal; receivedAt?: number }): Promise<ScrapeOutcome> {
    assertCapabilities(request, this.deps.capabilities);
    const jobId = randomUUID();
    const log = request.zeroDataRetention ? opts.log.child({ jobId, zdr: true }) : opts.log.child({ jobId, url: redactUrl(request.url) });
    // The credits are checked against the team record this request read (no second read); the cache
    // read never rejects.
    const cached = timeHop('gateway:cache-lookup', () => this.lookupDerived(team, request, log));
    const cost = 1 + llmFormatCredits(request, { llmConfigured: this.deps.llmConfigured });
    await timeHop('gateway:credits', () => this.deps.credits.ensureAvailable(team.id, cost, team));
    const entry = await cached;
    if (entry) return this.answerFromCache(team, request, jobId, entry, log);
    return this.run(team, request, {
      jobId, queue: needsBrowser(request) ? 'browser' : 'scrape', log,
      ...(opts.clientGone ? { clientGone: opts.clientGone } : {}), ...(opts.receivedAt !== undefined ? { receivedAt: opts.receivedAt } : {}),
    });
  }

  /**
   * The formats a worker already derived once for this request (same page key, same options hash:
   * {@link derivableRequest}), still fresh for it: such a request is answered at the gateway, with no
   * slot, no queue hop and no conversion ({@link answerFromCache}). Anything else, a stale entry, or
   * a cache that cannot be read: null, and the request goes to a worker, which applies every cache
   * rule itself. Never rejects.
   */
  private async lookupDerived(team: Team, request: ScrapeRequest, log: Logger): Promise<DerivedEntry | null> {
    const cache = this.deps.cache;
    if (!cache || !derivableRequest(request)) return null;
    const read = cacheReadOf(request);
    const key = cacheKeyOf(request, cache.shared ? undefined : team.id);
    if (read.mode === 'off' || key === null) return null;
    const mode = read.mode === 'only' ? read.reason : 'fresh';
    let entry: DerivedEntry | null;
    try {
      entry = await cache.pages.getDerived(key, derivedOptionsHash(request));
    } catch (err) {
      cache.lookups.inc({ mode, outcome: 'failed' });
      // A cache Redis down or frozen is logged once by the cache, not by every request meanwhile.
      log[err instanceof RedisBreakerOpenError ? 'debug' : 'warn']({ err }, 'page cache read failed');
      return null;
    }
    if (!entry || staleReason(entry, request, read, this.now()) !== null) {
      cache.lookups.inc({ mode, outcome: entry ? 'stale' : 'miss' });
      return null;
    }
    cache.lookups.inc({ mode, outcome: 'hit' });
    return entry;
  }

  /** The answer of a derived hit (see {@link lookupDerived}): billed and retained as a worker's hit is. */
  private async answerFromCache(team: Team, request: ScrapeRequest, jobId: string, entry: DerivedEntry, log: Logger): Promise<ScrapeOutcome> {
    // A hit fetched nothing: billed as a basic scrape whatever proxy first fetched the page (as a worker's hit).
    const creditsUsed = scrapeCredits({ proxyUsed: 'basic' });
    const document = {
      ...entry.document,
      metadata: {
        ...entry.document.metadata,
        // The entry is shared by every URL of the same canonical form: the caller's own URL is the source.
        sourceURL: redactUrl(request.url), scrapeId: jobId, creditsUsed, cacheState: 'hit' as const, cachedAt: new Date(entry.cachedAt).toISOString(),
      },
    };
    // Billing stays exactly once: the charge is durable before the answer leaves (a failed charge fails
    // the request, which then answers nothing). The retained copy (GET /v2/scrape/:id) is not: it is
    // serialized and sent right after the answer is handed to the socket (setImmediate runs before this
    // process reads another request), so a GET through this gateway always finds it; a failure to
    // retain it is logged and the answer stands.
    await timeHop('gateway:charge', () => this.deps.credits.charge(team.id, creditsUsed));
    setImmediate(() => {
      this.deps.results.put({ jobId, teamId: team.id, finishedAt: new Date(this.now()).toISOString(), outcome: { ok: true, document } }, {
        zeroDataRetention: false, announce: false,
      }).catch((err: unknown) => log.warn({ err }, 'retaining a gateway cache hit failed'));
    });
    log.debug('scrape answered from the cache at the gateway');
    return { jobId, document };
  }

  /**
   * `POST /v2/parse`: the file is already stored under its job id; the job goes straight to the
   * documents queue through the team's concurrency group, and the file is dropped if it never runs.
   */
  async parse(team: Team, request: ScrapeRequest, upload: StoredUpload, opts: { log: Logger; clientGone?: AbortSignal }): Promise<ScrapeOutcome> {
    try {
      assertCapabilities(request, this.deps.capabilities);
      // The route checked the page's own credit before the upload; the LLM formats' share is known now.
      const llmCredits = llmFormatCredits(request, { llmConfigured: this.deps.llmConfigured });
      if (llmCredits > 0) await this.deps.credits.ensureAvailable(team.id, 1 + llmCredits);
      const log = opts.log.child({ jobId: upload.jobId, upload: request.zeroDataRetention ? undefined : upload.filename, size: upload.size });
      return await this.run(team, request, {
        jobId: upload.jobId,
        queue: 'documents',
        document: { source: 'upload', size: upload.size, filename: upload.filename, ...(upload.mimeType ? { mimeType: upload.mimeType } : {}) },
        log,
        ...(opts.clientGone ? { clientGone: opts.clientGone } : {}),
      });
    } finally {
      // The worker deletes it when it ends; this covers a job withdrawn or refused before it ran.
      await this.deps.documentBodies.delete(upload.jobId);
    }
  }

  private async run(
    team: Team, request: ScrapeRequest,
    opts: { jobId: string; queue: ScrapeQueueName; document?: ScrapeJob['document']; log: Logger; clientGone?: AbortSignal; receivedAt?: number },
  ): Promise<ScrapeOutcome> {
    const { jobId, log } = opts;
    const enqueuedAt = this.now();
    // Counted from the request's arrival when known (an upload counts from its stored file).
    const deadline = Math.min(opts.receivedAt ?? enqueuedAt, enqueuedAt) + request.timeout;
    const job: ScrapeJob = {
      v: 1,
      jobId,
      teamId: team.id,
      request, // validated; a worker validates it again unless it runs the job at once in this process (DispatchSpec.validated)
      deadline,
      mode: 'sync',
      zeroDataRetention: request.zeroDataRetention,
      // Its outcome is announced to this process's waiter alone.
      replyTo: this.deps.waiter.replyTo,
      ...(request.origin !== undefined ? { origin: request.origin } : {}),
      ...(opts.document ? { document: opts.document } : {}),
    };
    // Out of time before it was even submitted (its rate limit or authentication waited for Redis):
    // such a job could never run.
    if (enqueuedAt >= deadline) throw scrapeTimeoutError(request.timeout);
    // Subscribe before submitting so the outcome event cannot be missed.
    const outcome = this.deps.waiter.wait(jobId, Math.max(0, deadline - enqueuedAt) + this.deps.graceMs, { beforeSubmit: true });
    const admit = await this.deps.dispatcher.submit({
      jobId, teamId: team.id, queue: opts.queue, name: 'scrape', data: job, priorityClass: 'interactive', enqueuedAt, validated: true,
    });
    if (admit.status === 'backlog-full') {
      this.deps.waiter.cancel(jobId);
      throw new TrawlError('CONCURRENCY_BACKLOG_FULL', 'Too many jobs are waiting for this team\'s concurrency slots; retry later');
    }
    log.debug({ admission: admit.status }, 'scrape submitted');
    const stopWaiting = this.withdrawAtDeadline(team.id, jobId, deadline, opts.clientGone);
    let result: StoredResult | null;
    try {
      result = await timeHop('gateway:wait', () => Promise.race([outcome, stopWaiting.withdrawn]));
    } finally {
      stopWaiting.cancel();
      // A withdrawn job never reports: free its waiter now rather than at timeout + grace.
      this.deps.waiter.cancel(jobId);
    }
    if (!result && this.deps.waiter.closed) {
      // The gateway is stopping past its grace period; the job itself still finishes in a worker.
      throw new TrawlError('SERVICE_UNAVAILABLE', 'The server is shutting down; the scrape goes on and its result can be fetched with GET /v2/scrape/:id', {
        details: { reason: 'shutting-down', jobId },
      });
    }
    if (!result) {
      // Normally the worker's own deadline ended it already; one that overran stops now. Not waited
      // for: the answer is due now, even while Redis is away.
      void this.deps.cancellations.cancel(jobId).catch(() => undefined);
      throw scrapeTimeoutError(request.timeout);
    }
    if (request.zeroDataRetention) await this.deps.results.delete(jobId);
    if (!result.outcome.ok) throw TrawlError.fromData(result.outcome.error);
    const documentJson = this.deps.waiter.documentJsonOf(result);
    return { jobId, document: result.outcome.document, ...(documentJson !== undefined ? { documentJson } : {}) };
  }

  /**
   * At the deadline (or when the client disconnects), a job still waiting for a slot is withdrawn so
   * it never runs: resolves null then. A job that already started is left to the worker's deadline,
   * unless the client went away: then it is cancelled (its outcome ends the wait).
   */
  private withdrawAtDeadline(teamId: string, jobId: string, deadline: number, clientGone?: AbortSignal) {
    let timer: NodeJS.Timeout | undefined;
    let onGone: (() => void) | undefined;
    const withdrawn = new Promise<null>((resolve) => {
      const attempt = (opts: { cancelRunning: boolean }) => {
        void this.deps.dispatcher.withdraw(teamId, jobId).then(async (ok) => {
          if (ok) resolve(null);
          else if (opts.cancelRunning) await this.deps.cancellations.cancel(jobId);
        }).catch(() => undefined);
      };
      timer = setTimeout(() => attempt({ cancelRunning: false }), Math.max(0, deadline - this.now()));
      onGone = () => attempt({ cancelRunning: true });
      clientGone?.addEventListener('abort', onGone, { once: true });
    });
    return {
      withdrawn,
      cancel: () => {
        if (timer) clearTimeout(timer);
        if (onGone) clientGone?.removeEventListener('abort', onGone);
      },
    };
  }

  /** A retained document of the team (GET /v2/scrape/:id). */
  async get(team: Team, jobId: string): Promise<Record<string, unknown>> {
    const stored = await this.deps.results.get(jobId);
    if (!stored || stored.teamId !== team.id) throw new TrawlError('JOB_NOT_FOUND', 'Scrape job not found or expired');
    if (!stored.outcome.ok) throw TrawlError.fromData(stored.outcome.error);
    return stored.outcome.document;
  }
}
