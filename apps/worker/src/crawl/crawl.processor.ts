import { UnrecoverableError, type Job } from 'bullmq';
import { TrawlError, findFormat, redactUrl, mapRequestSchema, searchRequestSchema } from '@trawl/api-schema';
import { ALLOW_ALL_ROBOTS } from '@trawl/crawl';
import type { Logger } from '@trawl/observability';
import {
  parseJob, type CancellationWatcher, type HostRateLimiter, type TokenLedger, type ChangeStore, type TeamStore, type CrawlCoordinator, type CrawlNotifier, type CrawlQueueJob, type CrawlRecord, type CrawlStore, type ResultStore, type CreditLedger, type JobOutcome,
} from '@trawl/queue';
import { DEFAULT_CHANGE_TAG } from '../scrape/change-tracking.js';
import { crawlRules, toCandidates } from './crawl-pages.js';
import type { CrawlParamsRunner } from './crawl-params-runner.js';
import type { MapRunner } from './map-runner.js';
import type { SearchRunner } from '../search/search-runner.js';
import { DEFAULT_ROBOTS_USER_AGENT, type SiteDiscovery } from './site-discovery.js';

export interface CrawlProcessorDeps {
  store: CrawlStore;
  coordinator: CrawlCoordinator;
  notify: CrawlNotifier;
  discovery: SiteDiscovery;
  mapRunner: MapRunner;
  /** Runs `search` jobs. */
  searchRunner?: Pick<SearchRunner, 'run'>;
  /** Runs `crawl-params` jobs (map of sample URLs, then the LLM). */
  paramsRunner: Pick<CrawlParamsRunner, 'run'>;
  /** LLM tokens per team: a crawl prompt's are recorded here. */
  tokens: Pick<TokenLedger, 'record'>;
  results: ResultStore;
  credits: CreditLedger;
  logger: Logger;
  /** Change-tracking memory: the URLs earlier crawls of the team saw under a tag. */
  changes: Pick<ChangeStore, 'knownUrls'>;
  /** Time budget of a crawl's seeding (robots.txt and sitemaps), ms. */
  kickoffBudgetMs: number;
  shutdown: AbortSignal;
  /** Cancelled crawls and maps whose caller went away: their fetches stop. */
  cancellations: Pick<CancellationWatcher, 'watch'>;
  /** A disabled team's crawls are not seeded and its maps do not run. */
  teams: Pick<TeamStore, 'isDisabled'>;
  /** Per-host politeness of every worker: robots.txt Crawl-delay of the crawl's host is set there. */
  hostRate?: Pick<HostRateLimiter, 'setCrawlDelay'>;
  now?: () => number;
}

/** Sitemap URLs read per crawl: enough to fill `limit` after filtering, bounded. */
const MAX_SITEMAP_URLS = 200_000;

/** Consumer of the `crawl` queue: seeds crawls, starts delayed pages, runs maps and crawl-prompt derivations. */
export class CrawlProcessor {
  constructor(private readonly deps: CrawlProcessorDeps) {}

  async process(bullJob: Job): Promise<void> {
    const job = parseJob('crawl', bullJob.data);
    switch (job.kind) {
      case 'kickoff':
        return this.kickoff(job.crawlId, bullJob);
      case 'pump':
        await this.deps.coordinator.pump(job.crawlId);
        return;
      case 'map':
        return this.map(job);
      case 'crawl-params':
        return this.crawlParams(job);
      case 'search':
        return this.search(job);
    }
  }

