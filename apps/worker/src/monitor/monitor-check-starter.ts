import type { Job } from 'bullmq';
import { TrawlError, defaultMonitorScrapeOptions, monitorScrapeOptions, type MonitorTarget, type ScrapeOptions } from '@trawl/api-schema';
import type { Logger } from '@trawl/observability';
import {
  EMPTY_SUMMARY, nameUuid,
  type CrawlCoordinator, type CrawlStore, type CreditLedger, type MonitorCheckRecord, type MonitorJob, type MonitorRecord,
  type MonitorScheduler, type MonitorStore, type MonitorTargetRun, type TeamStore,
} from '@trawl/queue';
import { searchPages, searchWindowTbs, type WebSearch } from '../search/search-pages.js';

export interface MonitorCheckStarterDeps {
  monitors: MonitorStore;
  scheduler: Pick<MonitorScheduler, 'unschedule' | 'targetDone'>;
  crawls: CrawlStore;
  coordinator: CrawlCoordinator;
  credits: CreditLedger;
  teams: TeamStore;
  logger: Logger;
  /** How long a finished target's crawl or batch stays readable, seconds. */
  crawlRetentionSec: number;
  /** A check running longer than this no longer blocks the next one (it is failed), ms. */
  checkTimeoutMs: number;
  /** Web search of `search` targets; absent: their checks fail. */
  search?: WebSearch;
  /** Time budget of one query of a `search` target, ms. Default 60000. */
  searchTimeoutMs?: number;
  now?: () => number;
}

/** Results kept per query of a `search` target without `maxResults`. */
const DEFAULT_SEARCH_TARGET_RESULTS = 10;

/** A batch has no page limit beyond its URL count; the crawl store still wants one. */
const BATCH_LIMIT = 1_000_000_000;

type CheckJob = Extract<MonitorJob, { kind: 'check' }>;

/** When a scheduled run was due: the time in its job id (`repeat:<scheduler>:<ms>`), else the job's creation. */
function scheduledFor(job: Job): number {
  const m = /:(\d+)$/.exec(job.id ?? '');
  return m ? Number(m[1]) : job.timestamp;
}

/**
 * Starts one check of a monitor: skipped when the team has no credits or another check runs;
 * otherwise the check becomes the monitor's current one and each target starts a batch scrape
 * (`scrape` target; `search` target: of the pages its queries found) or a crawl (`crawl` target)
 * with change tracking, linked to the check so that
 * its end is reported back. Every step can run again after a crash: the check id of a scheduled
 * run and the crawl ids derive from the job, and a crawl that exists is only pushed on.
 */
export class MonitorCheckStarter {
  private readonly now: () => number;

  constructor(private readonly deps: MonitorCheckStarterDeps) {
    this.now = deps.now ?? Date.now;
  }

