import type { Redis } from 'ioredis';
import {
  MONITOR_PAGE_STATUSES, monitorConfigSchema,
  type MonitorCheckStatus, type MonitorConfig, type MonitorPageStatus, type MonitorStatus, type MonitorSummary,
} from '@trawl/api-schema';
import { finishCheckScript, hsetIfExistsScript, putCheckScript, startCheckScript } from './monitor-scripts.js';
import type { RedisKeys } from './redis-keys.js';

/** A monitor as stored. Times are ms since epoch. */
export interface MonitorRecord {
  id: string;
  teamId: string;
  config: MonitorConfig;
  status: MonitorStatus;
  /** The check running now, if any (one at a time). */
  currentCheckId: string | null;
  currentCheckAt: number | null;
  lastRunAt: number | null;
  lastCheckSummary: MonitorSummary | null;
  createdAt: number;
  updatedAt: number;
}

/**
 * The crawl or batch one target of a check runs (`crawlId` is the id of either). A `search` target
 * runs a batch of the pages its queries found: `resultCount` and `searchCredits` once searched.
 */
export interface MonitorTargetRun {
  targetId: string;
  type: 'scrape' | 'crawl' | 'search';
  crawlId: string;
  resultCount?: number;
  searchCredits?: number;
  /** The queries of a `search` target that failed, and why. */
  searchError?: string;
}

/** Whether a check's webhooks went out. */
export type MonitorNotificationStatus = { webhook: 'sent' | 'no_change' | 'no_webhook' };

/** A check (one run of a monitor) as stored. Times are ms since epoch. */
export interface MonitorCheckRecord {
  id: string;
  monitorId: string;
  status: MonitorCheckStatus;
  trigger: 'scheduled' | 'manual';
  scheduledFor: number | null;
  startedAt: number | null;
  finishedAt: number | null;
  actualCredits: number | null;
  billingStatus: 'not_applicable' | 'confirmed';
  summary: MonitorSummary;
  targetResults: MonitorTargetRun[];
  notificationStatus: MonitorNotificationStatus | null;
  error: string | null;
  createdAt: number;
  updatedAt: number;
}

/** One page of a check. */
export interface MonitorPageRecord {
  id: string;
  targetId: string;
  url: string;
  status: MonitorPageStatus;
  currentScrapeId: string | null;
  statusCode: number | null;
  error: string | null;
  metadata?: Record<string, unknown>;
  diff: { text: string } | null;
  createdAt: number;
}

/** The outcome of {@link MonitorStore.startCheck}. */
export type StartCheckOutcome =
  | { kind: 'missing' }
  | { kind: 'exists'; status: MonitorCheckStatus }
  | { kind: 'overlap'; currentCheckId: string }
  | { kind: 'started'; replacedCheckId: string | null };

/** A summary with nothing counted. */
export const EMPTY_SUMMARY: MonitorSummary = Object.freeze({ totalPages: 0, same: 0, changed: 0, new: 0, removed: 0, error: 0 });

/** Checks deleted per MULTI when a monitor goes or old checks are pruned. */
const DELETE_CHUNK = 100;

/**
 * Monitors, their checks and the pages of each check in Redis (owner of the `{m:ID}` key family and
 * of `{t:ID}:monitors`). Changes that must not interleave (starting a check, finishing it) are Lua
 * scripts over one monitor's keys.
 */
