import { createHash } from 'node:crypto';
import { TrawlError } from '@trawl/api-schema';
import type { Redis } from 'ioredis';
import type { RedisKeys } from './redis-keys.js';
import { releaseLockScript } from './redis-script.js';

/** Releases the lock only when the caller still owns it. KEYS[1] lock; ARGV[1] owner. */
/**
 * Persistent browser profiles (`profile: {name, saveChanges}`): the storage state (cookies,
 * localStorage) of a team's named profile, kept without expiry, plus the lock that lets only one
 * session at a time save into a profile. Names are hashed into keys, so any string of 1-128
 * characters is a safe name.
 */
export class ProfileStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  private hash(name: string): string {
    return createHash('sha256').update(name).digest('hex');
  }

  /** The saved state, or undefined for a profile never saved. */
  async load(teamId: string, name: string): Promise<unknown> {
    const raw = await this.redis.get(this.keys.profile(teamId, this.hash(name)));
    return raw === null ? undefined : JSON.parse(raw);
  }

  async save(teamId: string, name: string, state: unknown): Promise<void> {
    await this.redis.set(this.keys.profile(teamId, this.hash(name)), JSON.stringify(state));
  }

  /**
   * Takes the profile's saving lock for `owner` (a job id) for `ttlMs` (the job's remaining budget
   * plus a margin, so a crashed session frees it). Re-entrant for the same owner (a retried job).
   * Throws PROFILE_LOCKED when another session holds it.
   */
  async lockForSaving(teamId: string, name: string, owner: string, ttlMs: number): Promise<void> {
    const key = this.keys.profileLock(teamId, this.hash(name));
    const ok = await this.redis.set(key, owner, 'PX', Math.max(1000, Math.ceil(ttlMs)), 'NX');
    if (ok) return;
    if ((await this.redis.get(key)) === owner) {
      await this.redis.pexpire(key, Math.max(1000, Math.ceil(ttlMs)));
      return;
    }
    throw new TrawlError('PROFILE_LOCKED', `Another session is saving changes to the profile "${name}"; only one may at a time`, {
      details: { profile: name },
    });
  }

  async unlock(teamId: string, name: string, owner: string): Promise<void> {
    await releaseLockScript.run(this.redis, [this.keys.profileLock(teamId, this.hash(name))], [owner]);
  }
}