  async run(job: CheckJob, bullJob: Job): Promise<void> {
    const { monitors, scheduler } = this.deps;
    const monitor = await monitors.get(job.monitorId);
    if (!monitor || monitor.teamId !== job.teamId || (job.trigger === 'scheduled' && monitor.status !== 'active')) {
      // A scheduler left behind by a delete or pause that stopped half-way: remove it now.
      if (job.trigger === 'scheduled') await scheduler.unschedule(job.monitorId);
      return;
    }
    const now = this.now();
    const checkId = job.checkId ?? nameUuid(`monitor-check:${monitor.id}:${bullJob.id ?? ''}`);
    const base: MonitorCheckRecord = (await monitors.getCheck(monitor.id, checkId)) ?? {
      id: checkId, monitorId: monitor.id, status: 'queued', trigger: job.trigger, scheduledFor: job.trigger === 'scheduled' ? scheduledFor(bullJob) : null,
      startedAt: null, finishedAt: null, actualCredits: null, billingStatus: 'not_applicable', summary: EMPTY_SUMMARY, targetResults: [],
      notificationStatus: null, error: null, createdAt: now, updatedAt: now,
    };
    const log = this.deps.logger.child({ monitorId: monitor.id, checkId, trigger: job.trigger });
    if (base.status === 'queued' && !(await this.hasCredits(monitor.teamId))) {
      await monitors.putCheck({ ...base, status: 'skipped_no_credits', finishedAt: now, updatedAt: now }, ['none', 'queued']);
      log.info('monitor check skipped: no credits');
      await this.prune(monitor, null);
      return;
    }
    const runs: MonitorTargetRun[] = monitor.config.targets.map((t) => ({ targetId: t.id, type: t.type, crawlId: nameUuid(`monitor-target:${checkId}:${t.id}`) }));
    const running: MonitorCheckRecord = { ...base, status: 'running', startedAt: now, updatedAt: now, targetResults: runs };
    const skipped: MonitorCheckRecord = { ...base, status: 'skipped_overlap', finishedAt: now, updatedAt: now };
    const outcome = await monitors.startCheck(running, skipped, now - this.deps.checkTimeoutMs);
    if (outcome.kind === 'missing' || (outcome.kind === 'exists' && outcome.status !== 'running')) return;
    if (outcome.kind === 'overlap') {
      log.info({ currentCheckId: outcome.currentCheckId }, 'monitor check skipped: the previous one still runs');
      await this.prune(monitor, outcome.currentCheckId);
      return;
    }
    if (outcome.kind === 'started' && outcome.replacedCheckId !== null) await this.failStale(monitor.id, outcome.replacedCheckId, log);
    const check = outcome.kind === 'exists' ? ((await monitors.getCheck(monitor.id, checkId)) ?? running) : running;
    for (const run of check.targetResults) {
      const target = monitor.config.targets.find((t) => t.id === run.targetId);
      // A target removed by an update since the check started: it ends with nothing (its crawl is missing).
      if (target === undefined || target.type !== run.type) await scheduler.targetDone(monitor.teamId, { monitorId: monitor.id, checkId, targetId: run.targetId });
      else if (target.type === 'search') await this.startSearchTarget(monitor, check, run, target);
      else await this.startTarget(monitor, checkId, run, target);
    }
    log.info({ targets: check.targetResults.length }, 'monitor check started');
  }

  /**
   * Runs the queries of a `search` target (once: a retry finds its batch), records what they found
   * on the check, then starts the batch of the pages found like a `scrape` target. A query that
   * fails is named in `searchError`; the pages of the others are still compared.
   */
  private async startSearchTarget(monitor: MonitorRecord, check: MonitorCheckRecord, run: MonitorTargetRun, target: Extract<MonitorTarget, { type: 'search' }>): Promise<void> {
    const scrapeOptions = monitorScrapeOptions(defaultMonitorScrapeOptions(), monitor.id, target.id);
    if (await this.deps.crawls.get(run.crawlId)) {
      await this.startBatch(monitor, check.id, run, [], scrapeOptions);
      return;
    }
    const urls: string[] = [];
    const errors: string[] = [];
    let credits = 0;
    for (const query of target.queries) {
      if (this.deps.search === undefined) {
        errors.push('no search provider is configured on the workers (TRAWL_SEARCH_PROVIDER)');
        break;
      }
      try {
        const found = await searchPages(this.deps.search, {
          teamId: monitor.teamId, query, limit: target.maxResults ?? DEFAULT_SEARCH_TARGET_RESULTS, zeroDataRetention: false,
          signal: AbortSignal.timeout(this.deps.searchTimeoutMs ?? 60_000),
          ...(this.deps.searchTimeoutMs !== undefined ? { timeoutMs: this.deps.searchTimeoutMs } : {}),
          ...(target.searchWindow !== undefined ? { tbs: searchWindowTbs(target.searchWindow) } : {}),
          ...(target.includeDomains !== undefined ? { includeDomains: target.includeDomains } : {}),
          ...(target.excludeDomains !== undefined ? { excludeDomains: target.excludeDomains } : {}),
        });
        credits += found.creditsUsed;
        for (const url of found.urls) if (!urls.includes(url)) urls.push(url);
      } catch (err) {
        errors.push(`query ${JSON.stringify(query.slice(0, 100))}: ${TrawlError.from(err).message}`);
      }
    }
    const searched: MonitorTargetRun = {
      ...run, resultCount: urls.length, searchCredits: credits, ...(errors.length > 0 ? { searchError: errors.join('; ') } : {}),
    };
    const now = this.now();
    const updated = { ...check, targetResults: check.targetResults.map((r) => (r.targetId === run.targetId ? searched : r)), updatedAt: now };
    // A check that ended meanwhile (timed out, failed as stale) is left as it is.
    if (!(await this.deps.monitors.putCheck(updated, ['running']))) return;
    check.targetResults = updated.targetResults;
    await this.startBatch(monitor, check.id, run, urls, scrapeOptions);
  }