  /**
   * Seeds a crawl: robots.txt (rules kept for the page workers, Crawl-delay), the seed, then the
   * sitemap URLs, all through the crawl's filters; then the first pages start. A seeding that fails
   * for good fails the crawl (`crawl.failed`).
   */
  private async kickoff(crawlId: string, bullJob: Job): Promise<void> {
    const { store, coordinator } = this.deps;
    const crawl = await store.get(crawlId);
    if (!crawl || crawl.status !== 'scraping') return;
    const log = this.deps.logger.child({ crawlId, ...(crawl.zeroDataRetention ? { zdr: true } : { url: redactUrl(crawl.url) }) });
    if (await this.deps.teams.isDisabled(crawl.teamId)) {
      // Nothing is fetched for a disabled team, not even robots.txt; its waiting pages fail too.
      await coordinator.fail(crawlId, 'The team was disabled before the crawl started');
      return;
    }
    if (crawl.kickoffDone || crawl.kind === 'batch') {
      // A batch is seeded by the API; here only when the API died before marking it (watchdog).
      if (!crawl.kickoffDone && (await store.kickoffDone(crawlId))) await coordinator.ended(crawlId);
      else await coordinator.pump(crawlId);
      return;
    }
    const cancel = await this.deps.cancellations.watch([crawlId]);
    try {
      const { scope, request } = crawlRules(crawl);
      const signal = AbortSignal.any([AbortSignal.timeout(this.deps.kickoffBudgetMs), this.deps.shutdown, cancel.signal]);
      const robotsUserAgent = request.robotsUserAgent ?? DEFAULT_ROBOTS_USER_AGENT;
      const robots = await this.deps.discovery.robots(crawl.url, signal);
      if (!request.ignoreRobotsTxt) await store.setRobotsTxt(crawlId, robots.text);
      const ctx = { scope, robots: request.ignoreRobotsTxt ? ALLOW_ALL_ROBOTS : robots.rules, robotsUserAgent };
      if (await store.claimOnce(crawlId, 'started')) await this.deps.notify(crawl, 'started');
      await store.enqueue(crawlId, toCandidates(ctx, [crawl.url], 0));
      // Cancelled while robots.txt was read: stop before the sitemaps.
      if ((await store.get(crawlId))?.status !== 'scraping') return;
      if (request.sitemap !== 'skip') {
        const listed = await this.deps.discovery.sitemapUrls(crawl.url, robots.rules, {
          maxUrls: Math.min(MAX_SITEMAP_URLS, crawl.limit * 20), signal,
        });
        await store.enqueue(crawlId, toCandidates(ctx, listed.map((u) => u.loc), 0)); // chunked by the store
      }
      await this.enqueueRemembered(crawl, ctx);
      const crawlDelaySec = request.ignoreRobotsTxt ? undefined : robots.rules.crawlDelaySec(robotsUserAgent);
      const delayMs = Math.max(crawl.delayMs, crawlDelaySec !== undefined ? Math.min(crawlDelaySec, 3_600) * 1000 : 0);
      if (crawlDelaySec !== undefined) await this.deps.hostRate?.setCrawlDelay(new URL(crawl.url).host, crawlDelaySec * 1000);
      const completed = await store.kickoffDone(crawlId, { delayMs });
      log.info({ delayMs }, 'crawl seeded');
      if (completed) await coordinator.ended(crawlId);
      else await coordinator.pump(crawlId);
    } catch (err) {
      if (this.deps.shutdown.aborted) throw err;
      const te = TrawlError.from(err);
      const attemptsLeft = (bullJob.opts.attempts ?? 1) - (bullJob.attemptsMade + 1);
      if (attemptsLeft > 0) throw te;
      log.error({ err, code: te.code }, 'crawl seeding failed');
      await coordinator.fail(crawlId, te.message);
    } finally {
      cancel.dispose();
    }
  }

  /**
   * Change tracking over a crawl: pages earlier crawls saw under the same tag, within this crawl's
   * rules, are scraped too (after the organic ones), so a page no longer linked is still compared
   * (`visibility: hidden`) and a deleted one shows as `removed`. A page found organically after all
   * becomes visible again (the store's ENQUEUE).
   */
  private async enqueueRemembered(crawl: CrawlRecord, ctx: Parameters<typeof toCandidates>[0]): Promise<void> {
    const format = findFormat(crawl.request.scrapeOptions.formats, 'changeTracking');
    if (!format) return;
    const known = await this.deps.changes.knownUrls(crawl.teamId, format.tag ?? DEFAULT_CHANGE_TAG, new URL(crawl.url).hostname, Math.min(crawl.limit * 2, MAX_SITEMAP_URLS));
    const candidates = toCandidates(ctx, known, 0).filter((c) => !c.robotsBlocked).map((c) => ({ ...c, hidden: true }));
    await this.deps.store.enqueue(crawl.id, candidates);
  }

  /** Runs a map and stores its outcome for the waiting gateway. */
  private async map(job: Extract<CrawlQueueJob, { kind: 'map' }>): Promise<void> {
    const request = mapRequestSchema.safeParse(job.request);
    if (!request.success) throw new UnrecoverableError(`invalid map request in job: ${request.error.message}`);
    await this.answer(job, {
      what: 'map', zeroDataRetention: false,
      late: () => new TrawlError('MAP_TIMEOUT', 'The map operation timed out before it could start (the workers are busy)'),
    }, async (cancel) => {
      const { links, timedOut } = await this.deps.mapRunner.runReport(request.data, { deadline: job.deadline, shutdown: this.deps.shutdown, cancel });
      await this.deps.credits.charge(job.teamId, 1);
      // Cut short by its timeout with something found: answered with what it found, and said so.
      const warning = timedOut ? `The map operation timed out; these are the ${links.length} URLs found in time (raise timeout for more).` : undefined;
      return { links, ...(warning ? { warning } : {}) };
    });
  }

