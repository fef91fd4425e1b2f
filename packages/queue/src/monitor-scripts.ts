import { defineScript } from './redis-script.js';

/*
 * Lua scripts of monitor state. Every key of one monitor carries the hash tag `{m:<monitorId>}`, so
 * each script is atomic on one Redis and on Cluster alike. A check record is a hash of `status` and
 * `json` (the whole record, the same status inside); scripts read `status` and write both.
 */

/**
 * HSET_IF_EXISTS: sets fields of a monitor record that still exists (an update racing a delete must
 * not bring a half record back). KEYS[1] monitor hash; ARGV field, value pairs. Returns 1 or 0.
 */
const HSET_IF_EXISTS_LUA = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
`;

/**
 * PUT_CHECK: writes a check record when its monitor exists and the check's current status is one of
 * ARGV[5] (space separated; `none` = no record yet), and indexes it.
 * KEYS[1] monitor hash, KEYS[2] checks zset, KEYS[3] check hash.
 * ARGV[1] checkId, ARGV[2] new status, ARGV[3] record JSON, ARGV[4] index score (created ms), ARGV[5] allowed statuses.
 * Returns 1 when written, 0 otherwise.
 */
const PUT_CHECK_LUA = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local current = redis.call('HGET', KEYS[3], 'status') or 'none'
if not string.find(' ' .. ARGV[5] .. ' ', ' ' .. current .. ' ', 1, true) then return 0 end
redis.call('HSET', KEYS[3], 'status', ARGV[2], 'json', ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
return 1
`;

/**
 * START_CHECK: one check of a monitor runs at a time. When another check is current and started
 * after ARGV[5] (not stale), this one is recorded as `skipped_overlap`; otherwise it becomes the
 * current check, `running`, and the monitor's `lastRunAt` is now.
 * KEYS[1] monitor hash, KEYS[2] checks zset, KEYS[3] check hash.
 * ARGV[1] checkId, ARGV[2] now ms, ARGV[3] running record JSON, ARGV[4] skipped record JSON,
 * ARGV[5] stale-before ms, ARGV[6] index score (created ms).
 * Returns {'missing'} (no monitor), {'exists', status} (the check is past `queued`: a retried job),
 * {'overlap', currentId}, or {'started', previousId} (previousId: a stale current check replaced, or '').
 */
const START_CHECK_LUA = `
if redis.call('EXISTS', KEYS[1]) == 0 then return {'missing'} end
local status = redis.call('HGET', KEYS[3], 'status')
if status and status ~= 'queued' then return {'exists', status} end
local current = redis.call('HGET', KEYS[1], 'currentCheckId') or ''
local currentAt = tonumber(redis.call('HGET', KEYS[1], 'currentCheckAt') or '') or 0
if current ~= '' and current ~= ARGV[1] and currentAt >= tonumber(ARGV[5]) then
  redis.call('HSET', KEYS[3], 'status', 'skipped_overlap', 'json', ARGV[4])
  redis.call('ZADD', KEYS[2], ARGV[6], ARGV[1])
  return {'overlap', current}
end
redis.call('HSET', KEYS[1], 'currentCheckId', ARGV[1], 'currentCheckAt', ARGV[2], 'lastRunAt', ARGV[2])
redis.call('HSET', KEYS[3], 'status', 'running', 'json', ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[6], ARGV[1])
if current == ARGV[1] then current = '' end
return {'started', current}
`;

/**
 * FINISH_CHECK: stores a running check's pages and final record, once, and updates its monitor
 * (summary; no current check any more when it was this one).
 * KEYS[1] monitor hash, KEYS[2] check hash, KEYS[3] pages list, KEYS[4..8] pages-by-status lists
 * (same, new, changed, removed, error).
 * ARGV[1] checkId, ARGV[2] final status, ARGV[3] record JSON, ARGV[4] summary JSON, then pairs:
 * status index (1..5, the order of KEYS[4..8]), page JSON.
 * Returns 1 when this call finished the check, 0 when it was not running (already finished).
 */
const FINISH_CHECK_LUA = `
if redis.call('HGET', KEYS[2], 'status') ~= 'running' then return 0 end
for i = 3, 8 do redis.call('DEL', KEYS[i]) end
local n = 0
for i = 5, #ARGV, 2 do
  redis.call('RPUSH', KEYS[3], ARGV[i + 1])
  redis.call('RPUSH', KEYS[3 + tonumber(ARGV[i])], n)
  n = n + 1
end
redis.call('HSET', KEYS[2], 'status', ARGV[2], 'json', ARGV[3])
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HSET', KEYS[1], 'lastCheckSummary', ARGV[4])
  if redis.call('HGET', KEYS[1], 'currentCheckId') == ARGV[1] then
    redis.call('HSET', KEYS[1], 'currentCheckId', '', 'currentCheckAt', '')
  end
end
return 1
`;

export const hsetIfExistsScript = defineScript({ name: 'trawlMonitorHsetIfExists', numberOfKeys: 1, lua: HSET_IF_EXISTS_LUA, decode: (reply) => Number(reply) === 1 });
export const putCheckScript = defineScript({ name: 'trawlMonitorPutCheck', numberOfKeys: 3, lua: PUT_CHECK_LUA, decode: (reply) => Number(reply) === 1 });
/** Raw START_CHECK reply: the outcome, then its one value. */
export const startCheckScript = defineScript({
  name: 'trawlMonitorStartCheck', numberOfKeys: 3, lua: START_CHECK_LUA,
  decode: (reply) => (reply as unknown[]).map(String),
});
export const finishCheckScript = defineScript({ name: 'trawlMonitorFinishCheck', numberOfKeys: 8, lua: FINISH_CHECK_LUA, decode: (reply) => Number(reply) === 1 });