  /** Starts (or pushes on, after a crash) the batch scrape of fixed URLs of one target. */
  private async startBatch(monitor: MonitorRecord, checkId: string, run: MonitorTargetRun, urls: readonly string[], scrapeOptions: ScrapeOptions): Promise<void> {
    const { crawls, coordinator } = this.deps;
    const team = await this.deps.teams.get(monitor.teamId);
    const record = (await crawls.get(run.crawlId)) ?? await crawls.create({
      id: run.crawlId, teamId: monitor.teamId, kickoffDone: false, zeroDataRetention: false,
      retentionSec: this.deps.crawlRetentionSec, createdAt: this.now(), monitor: { monitorId: monitor.id, checkId, targetId: run.targetId },
      kind: 'batch', url: '', request: { scrapeOptions, origin: 'monitor' }, limit: BATCH_LIMIT, maxConcurrency: Math.max(1, team?.concurrency ?? 1), delayMs: 0,
    });
    if (!record.kickoffDone) {
      // Keys by position: a retry adds nothing twice.
      await crawls.enqueue(run.crawlId, urls.map((url, i) => ({ key: `u${i}`, url, depth: 0 })));
      if (await crawls.kickoffDone(run.crawlId)) {
        await coordinator.ended(run.crawlId);
        return;
      }
    }
    await coordinator.pump(run.crawlId);
  }

  /** Starts (or pushes on, after a crash) the batch or crawl of one target. */
  private async startTarget(monitor: MonitorRecord, checkId: string, run: MonitorTargetRun, target: Exclude<MonitorTarget, { type: 'search' }>): Promise<void> {
    const { crawls, coordinator } = this.deps;
    const link = { monitorId: monitor.id, checkId, targetId: target.id };
    const scrapeOptions = monitorScrapeOptions(target.scrapeOptions, monitor.id, target.id);
    if (target.type === 'scrape') {
      await this.startBatch(monitor, checkId, run, target.urls, scrapeOptions);
      return;
    }
    const team = await this.deps.teams.get(monitor.teamId);
    const teamConcurrency = Math.max(1, team?.concurrency ?? 1);
    const common = {
      id: run.crawlId, teamId: monitor.teamId, kickoffDone: false, zeroDataRetention: false,
      retentionSec: this.deps.crawlRetentionSec, createdAt: this.now(), monitor: link,
    };
    let record = await crawls.get(run.crawlId);
    const options = target.crawlOptions;
    record ??= await crawls.create({
      ...common, kind: 'crawl', url: target.url,
      request: { ...options, url: target.url, scrapeOptions, zeroDataRetention: false, origin: 'monitor' },
      limit: options.limit, maxConcurrency: Math.min(options.maxConcurrency ?? teamConcurrency, teamConcurrency),
      delayMs: Math.round((options.delay ?? 0) * 1000),
    });
    await coordinator.kickoff(record);
  }

  private async hasCredits(teamId: string): Promise<boolean> {
    try {
      await this.deps.credits.ensureAvailable(teamId, 1);
      return true;
    } catch (err) {
      if (err instanceof TrawlError && err.code === 'INSUFFICIENT_CREDITS') return false;
      throw err;
    }
  }

  /** A check that outlived the check timeout: failed, so its late end changes nothing. */
  private async failStale(monitorId: string, checkId: string, log: Logger): Promise<void> {
    const stale = await this.deps.monitors.getCheck(monitorId, checkId);
    if (!stale) return;
    const now = this.now();
    await this.deps.monitors.putCheck({ ...stale, status: 'failed', finishedAt: now, updatedAt: now, error: 'The check did not finish in time' }, ['running']);
    log.warn({ staleCheckId: checkId }, 'monitor check timed out');
  }

  private async prune(monitor: MonitorRecord, keep: string | null): Promise<void> {
    await this.deps.monitors.prune(monitor.id, this.now() - monitor.config.retentionDays * 86_400_000, keep);
  }
}