  /** Runs a search (the runner charges it) and stores its answer for the waiting gateway. */
  private async search(job: Extract<CrawlQueueJob, { kind: 'search' }>): Promise<void> {
    const request = searchRequestSchema.safeParse(job.request);
    if (!request.success) throw new UnrecoverableError(`invalid search request in job: ${request.error.message}`);
    await this.answer(job, {
      what: 'search', zeroDataRetention: job.zeroDataRetention,
      late: () => new TrawlError('SEARCH_TIMEOUT', 'The search timed out before it could start (the workers are busy)'),
    }, async (cancel) => {
      const runner = this.deps.searchRunner;
      if (!runner) throw new TrawlError('UNSUPPORTED_OPTION', 'Search is not served by this worker', { details: { option: 'search' } });
      // The job's deadline is the request's timeout counted from submission: what is left is the runner's.
      const remaining = Math.max(1_000, job.deadline - (this.deps.now ?? Date.now)());
      const result = await runner.run({
        teamId: job.teamId, request: { ...request.data, timeout: Math.min(request.data.timeout, remaining) },
        signal: AbortSignal.any([this.deps.shutdown, cancel]), zeroDataRetention: job.zeroDataRetention,
      });
      // A provider error is the answer at once (the caller is waiting); it is not retried here.
      return { data: result.data, creditsUsed: result.creditsUsed, ...(result.warning ? { warning: result.warning } : {}) };
    });
  }

  /**
   * Derives the crawl options of a prompt and stores them (or the error) for the waiting gateway. Not
   * billed here: the crawl it precedes is.
   */
  private async crawlParams(job: Extract<CrawlQueueJob, { kind: 'crawl-params' }>): Promise<void> {
    await this.answer(job, {
      what: 'crawl prompt', zeroDataRetention: job.zeroDataRetention,
      late: () => new TrawlError('LLM_ERROR', 'The crawl prompt could not start before its deadline (the workers are busy)'),
    }, async (cancel) => {
      const { result, usage } = await this.deps.paramsRunner.run(job, { shutdown: this.deps.shutdown, cancel });
      const tokens = usage.promptTokens + usage.completionTokens;
      if (tokens > 0) await this.deps.tokens.record(job.teamId, tokens);
      return result;
    });
  }

  /**
   * The envelope of a job a gateway caller waits for (map, search, crawl-params): answered once (a
   * redelivered job whose answer is stored does nothing); not started when cancelled, past its
   * deadline (its caller has had its timeout: `late`) or of a disabled team; the work's document or
   * its error is stored for the waiting gateway. Only a shutdown leaves it unanswered, to run again.
   */
  private async answer(
    job: { jobId: string; teamId: string; deadline: number; replyTo?: string | undefined },
    opts: { what: string; zeroDataRetention: boolean; late: () => TrawlError },
    work: (cancel: AbortSignal) => Promise<Record<string, unknown>>,
  ): Promise<void> {
    if (await this.deps.results.has(job.jobId)) return;
    const store = { zeroDataRetention: opts.zeroDataRetention, replyTo: job.replyTo };
    const put = (outcome: JobOutcome<Record<string, unknown>>) => this.deps.results.put({ jobId: job.jobId, teamId: job.teamId, finishedAt: new Date().toISOString(), outcome }, store);
    const cancel = await this.deps.cancellations.watch([job.jobId]);
    try {
      if (cancel.signal.aborted) throw cancel.signal.reason;
      if ((this.deps.now ?? Date.now)() >= job.deadline) throw opts.late();
      if (await this.deps.teams.isDisabled(job.teamId)) throw new TrawlError('TEAM_DISABLED', `The team was disabled before this ${opts.what} started`);
      await put({ ok: true, document: await work(cancel.signal) });
    } catch (err) {
      if (this.deps.shutdown.aborted) throw err;
      await put({ ok: false, error: TrawlError.from(err).toData() });
    } finally {
      cancel.dispose();
    }
  }
}
