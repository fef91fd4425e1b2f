import { needsBrowser, type Document } from '@trawl/api-schema';
import type { JobDispatcher } from './job-dispatcher.js';
import type { CrawlQueueJob, ScrapeJob } from './job-catalog.js';
import type { QueueSet } from './queue-set.js';
import type { CrawlRecord, CrawlStore, PumpResult } from './crawl-store.js';

/** Crawl lifecycle events, delivered to webhooks (and the WebSocket stream) by the notifier. */
export type CrawlLifecycleEvent = 'started' | 'page' | 'completed' | 'failed';

/** Sends a crawl event somewhere (webhooks); must not throw for delivery problems. */
export type CrawlNotifier = (crawl: CrawlRecord, event: CrawlLifecycleEvent, payload?: { document?: Document; error?: string }) => Promise<void>;

export interface CrawlCoordinatorOptions {
  /** In-flight pages older than this with no live job are recovered by the watchdog, ms. Default 30000. */
  staleAfterMs?: number;
  now?: () => number;
  /**
   * Runs on every completion pass of a crawl that ended (whatever its status, cancelled included),
   * before it leaves the indexes: so it runs again after a crash and must be idempotent. Monitors
   * use it to hear that a target's crawl ended.
   */
  onEnded?: (crawl: CrawlRecord) => Promise<void>;
}

/** How many times the watchdog runs a page again whose job BullMQ failed for stalling too often. */
const STALL_RECOVERIES = 2;

/** A page the watchdog recovered: submitted again (its job was lost) or recorded as failed (its job ended). */
export interface RecoveredPage {
  crawlId: string;
  jobId: string;
  action: 'resubmitted' | 'failed';
}

/**
 * Turns crawl state into jobs: hands frontier pages to the team's concurrency group as bulk scrape
 * jobs, schedules a delayed `pump` when the crawl's delay holds the next page back (no worker waits),
 * runs the completion effects, and recovers pages whose jobs were lost (the watchdog), so a crawl
 * can never stay `scraping` after its pages are done.
 */
export class CrawlCoordinator {
  private readonly staleAfterMs: number;
  private readonly now: () => number;
  private readonly onEnded: ((crawl: CrawlRecord) => Promise<void>) | undefined;

  constructor(
    private readonly store: CrawlStore,
    private readonly dispatcher: JobDispatcher,
    private readonly queues: QueueSet,
    private readonly notify: CrawlNotifier,
    opts: CrawlCoordinatorOptions = {},
  ) {
    this.staleAfterMs = opts.staleAfterMs ?? 30_000;
    this.now = opts.now ?? Date.now;
    this.onEnded = opts.onEnded;
  }

  /** Queues the seeding job of a new crawl (idempotent per crawl). */
  async kickoff(crawl: Pick<CrawlRecord, 'id' | 'teamId'>): Promise<void> {
    const job: CrawlQueueJob = { v: 1, kind: 'kickoff', crawlId: crawl.id, teamId: crawl.teamId };
    await this.queues.get('crawl').add('kickoff', job, { jobId: `kickoff-${crawl.id}`, priority: 1 });
  }

  /**
   * Starts as many pages as the crawl may start now; runs the completion effects when it completed.
   * @param known the crawl's record when the caller has it (its request and team do not change).
   */
  async pump(crawlId: string, known?: CrawlRecord): Promise<PumpResult> {
    const result = await this.store.pump(crawlId, { now: this.now() });
    await this.pumped(crawlId, result, known);
    return result;
  }

  /**
   * Acts on a pump's result (from {@link pump} or the store's `pageDoneNext`): submits the pages it
   * took, schedules the next pump when the crawl's delay holds pages back, runs the completion
   * effects when it completed the crawl.
   */
  async pumped(crawlId: string, result: PumpResult, known?: CrawlRecord): Promise<void> {
    if (result.state === 'completed') {
      await this.ended(crawlId);
      return;
    }
    const crawl = result.pages.length > 0 || result.state === 'wait' ? (known ?? (await this.store.get(crawlId))) : null;
    // Together: their commands go out in this order (admission keeps it), without a round trip each.
    if (crawl) await Promise.all(result.pages.map((page) => this.submit(crawl, page.jobId, page.url, page.depth, page.hidden)));
    if (result.state === 'wait' && crawl) {
      const job: CrawlQueueJob = { v: 1, kind: 'pump', crawlId, teamId: crawl.teamId };
      await this.queues.get('crawl').add('pump', job, {
        jobId: `pump-${crawlId}-${result.waitUntil}`,
        delay: Math.max(0, result.waitUntil - this.now()),
        priority: 1,
      });
    }
  }

  /** Submits one page as a bulk scrape job through its team's concurrency group. */
  async submit(crawl: CrawlRecord, jobId: string, url: string, depth: number, hidden?: boolean): Promise<void> {
    const scrapeOptions = crawl.request.scrapeOptions;
    const timeout = typeof scrapeOptions.timeout === 'number' ? scrapeOptions.timeout : 60_000;
    const now = this.now();
    const job: ScrapeJob = {
      v: 1,
      jobId,
      teamId: crawl.teamId,
      request: { ...scrapeOptions, url, zeroDataRetention: crawl.zeroDataRetention },
      deadline: now + timeout,
      mode: 'async',
      zeroDataRetention: crawl.zeroDataRetention,
      crawl: { id: crawl.id, kind: crawl.kind, depth, ...(hidden ? { hidden } : {}) },
    };
    // A page left unsubmitted (backlog full, crash) stays in flight; the watchdog submits it again.
    await this.dispatcher.submit({
      jobId, teamId: crawl.teamId, queue: needsBrowser(scrapeOptions) ? 'browser' : 'scrape', name: 'scrape',
      data: job, priorityClass: 'bulk', enqueuedAt: now,
    });
  }

