import type { Redis } from 'ioredis';
import type { RedisKeys } from './redis-keys.js';
import { admitScript, releaseScript, updateSpecScript, withdrawScript } from './admission-scripts.js';

/** Priority class inside a team: interactive (sync scrapes) before bulk (crawl and batch pages). */
export type PriorityClass = 'interactive' | 'bulk';

/** What is needed to hand an admitted job to BullMQ; stored while the job is admitted or waiting. */
export interface DispatchSpec {
  jobId: string;
  teamId: string;
  /** BullMQ queue name (from the job catalog). */
  queue: string;
  /** BullMQ job name. */
  name: string;
  /**
   * The job payload, validated again by the worker. Opaque here: producers submit through
   * JobDispatcher.submit, whose JobSpec types it by the job catalog.
   */
  data: Record<string, unknown>;
  priorityClass: PriorityClass;
  /** When the job was submitted (ms since epoch). */
  enqueuedAt: number;
  /**
   * Set by a producer that built `data` in this process with a request the scrape request schema
   * parsed (the API's scrape routes, a search's result pages): a local run that starts it at once may
   * use it as it is (the worker's `JobRun.fresh`). Never for a payload built from stored options.
   */
  validated?: boolean;
}

/** A job that got a slot, with how long it waited for it. */
export interface PromotedJob {
  spec: DispatchSpec;
  /** True when the job waited in its team's backlog. */
  limited: boolean;
  /** Time spent waiting for the slot, in ms (0 when not limited). */
  waitMs: number;
}

export type AdmitOutcome =
  | { status: 'admitted'; promoted: PromotedJob[] }
  | { status: 'queued'; position: number; promoted: PromotedJob[] }
  | { status: 'duplicate' | 'backlog-full'; promoted: [] };

export interface AdmissionOptions {
  /** Waiting jobs a team may have before new ones get 429. Default 10000. */
  backlogCap?: number;
  /** How long after admission (or a check) the reaper looks at an admitted job again, ms. Default 15000. */
  checkAfterMs?: number;
  /** Concurrency of a team with no record (should not happen). Default 2. */
  defaultConcurrency?: number;
  now?: () => number;
}

/**
 * Per-team concurrency groups: atomic admission, release and withdrawal in Redis (Lua). It decides
 * who runs; handing promoted jobs to BullMQ is the caller's (JobDispatcher's) job.
 */
export class Admission {
  readonly backlogCap: number;
  readonly checkAfterMs: number;
  private readonly defaultConcurrency: number;
  private readonly now: () => number;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    opts: AdmissionOptions = {},
  ) {
    this.backlogCap = opts.backlogCap ?? 10_000;
    this.checkAfterMs = opts.checkAfterMs ?? 15_000;
    this.defaultConcurrency = opts.defaultConcurrency ?? 2;
    this.now = opts.now ?? Date.now;
  }

  async admit(spec: DispatchSpec): Promise<AdmitOutcome> {
    const k = this.keys;
    const t = spec.teamId;
    const now = this.now();
    // The reaper's set of teams to look at goes first, in the same round trip: a team is in it before
    // any of its jobs is admitted (one that admitted nothing is dropped by the reaper's next pass).
    const [, raw] = await Promise.all([
      this.redis.sadd(k.admTeams(), t),
      admitScript.run(this.redis, [k.admActive(t), k.admBacklog(t), k.admPending(t), k.admSeq(t), k.team(t)], [
        spec.jobId, String(now), String(this.checkAfterMs), spec.priorityClass === 'interactive' ? '0' : '1',
        JSON.stringify(spec), String(this.backlogCap), String(this.defaultConcurrency),
      ]),
    ]);
    const status = raw[0];
    if (status === 'dup') return { status: 'duplicate', promoted: [] };
    if (status === 'full') return { status: 'backlog-full', promoted: [] };
    const promoted = this.decodePromoted(raw, now, spec);
    const position = Number(raw[1]);
    return position > 0 ? { status: 'queued', position, promoted } : { status: 'admitted', promoted };
  }

  /** Frees the job's slot (or backlog place) and returns the jobs promoted into free slots. */
  async release(teamId: string, jobId: string): Promise<{ released: boolean; promoted: PromotedJob[] }> {
    const k = this.keys;
    const now = this.now();
    const raw = await releaseScript.run(this.redis, [k.admActive(teamId), k.admBacklog(teamId), k.admPending(teamId), k.team(teamId)], [
      jobId, String(now), String(this.checkAfterMs), String(this.defaultConcurrency),
    ]);
    return { released: Number(raw[0]) === 1, promoted: this.decodePromoted(raw, now) };
  }

  /** Removes a job still waiting for a slot; false when it was already admitted (or is unknown). */
  async withdraw(teamId: string, jobId: string): Promise<boolean> {
    const k = this.keys;
    return withdrawScript.run(this.redis, [k.admBacklog(teamId), k.admPending(teamId)], [jobId]);
  }

  /** Jobs of the team holding a slot and waiting for one. */
  async counts(teamId: string): Promise<{ active: number; waiting: number }> {
    const [active, waiting] = await Promise.all([
      this.redis.zcard(this.keys.admActive(teamId)),
      this.redis.zcard(this.keys.admBacklog(teamId)),
    ]);
    return { active, waiting };
  }

  /** The stored dispatch spec of an admitted or waiting job. */
  async spec(teamId: string, jobId: string): Promise<DispatchSpec | null> {
    const raw = await this.redis.hget(this.keys.admPending(teamId), jobId);
    return raw ? (JSON.parse(raw) as DispatchSpec) : null;
  }

  /** Replaces the stored spec of a job still admitted or waiting (no effect otherwise). */
  async updateSpec(teamId: string, spec: DispatchSpec): Promise<void> {
    await updateSpecScript.run(this.redis, [this.keys.admPending(teamId)], [spec.jobId, JSON.stringify(spec)]);
  }

  /** Admitted jobs of the team whose next check time has passed. */
  async dueForCheck(teamId: string, limit = 100): Promise<string[]> {
    return this.redis.zrangebyscore(this.keys.admActive(teamId), '-inf', this.now(), 'LIMIT', 0, limit);
  }

  /** Pushes an admitted job's next check time forward; no effect on a job no longer admitted. */
  async extend(teamId: string, jobId: string): Promise<void> {
    await this.redis.zadd(this.keys.admActive(teamId), 'XX', this.now() + this.checkAfterMs, jobId);
  }

  private decodePromoted(raw: (string | number)[], now: number, admittedNow?: DispatchSpec): PromotedJob[] {
    const out: PromotedJob[] = [];
    for (let i = 2; i + 1 < raw.length; i += 2) {
      const specJson = String(raw[i + 1]);
      if (!specJson) continue;
      // The job admitted by this very call is the spec in hand: not parsed back from its JSON.
      const spec = admittedNow && String(raw[i]) === admittedNow.jobId ? admittedNow : JSON.parse(specJson) as DispatchSpec;
      const limited = spec.jobId !== admittedNow?.jobId;
      out.push({ spec, limited, waitMs: limited ? Math.max(0, now - spec.enqueuedAt) : 0 });
    }
    return out;
  }
}
