import { createHash } from 'node:crypto';
import type { MonitorSchedule } from '@trawl/api-schema';
import type { CrawlRecord } from './crawl-store.js';
import { JOB_CATALOG, type MonitorJob } from './job-catalog.js';
import type { QueueSet } from './queue-set.js';

/**
 * A UUID (version 8, RFC 9562) derived from a name: the ids of things a retried step creates again
 * (a scheduled run's check, a target's crawl, a webhook delivery) stay the same, so the retry finds
 * what the first attempt made instead of making it twice. Pure.
 */
export function nameUuid(name: string): string {
  const h = createHash('sha256').update(name).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * The monitor side of BullMQ: each active monitor has a job scheduler (`monitor-<id>`) that adds a
 * `check` job at every cron time, whichever process runs (schedulers live in Redis and survive
 * restarts; one job per time, however many workers there are). Manual runs and the end of a target's
 * crawl are plain jobs with ids that make them idempotent.
 */
export class MonitorScheduler {
  constructor(private readonly queues: QueueSet) {}

  /** The job scheduler id of a monitor (BullMQ refuses `:` in custom job ids; its own ids add them). */
  static schedulerId(monitorId: string): string {
    return `monitor-${monitorId}`;
  }

  /** Creates or replaces a monitor's job scheduler (cron pattern in its time zone). */
  async schedule(monitor: { id: string; teamId: string; schedule: MonitorSchedule }): Promise<void> {
    const data: MonitorJob = { v: 1, kind: 'check', monitorId: monitor.id, teamId: monitor.teamId, trigger: 'scheduled' };
    const policy = JOB_CATALOG.monitor.policy;
    await this.queues.get('monitor').upsertJobScheduler(
      MonitorScheduler.schedulerId(monitor.id),
      { pattern: monitor.schedule.cron, tz: monitor.schedule.timezone },
      {
        name: 'check',
        data,
        opts: {
          attempts: policy.attempts,
          backoff: { type: 'exponential', delay: policy.backoffMs },
          removeOnComplete: { age: policy.retentionSec },
          removeOnFail: { age: policy.retentionSec },
        },
      },
    );
  }

  /** Removes a monitor's job scheduler (paused or deleted); its waiting run goes with it. */
  async unschedule(monitorId: string): Promise<void> {
    await this.queues.get('monitor').removeJobScheduler(MonitorScheduler.schedulerId(monitorId));
  }

  /** Queues a manual run of the check the API recorded as `queued`. */
  async runNow(monitor: { id: string; teamId: string }, checkId: string): Promise<void> {
    const data: MonitorJob = { v: 1, kind: 'check', monitorId: monitor.id, teamId: monitor.teamId, trigger: 'manual', checkId };
    await this.queues.get('monitor').add('check', data, { jobId: `check-${checkId}` });
  }

  /** Tells a running check that one target's crawl or batch ended (one job per check and target). */
  async targetDone(teamId: string, link: NonNullable<CrawlRecord['monitor']>): Promise<void> {
    const data: MonitorJob = { v: 1, kind: 'target-done', teamId, ...link };
    await this.queues.get('monitor').add('target-done', data, { jobId: `target-done-${link.checkId}-${link.targetId}` });
  }
}

/**
 * The `onEnded` hook of a CrawlCoordinator: a crawl or batch that belongs to a monitor check reports
 * its end to the check (from the worker that recorded the last page, the watchdog, or the API that
 * cancelled it).
 */
export function monitorCrawlEnded(scheduler: Pick<MonitorScheduler, 'targetDone'>): (crawl: CrawlRecord) => Promise<void> {
  return async (crawl) => {
    if (crawl.monitor !== undefined) await scheduler.targetDone(crawl.teamId, crawl.monitor);
  };
}