  /**
   * Completion effects of a crawl that ended (any status): event stream, webhook (once, whoever gets
   * here first: the last page, a cancel, or the watchdog after a crash), then the indexes, last, so a
   * crash before them leaves the crawl to the watchdog, which calls this again.
   */
  async ended(crawlId: string): Promise<void> {
    const crawl = await this.store.get(crawlId);
    if (!crawl || crawl.status === 'scraping') return;
    await this.store.publish({ crawlId, type: 'done' });
    if (await this.store.claimOnce(crawlId, 'ended')) {
      if (crawl.status === 'completed') await this.notify(crawl, 'completed');
      else if (crawl.status === 'failed') await this.notify(crawl, 'failed', crawl.error !== undefined ? { error: crawl.error } : {});
    }
    if (this.onEnded) await this.onEnded(crawl);
    await this.store.unindex(crawl);
  }

  /** Cancels a crawl: no new page starts; waiting pages are withdrawn. False when it had already ended. */
  async cancel(crawl: CrawlRecord): Promise<boolean> {
    const { previous, inflight } = await this.store.end(crawl.id, 'cancelled', { now: this.now() });
    if (previous !== 'scraping') return false;
    for (const jobId of inflight) {
      // Pages still waiting for a slot never run; running ones finish and are not recorded.
      if (await this.dispatcher.withdraw(crawl.teamId, jobId)) await this.store.pageDone(crawl.id, jobId, { kind: 'drop' });
    }
    await this.ended(crawl.id);
    return true;
  }

  /** Ends a crawl as failed (seeding failed for good). */
  async fail(crawlId: string, error: string): Promise<void> {
    const { previous } = await this.store.end(crawlId, 'failed', { error, now: this.now() });
    if (previous === 'scraping') await this.ended(crawlId);
  }

  /**
   * One watchdog pass over running crawls: pages in flight with no live job are submitted again (lost
   * before reaching the queue) or recorded as failed (their job ended without recording), a lost
   * kickoff is queued again, and every crawl is pumped. Returns the pages recovered.
   */
  async watch(opts: { intervalMs: number }): Promise<RecoveredPage[]> {
    const recovered: RecoveredPage[] = [];
    const now = this.now();
    for (const crawlId of await this.store.dueForWatch(now, opts.intervalMs)) {
      const crawl = await this.store.get(crawlId);
      if (!crawl) {
        await this.store.unindex({ id: crawlId, teamId: '' });
        continue;
      }
      if (crawl.status !== 'scraping') {
        // Ended, but its completion effects did not all run (a crash right after the last page).
        await this.ended(crawlId);
        continue;
      }
      if (!crawl.kickoffDone && now - crawl.createdAt > this.staleAfterMs) {
        const state = await this.queues.get('crawl').getJobState(`kickoff-${crawl.id}`);
        if (state === 'unknown' || state === 'completed' || state === 'failed') {
          await this.queues.get('crawl').remove(`kickoff-${crawl.id}`).catch(() => 0);
          await this.kickoff(crawl);
        }
      }
      for (const page of await this.store.inflight(crawlId)) {
        if (now - page.startedAt < this.staleAfterMs) continue;
        const live = await this.dispatcher.liveState(crawl.teamId, page.jobId);
        if (live === 'live') continue;
        if (live === 'lost') {
          recovered.push({ crawlId, jobId: page.jobId, action: 'resubmitted' });
          await this.submit(crawl, page.jobId, page.url, page.depth, page.hidden);
        } else if (await this.dispatcher.stalledOut(page.jobId) && (await this.store.countRecovery(crawlId, page.jobId)) <= STALL_RECOVERIES) {
          // BullMQ gave up on the job after its runs died or starved past their locks (faults around
          // the page, not the page's own error): the page runs again as a new job, a bounded number
          // of times, so a page that itself kills its workers still ends (as failed).
          recovered.push({ crawlId, jobId: page.jobId, action: 'resubmitted' });
          await this.dispatcher.forget(page.jobId);
          await this.submit(crawl, page.jobId, page.url, page.depth, page.hidden);
        } else {
          const r = await this.store.pageDone(crawlId, page.jobId, {
            kind: 'error',
            error: { id: page.jobId, timestamp: new Date(now).toISOString(), url: page.url, code: 'SCRAPE_FAILED', error: 'The page job ended without a result (worker crashes)' },
          }, now);
          // `dup`: its own job recorded it after the in-flight list was read (the list is read once
          // a pass, and a pass after Redis was away finds every page stale): nothing was recovered.
          if (r.result === 'ok') recovered.push({ crawlId, jobId: page.jobId, action: 'failed' });
          if (r.completed) await this.ended(crawlId);
        }
      }
      await this.pump(crawlId);
    }
    return recovered;
  }
}