export class MonitorStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async create(record: MonitorRecord): Promise<void> {
    await this.redis.hset(this.keys.monitor(record.id), {
      teamId: record.teamId, config: JSON.stringify(record.config), status: record.status,
      currentCheckId: '', currentCheckAt: '', lastRunAt: '', lastCheckSummary: '',
      createdAt: record.createdAt, updatedAt: record.updatedAt,
    });
    // Another slot: a crash in between leaves a monitor no listing shows, never a listed ghost.
    await this.redis.zadd(this.keys.teamMonitors(record.teamId), record.createdAt, record.id);
  }

  async get(monitorId: string): Promise<MonitorRecord | null> {
    const h = await this.redis.hgetall(this.keys.monitor(monitorId));
    if (!h.teamId || !h.config) return null;
    const num = (v: string | undefined) => (v === undefined || v === '' ? null : Number(v));
    return {
      id: monitorId,
      teamId: h.teamId,
      // Parsed on every read: the writer may be another version of the code.
      config: monitorConfigSchema.parse(JSON.parse(h.config)),
      status: h.status === 'paused' ? 'paused' : 'active',
      currentCheckId: h.currentCheckId || null,
      currentCheckAt: num(h.currentCheckAt),
      lastRunAt: num(h.lastRunAt),
      lastCheckSummary: h.lastCheckSummary ? (JSON.parse(h.lastCheckSummary) as MonitorSummary) : null,
      createdAt: num(h.createdAt) ?? 0,
      updatedAt: num(h.updatedAt) ?? 0,
    };
  }

  /** Changes the configuration and/or status of a monitor that still exists; false when it is gone. */
  async update(monitorId: string, change: { config?: MonitorConfig; status?: MonitorStatus; updatedAt: number }): Promise<boolean> {
    const args: string[] = ['updatedAt', String(change.updatedAt)];
    if (change.config !== undefined) args.push('config', JSON.stringify(change.config));
    if (change.status !== undefined) args.push('status', change.status);
    return hsetIfExistsScript.run(this.redis, [this.keys.monitor(monitorId)], args);
  }

  /** Deletes a monitor with its checks and pages. The record goes first: a running check then finds nothing. */
  async delete(monitor: Pick<MonitorRecord, 'id' | 'teamId'>): Promise<void> {
    await this.redis.del(this.keys.monitor(monitor.id));
    await this.redis.zrem(this.keys.teamMonitors(monitor.teamId), monitor.id);
    const ids = await this.redis.zrange(this.keys.monitorChecks(monitor.id), 0, -1);
    await this.deleteChecks(monitor.id, ids);
    await this.redis.del(this.keys.monitorChecks(monitor.id));
  }

  /** The team's monitors, newest first. */
  async list(teamId: string, opts: { offset: number; limit: number }): Promise<MonitorRecord[]> {
    const ids = await this.redis.zrevrange(this.keys.teamMonitors(teamId), opts.offset, opts.offset + opts.limit - 1);
    const records = await Promise.all(ids.map((id) => this.get(id)));
    return records.filter((r): r is MonitorRecord => r !== null && r.teamId === teamId);
  }

  /** Records a check when its monitor exists and the check is in one of `from` (`none`: not recorded yet). */
  async putCheck(check: MonitorCheckRecord, from: readonly (MonitorCheckStatus | 'none')[]): Promise<boolean> {
    const [hash] = this.keys.monitorCheck(check.monitorId, check.id) as [string];
    return putCheckScript.run(this.redis, [this.keys.monitor(check.monitorId), this.keys.monitorChecks(check.monitorId), hash], [
      check.id, check.status, JSON.stringify(check), check.createdAt, from.join(' '),
    ]);
  }

  /**
   * Starts a check unless another one runs (then it is recorded with `skipped`, `skipped_overlap`).
   * A current check that started before `staleBefore` no longer counts: it is replaced (and named).
   */
  async startCheck(running: MonitorCheckRecord, skipped: MonitorCheckRecord, staleBefore: number): Promise<StartCheckOutcome> {
    const [hash] = this.keys.monitorCheck(running.monitorId, running.id) as [string];
    const raw = await startCheckScript.run(this.redis, [this.keys.monitor(running.monitorId), this.keys.monitorChecks(running.monitorId), hash], [
      running.id, running.startedAt ?? Date.now(), JSON.stringify(running), JSON.stringify(skipped), staleBefore, running.createdAt,
    ]);
    switch (raw[0]) {
      case 'missing':
        return { kind: 'missing' };
      case 'exists':
        return { kind: 'exists', status: raw[1] as MonitorCheckStatus };
      case 'overlap':
        return { kind: 'overlap', currentCheckId: raw[1] ?? '' };
      default:
        return { kind: 'started', replacedCheckId: raw[1] ? raw[1] : null };
    }
  }

  async getCheck(monitorId: string, checkId: string): Promise<MonitorCheckRecord | null> {
    const json = await this.redis.hget(this.keys.monitorCheck(monitorId, checkId)[0]!, 'json');
    return json ? (JSON.parse(json) as MonitorCheckRecord) : null;
  }

  /** The monitor's checks, newest first. */
  async listChecks(monitorId: string, opts: { offset: number; limit: number }): Promise<MonitorCheckRecord[]> {
    const ids = await this.redis.zrevrange(this.keys.monitorChecks(monitorId), opts.offset, opts.offset + opts.limit - 1);
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hget(this.keys.monitorCheck(monitorId, id)[0]!, 'json');
    const out: MonitorCheckRecord[] = [];
    for (const [err, json] of (await pipeline.exec()) ?? []) {
      if (!err && typeof json === 'string') out.push(JSON.parse(json) as MonitorCheckRecord);
    }
    return out;
  }

  /** Marks one target of a check as ended; returns how many targets have ended. Idempotent. */
  async markTargetDone(monitorId: string, checkId: string, targetId: string): Promise<number> {
    const done = this.keys.monitorCheck(monitorId, checkId)[7]!;
    const res = await this.redis.multi().sadd(done, targetId).scard(done).exec();
    return Number(res?.[1]?.[1] ?? 0);
  }

  /**
   * Stores a running check's final record and pages (once) and updates its monitor; false when the
   * check was not running any more (finished by an earlier attempt).
   */
  async finishCheck(check: MonitorCheckRecord, pages: readonly MonitorPageRecord[]): Promise<boolean> {
    const k = this.keys.monitorCheck(check.monitorId, check.id);
    const args: (string | number)[] = [check.id, check.status, JSON.stringify(check), JSON.stringify(check.summary)];
    for (const page of pages) args.push(MONITOR_PAGE_STATUSES.indexOf(page.status) + 1, JSON.stringify(page));
    return finishCheckScript.run(this.redis, [this.keys.monitor(check.monitorId), ...k.slice(0, 7)], args);
  }

  /**
   * Pages of a check from `skip`, at most `limit` of them, optionally of one status. `more` says
   * whether further pages exist.
   */
  async pages(monitorId: string, checkId: string, opts: { skip: number; limit: number; status?: MonitorPageStatus }): Promise<{ pages: MonitorPageRecord[]; more: boolean }> {
    const k = this.keys.monitorCheck(monitorId, checkId);
    const end = opts.skip + opts.limit; // one more than asked: tells whether there are more
    let raw: string[];
    if (opts.status === undefined) {
      raw = await this.redis.lrange(k[1]!, opts.skip, end);
    } else {
      const indexes = await this.redis.lrange(k[2 + MONITOR_PAGE_STATUSES.indexOf(opts.status)]!, opts.skip, end);
      if (indexes.length === 0) return { pages: [], more: false };
      const pipeline = this.redis.pipeline();
      for (const i of indexes) pipeline.lindex(k[1]!, Number(i));
      raw = ((await pipeline.exec()) ?? []).map(([, v]) => v).filter((v): v is string => typeof v === 'string');
    }
    return { pages: raw.slice(0, opts.limit).map((p) => JSON.parse(p) as MonitorPageRecord), more: raw.length > opts.limit };
  }

  /** Deletes the checks created before `cutoffMs`, except `keep` (the running one). Returns how many. */
  async prune(monitorId: string, cutoffMs: number, keep: string | null): Promise<number> {
    const ids = (await this.redis.zrangebyscore(this.keys.monitorChecks(monitorId), '-inf', `(${cutoffMs}`)).filter((id) => id !== keep);
    await this.deleteChecks(monitorId, ids);
    return ids.length;
  }

  private async deleteChecks(monitorId: string, ids: readonly string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += DELETE_CHUNK) {
      const chunk = ids.slice(i, i + DELETE_CHUNK);
      // One slot ({m:ID}): a MULTI is atomic on Cluster too.
      await this.redis
        .multi()
        .del(...chunk.flatMap((id) => this.keys.monitorCheck(monitorId, id)))
        .zrem(this.keys.monitorChecks(monitorId), ...chunk)
        .exec();
    }
  }
}
