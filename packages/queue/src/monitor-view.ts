import type { z } from 'zod';
import type { monitorCheckPageSchema, monitorCheckSchema, monitorSchema } from '@trawl/api-schema';
import { nextMonitorRun } from './monitor-cron.js';
import type { MonitorCheckRecord, MonitorPageRecord, MonitorRecord } from './monitor-store.js';

/** A monitor as the API returns it. */
export type MonitorView = z.output<typeof monitorSchema>;
/** A check as the API returns it (and `monitor.check.completed` carries it). */
export type MonitorCheckView = z.output<typeof monitorCheckSchema>;
/** A check page as the API returns it (and `monitor.page` carries it). */
export type MonitorPageView = z.output<typeof monitorCheckPageSchema>;

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** The API form of a monitor: ISO times, `nextRunAt` from its cron (null while paused). Pure. */
export function monitorView(m: MonitorRecord, now: Date = new Date()): MonitorView {
  const next = m.status === 'active' ? nextMonitorRun(m.config.schedule, now) : null;
  return {
    id: m.id,
    name: m.config.name,
    status: m.status,
    schedule: m.config.schedule,
    nextRunAt: next === null ? null : next.toISOString(),
    lastRunAt: iso(m.lastRunAt),
    currentCheckId: m.currentCheckId,
    targets: m.config.targets,
    webhook: m.config.webhook ?? null,
    notification: m.config.notification ?? null,
    retentionDays: m.config.retentionDays,
    lastCheckSummary: m.lastCheckSummary,
    createdAt: new Date(m.createdAt).toISOString(),
    updatedAt: new Date(m.updatedAt).toISOString(),
  };
}

/** The API form of a check: ISO times; a scrape target's run is named by its batch id. Pure. */
export function monitorCheckView(c: MonitorCheckRecord): MonitorCheckView {
  return {
    id: c.id,
    monitorId: c.monitorId,
    status: c.status,
    trigger: c.trigger,
    scheduledFor: iso(c.scheduledFor),
    startedAt: iso(c.startedAt),
    finishedAt: iso(c.finishedAt),
    actualCredits: c.actualCredits,
    billingStatus: c.billingStatus,
    summary: c.summary,
    targetResults: c.targetResults.map((r) => {
      if (r.type === 'scrape') return { targetId: r.targetId, type: 'scrape' as const, batchId: r.crawlId };
      if (r.type === 'crawl') return { targetId: r.targetId, type: 'crawl' as const, crawlId: r.crawlId };
      return {
        targetId: r.targetId, type: 'search' as const, batchId: r.crawlId, searchCompleted: r.resultCount !== undefined,
        ...(r.resultCount !== undefined ? { resultCount: r.resultCount } : {}),
        ...(r.searchCredits !== undefined ? { searchCredits: r.searchCredits } : {}),
      };
    }),
    notificationStatus: c.notificationStatus,
    error: c.error,
    createdAt: new Date(c.createdAt).toISOString(),
    updatedAt: new Date(c.updatedAt).toISOString(),
  };
}

/** The API form of a check page. Pure. */
export function monitorPageView(p: MonitorPageRecord): MonitorPageView {
  return { ...p, createdAt: new Date(p.createdAt).toISOString() };
}
