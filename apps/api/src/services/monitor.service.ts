import { randomUUID } from 'node:crypto';
import {
  TrawlError, monitorScrapeOptions, requiredCapabilities,
  type Capability, type CreateMonitorRequest, type MonitorConfig, type MonitorNotification, type MonitorPageStatus,
  type MonitorTarget, type MonitorTargetInput, type UpdateMonitorRequest,
} from '@trawl/api-schema';
import {
  EMPTY_SUMMARY, assertMonitorSchedule,
  type MonitorCheckRecord, type MonitorPageRecord, type MonitorRecord, type MonitorScheduler, type MonitorStore, type Team,
} from '@trawl/queue';
import { missingCapabilityError } from './assert-capabilities.js';
import { assertWebhookTargetAllowed } from '../assert-webhook-target-allowed.js';

export interface MonitorServiceDeps {
  store: MonitorStore;
  scheduler: Pick<MonitorScheduler, 'schedule' | 'unschedule' | 'runNow'>;
  capabilities: ReadonlySet<Capability>;
  /** Webhooks may point at private addresses (`TRAWL_WEBHOOK_ALLOW_PRIVATE` or `TRAWL_ALLOW_PRIVATE_TARGETS`). */
  webhookAllowPrivate: boolean;
  /** A search provider serves web search (`search` targets). Default false. */
  webSearch?: boolean;
  /** Shortest time between two runs of a schedule, seconds (`TRAWL_MONITOR_MIN_INTERVAL_SEC`). */
  minIntervalSec: number;
  now?: () => number;
}

/** One page of a check's pages. */
export interface MonitorCheckPage {
  check: MonitorCheckRecord;
  pages: MonitorPageRecord[];
  /** Skip value of the next page of pages, when there is one. */
  nextSkip?: number;
}

function unsupported(option: string, capability: string, message: string): TrawlError {
  return new TrawlError('UNSUPPORTED_OPTION', message, { details: { option, capability } });
}

/**
 * Monitors at the gateway: validation beyond the schema (schedule with cron-parser and the minimum
 * interval, options nothing serves here, capabilities, webhook target), records, BullMQ job
 * schedulers, manual runs, and reads of checks. The checks themselves run on the workers.
 */
export class MonitorService {
  private readonly now: () => number;

  constructor(private readonly deps: MonitorServiceDeps) {
    this.now = deps.now ?? Date.now;
  }

  async create(team: Team, request: CreateMonitorRequest): Promise<MonitorRecord> {
    this.assertNoJudge(request);
    const config: MonitorConfig = {
      name: request.name,
      schedule: request.schedule,
      targets: withIds(request.targets, []),
      retentionDays: request.retentionDays,
      ...(request.webhook ? { webhook: request.webhook } : {}),
      ...(request.notification ? { notification: request.notification } : {}),
    };
    this.assertRunnable(config);
    const now = this.now();
    const record: MonitorRecord = {
      id: randomUUID(), teamId: team.id, config, status: 'active', currentCheckId: null, currentCheckAt: null,
      lastRunAt: null, lastCheckSummary: null, createdAt: now, updatedAt: now,
    };
    // The scheduler first: one whose record never got written removes itself when it fires.
    await this.deps.scheduler.schedule({ id: record.id, teamId: team.id, schedule: config.schedule });
    await this.deps.store.create(record);
    return record;
  }

  async list(team: Team, opts: { offset: number; limit: number }): Promise<MonitorRecord[]> {
    return this.deps.store.list(team.id, opts);
  }

  /** A monitor of this team; 404 otherwise, whatever the reason. */
  async find(team: Team, id: string): Promise<MonitorRecord> {
    const record = await this.deps.store.get(id);
    if (!record || record.teamId !== team.id) throw new TrawlError('NOT_FOUND', 'Monitor not found');
    return record;
  }

