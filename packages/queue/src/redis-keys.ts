/**
 * The Redis key layout of a deployment. Every key this system writes is built here, with its owner.
 * Keys of one team share the hash tag `{t:<teamId>}` so that the admission and credit scripts, which
 * touch several of them atomically, also work on Redis Cluster.
 *
 * | family | type | owner |
 * |---|---|---|
 * | `<p>:teams` | set of team ids | TeamStore |
 * | `<p>:{t:ID}:team` | hash: name, concurrency, ratePerMinute, credits, creditsUsed, flags, createdAt | TeamStore (credits fields: CreditLedger) |
 * | `<p>:{t:ID}:keys` | hash keyHash -> key record JSON | TeamStore |
 * | `<p>:apikey:<sha256>` | string teamId | TeamStore |
 * | `<p>:{t:ID}:rl:<bucket>:<window>` | counter, expires | RateLimiter |
 * | `<p>:{t:ID}:adm:active` | zset jobId -> next check time (ms) | Admission |
 * | `<p>:{t:ID}:adm:backlog` | zset jobId -> class * 1e13 + sequence | Admission |
 * | `<p>:{t:ID}:adm:pending` | hash jobId -> dispatch spec JSON | Admission |
 * | `<p>:{t:ID}:adm:seq` | counter | Admission |
 * | `<p>:adm:teams` | set of team ids with admitted or waiting jobs | Admission (reaper) |
 * | `<p>:adm:reaper` | lock string | Admission reaper |
 * | `<p>:{t:ID}:last-success` | string ISO time | ResultStore |
 * | `<p>:result:<jobId>` | string JSON, expires | ResultStore |
 * | `<p>:results` | pub/sub channel of finished job ids | ResultStore |
 * | `<p>:{t:ID}:profile:<sha256(name)>` | string JSON browser storage state, no expiry | ProfileStore |
 * | `<p>:{t:ID}:profile:<sha256(name)>:lock` | string jobId of the saving session, expires | ProfileStore |
 * | `{<p>}:bull:*` | BullMQ queues (its own layout) | BullMQ |
 */
export class RedisKeys {
  /** @param prefix deployment prefix, `TRAWL_REDIS_PREFIX` (default `trawl`). */
  constructor(readonly prefix: string) {}

  teams(): string {
    return `${this.prefix}:teams`;
  }
  team(teamId: string): string {
    return `${this.prefix}:{t:${teamId}}:team`;
  }
  teamKeys(teamId: string): string {
    return `${this.prefix}:{t:${teamId}}:keys`;
  }
  apiKey(keyHash: string): string {
    return `${this.prefix}:apikey:${keyHash}`;
  }
  rate(teamId: string, bucket: string, window: number): string {
    return `${this.prefix}:{t:${teamId}}:rl:${bucket}:${window}`;
  }
  admActive(teamId: string): string {
    return `${this.prefix}:{t:${teamId}}:adm:active`;
  }
  admBacklog(teamId: string): string {
    return `${this.prefix}:{t:${teamId}}:adm:backlog`;
  }
  admPending(teamId: string): string {
    return `${this.prefix}:{t:${teamId}}:adm:pending`;
  }
  admSeq(teamId: string): string {
    return `${this.prefix}:{t:${teamId}}:adm:seq`;
  }
  admTeams(): string {
    return `${this.prefix}:adm:teams`;
  }
  admReaperLock(): string {
    return `${this.prefix}:adm:reaper`;
  }
  lastSuccess(teamId: string): string {
    return `${this.prefix}:{t:${teamId}}:last-success`;
  }
  profile(teamId: string, nameHash: string): string {
    return `${this.prefix}:{t:${teamId}}:profile:${nameHash}`;
  }
  profileLock(teamId: string, nameHash: string): string {
    return `${this.prefix}:{t:${teamId}}:profile:${nameHash}:lock`;
  }
  result(jobId: string): string {
    return `${this.prefix}:result:${jobId}`;
  }
  resultsChannel(): string {
    return `${this.prefix}:results`;
  }
  /** BullMQ prefix: a hash tag keeps each queue's keys in one Cluster slot, as BullMQ requires. */
  bullPrefix(): string {
    return `{${this.prefix}}:bull`;
  }
}
