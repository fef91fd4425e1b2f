import type { Redis } from 'ioredis';
import { QUEUE_NAMES, type QueueName } from './job-catalog.js';
import { redisPrimaries } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';
import { defineScript } from './redis-script.js';

/** BullMQ job states as metric label values. */
export const QUEUE_JOB_STATES = ['waiting', 'prioritized', 'delayed', 'active', 'waiting_children', 'paused', 'failed', 'completed'] as const;
export type QueueJobState = (typeof QUEUE_JOB_STATES)[number];

export interface QueueStats {
  queue: QueueName;
  counts: Record<QueueJobState, number>;
  /** Jobs a worker could take now: waiting, prioritized, and delayed jobs already due. */
  ready: number;
  /** Age in seconds of the oldest ready job (when it became ready), 0 when none. */
  oldestReadySec: number;
}

export interface RedisMemory {
  usedBytes: number;
  /** `maxmemory`; 0 means no limit. */
  maxBytes: number;
}

/**
 * One queue's counts in a single round trip. BullMQ's layout: `wait`, `paused` and `active` are lists
 * (workers take from the right end of `wait`, so its last element is the oldest); `prioritized` is a
 * zset scored `priority * 2^32 + counter` (each priority band's first member is its oldest);
 * `delayed` is a zset scored `readyAt * 4096 + counter`. A job's hash holds `timestamp` and `delay`.
 * Returns the eight counts, the due delayed count and the oldest ready time (ms, or -1).
 */
const QUEUE_STATS_LUA = `
local base = ARGV[1]
local now = tonumber(ARGV[2])
local oldest = -1
local function seen(t)
  if t and t >= 0 and (oldest < 0 or t < oldest) then oldest = t end
end
local function readyAt(id)
  if not id then return nil end
  local h = redis.call('HMGET', base .. id, 'timestamp', 'delay')
  if not h[1] then return nil end
  return tonumber(h[1]) + (tonumber(h[2]) or 0)
end
local waiting = redis.call('LLEN', base .. 'wait')
local paused = redis.call('LLEN', base .. 'paused')
local active = redis.call('LLEN', base .. 'active')
local prioritized = redis.call('ZCARD', base .. 'prioritized')
local delayed = redis.call('ZCARD', base .. 'delayed')
local due = redis.call('ZCOUNT', base .. 'delayed', 0, (now + 1) * 4096 - 1)
local children = redis.call('ZCARD', base .. 'waiting-children')
local failed = redis.call('ZCARD', base .. 'failed')
local completed = redis.call('ZCARD', base .. 'completed')
if waiting > 0 then seen(readyAt(redis.call('LINDEX', base .. 'wait', -1))) end
if prioritized > 0 then
  local from = 0
  for _ = 1, 16 do
    local first = redis.call('ZRANGEBYSCORE', base .. 'prioritized', from, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
    if #first == 0 then break end
    seen(readyAt(first[1]))
    from = (math.floor(tonumber(first[2]) / 4294967296) + 1) * 4294967296
  end
end
if due > 0 then
  local first = redis.call('ZRANGE', base .. 'delayed', 0, 0, 'WITHSCORES')
  if #first == 2 then seen(math.floor(tonumber(first[2]) / 4096)) end
end
return { waiting, prioritized, delayed, active, children, paused, failed, completed, due, oldest }
`;

/** KEYS[1] the queue's `wait` list (routes the call to the queue's slot); ARGV[1] key base, ARGV[2] now ms. */
const queueStatsScript = defineScript({
  name: 'trawlQueueStats', numberOfKeys: 1, lua: QUEUE_STATS_LUA,
  decode: (reply) => (reply as unknown[]).map(Number),
});

/**
 * Cluster-wide figures read from Redis for the metrics endpoint of every process: BullMQ queue depth
 * by state, what is ready to run and for how long (the autoscaling signals), admission slot totals
 * over all teams, and Redis memory. Every reader sees the same values.
 */
export class ClusterStats {
  private readonly now: () => number;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    opts: { now?: () => number } = {},
  ) {
    this.now = opts.now ?? Date.now;
  }

  async queues(): Promise<QueueStats[]> {
    const now = this.now();
    // Sent together (one round trip); the one declared key routes each call to its queue's slot
    // (all the queue's keys share the hash tag).
    const replies = await Promise.all(QUEUE_NAMES.map((queue) => {
      const base = `${this.keys.bullPrefix(queue)}:${queue}:`;
      return queueStatsScript.run(this.redis, [`${base}wait`], [base, String(now)]);
    }));
    return QUEUE_NAMES.map((queue, i) => {
      const v = replies[i] ?? [];
      const counts = Object.fromEntries(QUEUE_JOB_STATES.map((s, j) => [s, v[j] ?? 0])) as Record<QueueJobState, number>;
      const oldest = v[9] ?? -1;
      return {
        queue,
        counts,
        ready: counts.waiting + counts.prioritized + (v[8] ?? 0),
        oldestReadySec: oldest < 0 ? 0 : Math.max(0, (now - oldest) / 1000),
      };
    });
  }

  /**
   * Everything the cluster gauges show. Queue and slot figures come from the queue Redis (a failure
   * there rejects); memory is read from it and, when the cache has a Redis of its own, through
   * `cacheMemory` (PageCache.redisMemory, which fails at once while that Redis does not answer, so a
   * frozen cache Redis never holds the queue figures that autoscaling reads); null when silent.
   */
  async snapshot(cacheMemory?: () => Promise<RedisMemory>) {
    const [queues, slots, queueMemory, cache] = await Promise.all([
      this.queues(), this.slots(), readRedisMemory(this.redis).catch(() => null), cacheMemory?.().catch(() => null),
    ]);
    return { queues, slots, redis: { queue: queueMemory, ...(cache !== undefined ? { cache } : {}) } };
  }

  /** Admitted (running) and backlogged jobs summed over every team with admission state. */
  async slots(): Promise<{ active: number; backlogged: number }> {
    let active = 0;
    let backlogged = 0;
    let cursor = '0';
    do {
      const [next, teams] = await this.redis.sscan(this.keys.admTeams(), cursor, 'COUNT', 500);
      cursor = next;
      if (teams.length === 0) continue;
      // Sent together, not as one pipeline: teams hash to different slots (nodes) on Redis Cluster.
      const counts = await Promise.all(teams.map((t) => Promise.all([this.redis.zcard(this.keys.admActive(t)), this.redis.zcard(this.keys.admBacklog(t))])));
      for (const [a, b] of counts) {
        active += a;
        backlogged += b;
      }
    } while (cursor !== '0');
    return { active, backlogged };
  }
}

/**
 * `used_memory` and `maxmemory` from INFO memory, summed over the primaries of a Redis Cluster (a
 * Cluster sends INFO to one node); `maxBytes` is 0 (unbounded) when any primary is unbounded.
 */
export async function readRedisMemory(redis: Redis): Promise<RedisMemory> {
  const infos = await Promise.all(redisPrimaries(redis).map((node) => node.info('memory')));
  const field = (info: string, name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? 0);
  const maxes = infos.map((info) => field(info, 'maxmemory'));
  return {
    usedBytes: infos.reduce((sum, info) => sum + field(info, 'used_memory'), 0),
    maxBytes: maxes.some((m) => m === 0) ? 0 : maxes.reduce((a, b) => a + b, 0),
  };
}