  async update(team: Team, id: string, request: UpdateMonitorRequest): Promise<MonitorRecord> {
    this.assertNoJudge(request);
    const current = await this.find(team, id);
    const { webhook, notification, ...rest } = current.config;
    const nextWebhook = request.webhook === undefined ? webhook : (request.webhook ?? undefined);
    const nextNotification = request.notification === undefined ? notification : (request.notification ?? undefined);
    const config: MonitorConfig = {
      ...rest,
      ...(request.name !== undefined ? { name: request.name } : {}),
      ...(request.schedule !== undefined ? { schedule: request.schedule } : {}),
      ...(request.targets !== undefined ? { targets: withIds(request.targets, current.config.targets) } : {}),
      ...(request.retentionDays !== undefined ? { retentionDays: request.retentionDays } : {}),
      ...(nextWebhook !== undefined ? { webhook: nextWebhook } : {}),
      ...(nextNotification !== undefined ? { notification: nextNotification } : {}),
    };
    this.assertRunnable(config);
    const status = request.status ?? current.status;
    const scheduleChanged = config.schedule.cron !== current.config.schedule.cron || config.schedule.timezone !== current.config.schedule.timezone;
    // Resume or reschedule before the record says so, pause after it: a run that fires in between
    // finds a paused monitor and removes its scheduler, never an active one without a scheduler.
    if (status === 'active' && (current.status !== 'active' || scheduleChanged)) {
      await this.deps.scheduler.schedule({ id, teamId: team.id, schedule: config.schedule });
    }
    if (!(await this.deps.store.update(id, { config, status, updatedAt: this.now() }))) throw new TrawlError('NOT_FOUND', 'Monitor not found');
    if (status === 'paused' && current.status !== 'paused') await this.deps.scheduler.unschedule(id);
    return (await this.deps.store.get(id)) ?? { ...current, config, status };
  }

  async delete(team: Team, id: string): Promise<void> {
    const record = await this.find(team, id);
    await this.deps.store.delete(record);
    await this.deps.scheduler.unschedule(id);
  }

  /** Queues a manual check (paused monitors too) and returns it, `queued`. */
  async run(team: Team, id: string): Promise<MonitorCheckRecord> {
    const monitor = await this.find(team, id);
    const now = this.now();
    const check: MonitorCheckRecord = {
      id: randomUUID(), monitorId: id, status: 'queued', trigger: 'manual', scheduledFor: null, startedAt: null, finishedAt: null,
      actualCredits: null, billingStatus: 'not_applicable', summary: EMPTY_SUMMARY, targetResults: [], notificationStatus: null, error: null,
      createdAt: now, updatedAt: now,
    };
    if (!(await this.deps.store.putCheck(check, ['none']))) throw new TrawlError('NOT_FOUND', 'Monitor not found');
    await this.deps.scheduler.runNow(monitor, check.id);
    return check;
  }

  /** A page of the monitor's checks, newest first; `nextOffset` when more follow. */
  async checks(team: Team, id: string, opts: { offset: number; limit: number }): Promise<{ checks: MonitorCheckRecord[]; nextOffset?: number }> {
    await this.find(team, id);
    // One more than asked tells whether another page exists.
    const checks = await this.deps.store.listChecks(id, { offset: opts.offset, limit: opts.limit + 1 });
    if (checks.length <= opts.limit) return { checks };
    return { checks: checks.slice(0, opts.limit), nextOffset: opts.offset + opts.limit };
  }

  async check(team: Team, id: string, checkId: string, opts: { skip: number; limit: number; status?: MonitorPageStatus }): Promise<MonitorCheckPage> {
    await this.find(team, id);
    const check = await this.deps.store.getCheck(id, checkId);
    if (!check) throw new TrawlError('NOT_FOUND', 'Monitor check not found');
    const { pages, more } = await this.deps.store.pages(id, checkId, opts);
    return { check, pages, ...(more ? { nextSkip: opts.skip + pages.length } : {}) };
  }

