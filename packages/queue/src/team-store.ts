import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RedisKeys } from './redis-keys.js';

/** A team: the unit of authentication, limits and billing. */
export interface Team {
  id: string;
  name: string;
  /** Jobs of this team that may run at once, across all workers. */
  concurrency: number;
  /** API requests per minute (job-status polling has ten times this allowance). */
  ratePerMinute: number;
  /** Credits of the plan; null means unlimited. */
  credits: number | null;
  /** Credits spent so far. */
  creditsUsed: number;
  flags: Record<string, boolean | string | number>;
  /** Switched off by an administrator: its keys are refused and its waiting jobs do not start. */
  disabled: boolean;
  createdAt: string;
}

export interface TeamInput {
  name: string;
  concurrency?: number;
  ratePerMinute?: number;
  credits?: number | null;
  flags?: Record<string, boolean | string | number>;
  disabled?: boolean;
}

export interface ApiKeyRecord {
  keyId: string;
  teamId: string;
  name: string | null;
  /** The first characters of the key, to recognise it in listings. */
  prefix: string;
  createdAt: string;
}

/** Defaults of a new team. */
export const TEAM_DEFAULTS = { concurrency: 2, ratePerMinute: 100 } as const;

/** SHA-256 of a key: the only form in which keys are stored. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A team from its Redis hash; null when there is none (no name). */
export function parseTeam(id: string, h: Record<string, string>): Team | null {
  if (!h.name) return null;
  return {
    id,
    name: h.name,
    concurrency: Number(h.concurrency),
    ratePerMinute: Number(h.ratePerMinute),
    credits: h.credits === undefined || h.credits === '' ? null : Number(h.credits),
    creditsUsed: Number(h.creditsUsed ?? 0),
    flags: h.flags ? (JSON.parse(h.flags) as Team['flags']) : {},
    disabled: h.disabled === '1',
    createdAt: h.createdAt ?? new Date(0).toISOString(),
  };
}

/** Most keys {@link TeamStore.resolveKeyCached} remembers; past it, it starts over (only valid keys are kept). */
const KEY_CACHE_MAX_ENTRIES = 10_000;

/** Teams and their API keys in Redis. Keys are stored hashed; the plain key is returned once. */
export class TeamStore {
  /** Recently resolved valid keys (hash -> team id, resolved at), for {@link resolveKeyCached}. */
  private readonly keyCache = new Map<string, { teamId: string; at: number }>();

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async create(input: TeamInput, id: string = randomUUID()): Promise<Team> {
    const fields: Record<string, string> = {
      name: input.name,
      concurrency: String(input.concurrency ?? TEAM_DEFAULTS.concurrency),
      ratePerMinute: String(input.ratePerMinute ?? TEAM_DEFAULTS.ratePerMinute),
      credits: input.credits === null || input.credits === undefined ? '' : String(input.credits),
      creditsUsed: '0',
      flags: JSON.stringify(input.flags ?? {}),
      disabled: input.disabled ? '1' : '0',
      createdAt: new Date().toISOString(),
    };
    // Two slots on Redis Cluster (the team's hash tag, the global set): sent together, not in a MULTI.
    // The record is written first; a team in the set always has one.
    await Promise.all([this.redis.hset(this.keys.team(id), fields), this.redis.sadd(this.keys.teams(), id)]);
    return parseTeam(id, fields)!;
  }

  async get(id: string): Promise<Team | null> {
    return parseTeam(id, await this.redis.hgetall(this.keys.team(id)));
  }

  async list(): Promise<Team[]> {
    const ids = (await this.redis.smembers(this.keys.teams())).sort();
    const teams = await Promise.all(ids.map((id) => this.get(id)));
    return teams.filter((t): t is Team => t !== null);
  }

  /** Updates the given fields; null when the team does not exist. */
  async update(id: string, patch: Partial<TeamInput>): Promise<Team | null> {
    if (!(await this.get(id))) return null;
    const fields: Record<string, string> = {};
    if (patch.name !== undefined) fields.name = patch.name;
    if (patch.concurrency !== undefined) fields.concurrency = String(patch.concurrency);
    if (patch.ratePerMinute !== undefined) fields.ratePerMinute = String(patch.ratePerMinute);
    if (patch.credits !== undefined) fields.credits = patch.credits === null ? '' : String(patch.credits);
    if (patch.flags !== undefined) fields.flags = JSON.stringify(patch.flags);
    if (patch.disabled !== undefined) fields.disabled = patch.disabled ? '1' : '0';
    if (Object.keys(fields).length > 0) await this.redis.hset(this.keys.team(id), fields);
    return this.get(id);
  }

  /** Creates a key for the team; the plain key is in the result and stored nowhere. */
  async createKey(teamId: string, opts: { name?: string; key?: string } = {}): Promise<{ key: string; record: ApiKeyRecord }> {
    const key = opts.key ?? `tr-${randomBytes(20).toString('hex')}`;
    const hash = hashApiKey(key);
    const record: ApiKeyRecord = {
      keyId: hash.slice(0, 16),
      teamId,
      name: opts.name ?? null,
      prefix: key.slice(0, 8),
      createdAt: new Date().toISOString(),
    };
    // Two slots on Redis Cluster (the key lookup is global, the list is the team's): no MULTI.
    await Promise.all([
      this.redis.set(this.keys.apiKey(hash), teamId),
      this.redis.hset(this.keys.teamKeys(teamId), hash, JSON.stringify(record)),
    ]);
    return { key, record };
  }

