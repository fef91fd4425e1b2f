import { defineScript } from './redis-script.js';

/** Raw reply of ADMIT and RELEASE: two fields, then (id, spec) pairs of promoted jobs. */
const promotedReply = (reply: unknown) => reply as (string | number)[];

/*
 * Lua scripts of the per-team concurrency groups. All keys of one call belong to one team and share
 * its hash tag, so each script is atomic on a single Redis and on Cluster alike.
 *
 * Invariant kept by every script: when a team's backlog is non-empty, its active set is full
 * (|active| >= concurrency). Each script ends with the same promotion loop, which moves backlog
 * heads (lowest score: class, then arrival) into the active set while there is room, and returns
 * them so the caller can hand them to BullMQ.
 */

const PROMOTE = `
local function promote(out, now, checkAfter, conc)
  while redis.call('ZCARD', KEYS[1]) < conc do
    local head = redis.call('ZRANGE', KEYS[2], 0, 0)
    if #head == 0 then break end
    local id = head[1]
    redis.call('ZREM', KEYS[2], id)
    redis.call('ZADD', KEYS[1], now + checkAfter, id)
    out[#out + 1] = id
    out[#out + 1] = redis.call('HGET', KEYS[3], id) or ''
  end
  return out
end
`;

/**
 * ADMIT: registers a job and admits it when its team has a free slot.
 * KEYS[1] active zset, KEYS[2] backlog zset, KEYS[3] pending hash, KEYS[4] sequence, KEYS[5] team hash
 * ARGV[1] jobId, ARGV[2] now ms, ARGV[3] check-after ms, ARGV[4] class (0 interactive, 1 bulk),
 * ARGV[5] dispatch spec JSON, ARGV[6] backlog cap, ARGV[7] concurrency when the team has none
 * Returns {status, position, id1, spec1, id2, spec2, ...}: status `ok`, `dup` or `full`; position is
 * the job's 1-based place in the backlog (0 when it was admitted at once); then every promoted job.
 */
const ADMIT_LUA = `${PROMOTE}
local jobId = ARGV[1]
local now = tonumber(ARGV[2])
local conc = tonumber(redis.call('HGET', KEYS[5], 'concurrency') or ARGV[7])
if redis.call('ZSCORE', KEYS[1], jobId) or redis.call('ZSCORE', KEYS[2], jobId) then
  return {'dup', 0}
end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[6]) then
  return {'full', 0}
end
redis.call('HSET', KEYS[3], jobId, ARGV[5])
local seq = redis.call('INCR', KEYS[4])
redis.call('ZADD', KEYS[2], tonumber(ARGV[4]) * 1e13 + seq, jobId)
local out = promote({'ok', 0}, now, tonumber(ARGV[3]), conc)
local rank = redis.call('ZRANK', KEYS[2], jobId)
if rank then out[2] = rank + 1 end
return out
`;

/**
 * RELEASE: forgets a job wherever it is (active or backlog) and promotes waiting jobs. Idempotent:
 * releasing twice frees one slot once.
 * KEYS[1] active, KEYS[2] backlog, KEYS[3] pending, KEYS[4] team hash
 * ARGV[1] jobId, ARGV[2] now ms, ARGV[3] check-after ms, ARGV[4] concurrency when the team has none
 * Returns {removedFromActive (0|1), 0, id1, spec1, ...}.
 */
const RELEASE_LUA = `${PROMOTE}
local removed = redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
local conc = tonumber(redis.call('HGET', KEYS[4], 'concurrency') or ARGV[4])
return promote({removed, 0}, tonumber(ARGV[2]), tonumber(ARGV[3]), conc)
`;

/**
 * WITHDRAW: removes a job that is still waiting in the backlog (its caller gave up); a job that was
 * already admitted is left alone. KEYS[1] backlog, KEYS[2] pending; ARGV[1] jobId. Returns 1 or 0.
 */
const WITHDRAW_LUA = `
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then
  redis.call('HDEL', KEYS[2], ARGV[1])
  return 1
end
return 0
`;

/**
 * HSET_IF_EXISTS: replaces one field of a hash only while the field exists.
 * KEYS[1] the hash; ARGV[1] field, ARGV[2] value. Returns 0.
 */
const HSET_FIELD_IF_EXISTS_LUA = "if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end return 0";

export const admitScript = defineScript({ name: 'trawlAdmit', numberOfKeys: 5, lua: ADMIT_LUA, decode: promotedReply });
export const releaseScript = defineScript({ name: 'trawlAdmRelease', numberOfKeys: 4, lua: RELEASE_LUA, decode: promotedReply });
export const withdrawScript = defineScript({ name: 'trawlAdmWithdraw', numberOfKeys: 2, lua: WITHDRAW_LUA, decode: (reply) => reply === 1 });
export const updateSpecScript = defineScript({ name: 'trawlAdmUpdateSpec', numberOfKeys: 1, lua: HSET_FIELD_IF_EXISTS_LUA, decode: () => undefined });