  /** `goal` and `judgeEnabled` need the LLM judge; email needs a mailer. Neither exists here. */
  private assertNoJudge(request: { goal?: string | null | undefined; judgeEnabled?: boolean | undefined }): void {
    if (request.goal !== undefined && request.goal !== null && request.goal !== '') {
      throw unsupported('goal', 'llm', 'The option goal needs the LLM judge, which is not available on this server yet');
    }
    if (request.judgeEnabled === true) {
      throw unsupported('judgeEnabled', 'llm', 'The option judgeEnabled needs the LLM judge, which is not available on this server yet');
    }
  }

  /** Everything a configuration needs that the schema cannot check. */
  private assertRunnable(config: MonitorConfig): void {
    assertMonitorSchedule(config.schedule, { minIntervalSec: this.deps.minIntervalSec });
    if (emailEnabled(config.notification)) {
      throw unsupported('notification.email', 'email', 'Email notifications are not available on this server; use a webhook');
    }
    if (config.webhook) assertWebhookTargetAllowed(config.webhook.url, { allowPrivate: this.deps.webhookAllowPrivate });
    config.targets.forEach((target, i) => this.assertTarget(target, `targets[${i}]`));
  }

  private assertTarget(target: MonitorTarget, path: string): void {
    if (target.type === 'search') {
      if (this.deps.webSearch !== true) {
        throw unsupported(path, 'search', `Search targets (${path}) need web search, which is turned off on this server (TRAWL_SEARCH_PROVIDER=none)`);
      }
      return;
    }
    if (target.type === 'crawl' && target.crawlOptions.prompt !== undefined) {
      throw unsupported(`${path}.crawlOptions.prompt`, 'llm', `The option ${path}.crawlOptions.prompt needs the LLM layer, which is not available on this server yet`);
    }
    const effective = monitorScrapeOptions(target.scrapeOptions, 'check', 'target');
    for (const req of requiredCapabilities(effective)) {
      if (this.deps.capabilities.has(req.capability)) continue;
      const option = givenOption(target.scrapeOptions.formats, effective.formats, req.option);
      if (option === null) {
        // Added by the monitor itself: the deployment cannot compare pages at all.
        throw unsupported(path, req.capability, 'Monitors compare pages with change tracking, which is not available on this server yet');
      }
      throw missingCapabilityError(req.capability, `${path}.scrapeOptions.${option}`);
    }
  }
}

/**
 * The option path in the caller's scrape options of a requirement found on the effective ones (the
 * monitor adds formats, which moves indexes); null for a format the monitor added.
 */
function givenOption(given: readonly { type: string }[], effective: readonly { type: string }[], option: string): string | null {
  const m = /^formats\[(\d+)\]$/.exec(option);
  if (!m) return option;
  const type = effective[Number(m[1])]?.type;
  const index = given.findIndex((f) => f.type === type);
  return index < 0 ? null : `formats[${index}]`;
}

function emailEnabled(notification: MonitorNotification | undefined): boolean {
  const email = notification?.email;
  if (email === undefined) return false;
  return email.enabled === true || (email.enabled === undefined && (email.recipients?.length ?? 0) > 0);
}

/**
 * Targets with ids: the id given, else the id of the current target of the same type and URLs (an
 * update that resends the targets keeps their history), else a new UUID.
 */
function withIds(targets: readonly MonitorTargetInput[], current: readonly MonitorTarget[]): MonitorTarget[] {
  const taken = new Set(targets.flatMap((t) => (t.id === undefined ? [] : [t.id])));
  return targets.map((t) => {
    if (t.id !== undefined) return { ...t, id: t.id } as MonitorTarget;
    const match = current.find((c) => !taken.has(c.id) && sameSubject(c, t));
    const id = match?.id ?? randomUUID();
    taken.add(id);
    return { ...t, id } as MonitorTarget;
  });
}

function sameSubject(a: MonitorTarget, b: MonitorTargetInput): boolean {
  if (a.type === 'scrape' && b.type === 'scrape') return a.urls.join('\n') === b.urls.join('\n');
  if (a.type === 'crawl' && b.type === 'crawl') return a.url === b.url;
  if (a.type === 'search' && b.type === 'search') return a.queries.join('\n') === b.queries.join('\n');
  return false;
}