  async listKeys(teamId: string): Promise<ApiKeyRecord[]> {
    const all = await this.redis.hvals(this.keys.teamKeys(teamId));
    return all.map((v) => JSON.parse(v) as ApiKeyRecord).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** The team a key belongs to, or null for an unknown key. */
  async resolveKey(key: string): Promise<Team | null> {
    const teamId = await this.redis.get(this.keys.apiKey(hashApiKey(key)));
    return teamId ? this.get(teamId) : null;
  }

  /**
   * {@link resolveKey} with the key's team id remembered in this process for `maxAgeMs` (the gateway's
   * per-request lookup: one Redis round trip instead of two). The team record itself is read every time,
   * so a team disabled or changed (limits, credits) takes effect at once. A key deleted through this
   * instance is forgotten at once; through another process (another gateway replica, a `trawl` admin
   * command) it is refused here within `maxAgeMs`. Only valid keys are remembered.
   */
  async resolveKeyCached(key: string, maxAgeMs: number, now: number = Date.now()): Promise<Team | null> {
    const teamId = await this.teamIdOfKeyCached(key, maxAgeMs, now);
    const team = teamId ? await this.get(teamId) : null;
    if (!team) this.forgetKey(key);
    return team;
  }

  /**
   * The team id of `key`, remembered as {@link resolveKeyCached} does, without reading the team: for a
   * caller that reads the team itself (with its rate limit: `RateLimiter.consumeWithTeam`), and calls
   * {@link forgetKey} when it does not exist. Null for an unknown key.
   */
  async teamIdOfKeyCached(key: string, maxAgeMs: number, now: number = Date.now()): Promise<string | null> {
    const hash = hashApiKey(key);
    const remembered = this.remembered(hash, maxAgeMs, now);
    if (remembered !== undefined) return remembered;
    const teamId = await this.redis.get(this.keys.apiKey(hash));
    if (!teamId) {
      this.keyCache.delete(hash);
      return null;
    }
    if (this.keyCache.size >= KEY_CACHE_MAX_ENTRIES) this.keyCache.clear();
    this.keyCache.set(hash, { teamId, at: now });
    return teamId;
  }

  /** Whether {@link teamIdOfKeyCached} would answer `key` from what it remembers, without a round trip. */
  knowsKey(key: string, maxAgeMs: number, now: number = Date.now()): boolean {
    return this.remembered(hashApiKey(key), maxAgeMs, now) !== undefined;
  }

  /** The team id remembered for a key's hash, if younger than `maxAgeMs`. */
  private remembered(hash: string, maxAgeMs: number, now: number): string | undefined {
    const cached = this.keyCache.get(hash);
    return cached !== undefined && now - cached.at < maxAgeMs ? cached.teamId : undefined;
  }

  /** Forgets what {@link teamIdOfKeyCached} remembered of `key` (its team is gone). */
  forgetKey(key: string): void {
    this.keyCache.delete(hashApiKey(key));
  }

  /** Whether an administrator disabled the team. */
  async isDisabled(teamId: string): Promise<boolean> {
    return (await this.redis.hget(this.keys.team(teamId), 'disabled')) === '1';
  }

  /**
   * What a job's start checks of its team, in one read: whether it is disabled, and its credit
   * fields (`credits` empty or absent: unlimited; see `creditShortfall`).
   */
  async gateState(teamId: string): Promise<{ disabled: boolean; credits: string | null; creditsUsed: string | null }> {
    const [disabled, credits, creditsUsed] = await this.redis.hmget(this.keys.team(teamId), 'disabled', 'credits', 'creditsUsed');
    return { disabled: disabled === '1', credits: credits ?? null, creditsUsed: creditsUsed ?? null };
  }

  /**
   * Deletes a key given in plain form or by its `keyId` (what listings show); false when no key
   * matched. The plain form is tried first; a keyId is looked up in `teamId`'s keys, or in every
   * team's when no team is given (an admin operation: a scan of the teams is fine).
   */
  async deleteKey(keyOrId: string, opts: { teamId?: string } = {}): Promise<boolean> {
    const plain = hashApiKey(keyOrId);
    const owner = await this.redis.get(this.keys.apiKey(plain));
    if (owner && (opts.teamId === undefined || opts.teamId === owner)) return this.removeKey(owner, plain);
    if (!/^[0-9a-f]{16}$/.test(keyOrId)) return false;
    const teamIds = opts.teamId !== undefined ? [opts.teamId] : await this.redis.smembers(this.keys.teams());
    for (const teamId of teamIds) {
      const hash = (await this.redis.hkeys(this.keys.teamKeys(teamId))).find((h) => h.startsWith(keyOrId));
      if (hash) return this.removeKey(teamId, hash);
    }
    return false;
  }

  private async removeKey(teamId: string, hash: string): Promise<boolean> {
    // Two slots on Redis Cluster: no MULTI. The lookup goes first: a key no longer resolves at once.
    this.keyCache.delete(hash);
    const removed = await Promise.all([this.redis.del(this.keys.apiKey(hash)), this.redis.hdel(this.keys.teamKeys(teamId), hash)]);
    this.keyCache.delete(hash); // resolved again while the deletion was under way
    return removed.some((n) => n > 0);
  }

  /**
   * Makes `key` a key of the team named `teamName` (created when missing). Used for
   * `TRAWL_BOOTSTRAP_API_KEY` and the embedded mode's printed key; idempotent across restarts.
   */
  async ensureKey(key: string, teamName: string): Promise<Team> {
    const existing = await this.resolveKey(key);
    if (existing) return existing;
    const team = (await this.list()).find((t) => t.name === teamName) ?? (await this.create({ name: teamName }));
    await this.createKey(team.id, { key, name: 'bootstrap' });
    return team;
  }
}
