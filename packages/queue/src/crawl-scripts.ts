import { defineScript } from './redis-script.js';

/*
 * Lua scripts of crawl and batch-scrape state. Every script gets the same eight keys of one crawl,
 * which share the hash tag `{c:<crawlId>}` (atomic on one Redis and on Cluster alike):
 *   KEYS[1] crawl hash      KEYS[2] seen set       KEYS[3] frontier zset   KEYS[4] items hash
 *   KEYS[5] inflight zset   KEYS[6] docs list      KEYS[7] errors list     KEYS[8] robots list
 *
 * Invariant: total = |frontier| + |inflight| + done, where hidden pages (change tracking's memory of
 * earlier crawls) waiting in the frontier are not counted until they start. A crawl is complete the moment its seeding is
 * over (`kickoff` = 1) and both the frontier and the in-flight set are empty; every script that can
 * make that true checks it, so completion never waits for a sweep.
 */

/** Frontier scores from here on are pages known only from earlier crawls (depth * 1e10 stays below). */
const HIDDEN_BAND = 9e14;

const FINISH = `
local HIDDEN_BAND = ${HIDDEN_BAND}
local function finish(status, now)
  local retention = tonumber(redis.call('HGET', KEYS[1], 'retentionSec') or '86400')
  redis.call('HSET', KEYS[1], 'status', status, 'completedAt', now)
  redis.call('DEL', KEYS[3])
  for i = 1, 8 do redis.call('EXPIRE', KEYS[i], retention) end
end
local function maybeComplete(now)
  if redis.call('HGET', KEYS[1], 'status') == 'scraping' and redis.call('HGET', KEYS[1], 'kickoff') == '1'
    and redis.call('ZCARD', KEYS[3]) == 0 and redis.call('ZCARD', KEYS[5]) == 0 then
    finish('completed', now)
    return 1
  end
  return 0
end
`;

/**
 * ENQUEUE: adds discovered URLs to the frontier, each once (seen set) and never beyond `limit` pages.
 * ARGV[1] now ms, ARGV[2] 'reopen' to reopen a completed batch (appendToId) or '', then groups of
 * five: dedupe key, url, depth, jobId, flag ('ok'; 'robots': blocked by robots.txt, listed only;
 * 'hidden': known only from earlier crawls, taken after every organic page, `hidden` in its item
 * until found organically, through the items field `h:<key>` -> jobId).
 * Returns {accepted, robotsBlocked}.
 */
const ENQUEUE_FN = `
local function enqueue(from, reopen)
  local status = redis.call('HGET', KEYS[1], 'status')
  if status == 'completed' and reopen then
    redis.call('HSET', KEYS[1], 'status', 'scraping')
    redis.call('HDEL', KEYS[1], 'completedAt')
    for i = 1, 8 do redis.call('PERSIST', KEYS[i]) end
    status = 'scraping'
  end
  if status ~= 'scraping' then return 0, 0 end
  local limit = tonumber(redis.call('HGET', KEYS[1], 'limit'))
  local total = tonumber(redis.call('HGET', KEYS[1], 'total') or '0')
  local accepted, blocked = 0, 0
  for i = from, #ARGV, 5 do
    local key, url, depth, jobId, flag = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2]), ARGV[i + 3], ARGV[i + 4]
    if flag == 'robots' then
      -- Listed once each, and no more of them than the crawl's page limit (bounded memory).
      if redis.call('LLEN', KEYS[8]) < limit and redis.call('SADD', KEYS[2], key) == 1 then
        redis.call('RPUSH', KEYS[8], url)
        blocked = blocked + 1
      end
    elseif flag == 'hidden' then
      -- Known only from earlier crawls: after every page found organically, marked so, and not counted
      -- in \`total\` until it starts (PUMP), so it never takes the room of a page found organically.
      if redis.call('SADD', KEYS[2], key) == 1 then
        local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
        redis.call('ZADD', KEYS[3], HIDDEN_BAND + seq, jobId)
        redis.call('HSET', KEYS[4], jobId, cjson.encode({url = url, depth = depth, hidden = true}), 'h:' .. key, jobId)
        accepted = accepted + 1
      end
    elseif total < limit and redis.call('SADD', KEYS[2], key) == 1 then
      local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
      redis.call('ZADD', KEYS[3], depth * 1e10 + seq, jobId)
      redis.call('HSET', KEYS[4], jobId, cjson.encode({url = url, depth = depth}))
      total = total + 1
      accepted = accepted + 1
    elseif total < limit then
      -- Seen already. A hidden page still waiting, found organically after all, becomes visible in its
      -- breadth-first place and is counted now.
      local hidden = redis.call('HGET', KEYS[4], 'h:' .. key)
      if hidden then
        redis.call('HDEL', KEYS[4], 'h:' .. key)
        local item = redis.call('HGET', KEYS[4], hidden)
        if item and redis.call('ZSCORE', KEYS[3], hidden) then
          redis.call('HSET', KEYS[4], hidden, cjson.encode({url = cjson.decode(item).url, depth = depth}))
          redis.call('ZADD', KEYS[3], depth * 1e10 + redis.call('HINCRBY', KEYS[1], 'seq', 1), hidden)
          total = total + 1
        end
      end
    end
  end
  redis.call('HSET', KEYS[1], 'total', total)
  return accepted, blocked
end
`;

const ENQUEUE_LUA = `${FINISH}${ENQUEUE_FN}
local accepted, blocked = enqueue(3, ARGV[2] == 'reopen')
return {accepted, blocked}
`;

/**
 * PUMP: moves frontier heads (breadth first) into the in-flight set while the crawl has room
 * (`maxConcurrency`), and at most one per `delayMs` when the crawl has a delay.
 * ARGV[1] now ms, ARGV[2] most items to take.
 * Returns {state, waitUntil, jobId1, item1, ...}: state `ok`, `wait` (delay: come back at waitUntil),
 * `busy` (no room), `completed` (this call completed the crawl), or the crawl's status when not scraping.
 */
const PUMP_FN = `
local function pump(now, maxTake)
  local status = redis.call('HGET', KEYS[1], 'status')
  if status ~= 'scraping' then return {status or 'missing', 0} end
  if redis.call('ZCARD', KEYS[3]) == 0 then
    if maybeComplete(now) == 1 then return {'completed', 0} end
    return {'ok', 0}
  end
  local free = tonumber(redis.call('HGET', KEYS[1], 'maxConcurrency')) - redis.call('ZCARD', KEYS[5])
  if free <= 0 then return {'busy', 0} end
  -- Hidden pages (scores from HIDDEN_BAND) start only when no organic page is in flight: one of those
  -- may still link to them (and make them visible). Organic pages never wait for hidden ones.
  local head = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')
  local organicOnly = tonumber(head[2]) < HIDDEN_BAND
  if not organicOnly then
    for _, id in ipairs(redis.call('ZRANGE', KEYS[5], 0, -1)) do
      local item = redis.call('HGET', KEYS[4], id)
      if item and not cjson.decode(item).hidden then return {'ok', 0} end
    end
  end
  local delay = tonumber(redis.call('HGET', KEYS[1], 'delayMs') or '0')
  if delay > 0 then
    local nextAt = tonumber(redis.call('HGET', KEYS[1], 'nextStartAt') or '0')
    if now < nextAt then return {'wait', nextAt} end
    free = 1
    redis.call('HSET', KEYS[1], 'nextStartAt', now + delay)
  end
  local take = math.min(free, maxTake)
  local popped
  if organicOnly then
    popped = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', '(' .. HIDDEN_BAND, 'WITHSCORES', 'LIMIT', 0, take)
    for i = 1, #popped, 2 do redis.call('ZREM', KEYS[3], popped[i]) end
  else
    popped = redis.call('ZPOPMIN', KEYS[3], take)
  end
  local out = {'ok', 0}
  local total = tonumber(redis.call('HGET', KEYS[1], 'total') or '0')
  local limit = tonumber(redis.call('HGET', KEYS[1], 'limit'))
  for i = 1, #popped, 2 do
    local id = popped[i]
    local item = redis.call('HGET', KEYS[4], id) or ''
    if tonumber(popped[i + 1]) >= HIDDEN_BAND then
      -- A hidden page is counted when it starts, if the crawl's limit still has room; else it is dropped.
      if total < limit then
        total = total + 1
        redis.call('HSET', KEYS[1], 'total', total)
      else
        redis.call('HDEL', KEYS[4], id)
        item = nil
      end
    end
    if item then
      redis.call('ZADD', KEYS[5], now, id)
      out[#out + 1] = id
      out[#out + 1] = item
    end
  end
  if #out == 2 and maybeComplete(now) == 1 then return {'completed', 0} end
  return out
end
`;

const PUMP_LUA = `${FINISH}${PUMP_FN}
return pump(tonumber(ARGV[1]), tonumber(ARGV[2]))
`;

/**
 * PAGE_DONE: records a page's outcome once. ARGV[1] jobId, ARGV[2] now ms, ARGV[3] kind (`doc`,
 * `error` or `drop`), ARGV[4] payload (stored document or error JSON), ARGV[5] credits used,
 * ARGV[6] dedupe key of the final URL after redirects when it differs from the requested one, or ''.
 * A page whose final URL was already seen is a duplicate and is dropped (redirects to known pages).
 * Nothing is recorded once the crawl is no longer scraping (cancelled), but the slot is freed.
 * Returns {result ('ok'|'dup'|'duplicate-url'|'ignored'), completed (0|1), completedCount}.
 */
const PAGE_DONE_FN = `
local function pageDone(now)
  if redis.call('ZREM', KEYS[5], ARGV[1]) == 0 then return 'dup', 0, 0 end
  redis.call('HDEL', KEYS[4], ARGV[1])
  local result = 'ok'
  if redis.call('HGET', KEYS[1], 'status') ~= 'scraping' then
    result = 'ignored'
  else
    local kind = ARGV[3]
    if kind == 'doc' and ARGV[6] ~= '' and redis.call('SADD', KEYS[2], ARGV[6]) == 0 then
      kind = 'drop'
      result = 'duplicate-url'
    end
    redis.call('HINCRBY', KEYS[1], 'creditsUsed', tonumber(ARGV[5]))
    if kind == 'doc' then
      redis.call('RPUSH', KEYS[6], ARGV[4])
      redis.call('HINCRBY', KEYS[1], 'completed', 1)
    elseif kind == 'error' then
      redis.call('RPUSH', KEYS[7], ARGV[4])
      redis.call('HINCRBY', KEYS[1], 'failed', 1)
    else
      redis.call('HINCRBY', KEYS[1], 'total', -1)
    end
  end
  local completed = maybeComplete(now)
  return result, completed, tonumber(redis.call('HGET', KEYS[1], 'completed') or '0')
end
`;

const PAGE_DONE_LUA = `${FINISH}${PAGE_DONE_FN}
local result, completed, documents = pageDone(tonumber(ARGV[2]))
return {result, completed, documents}
`;

/**
 * PAGE_DONE_NEXT: one call at the end of a page: its links into the frontier (ENQUEUE), its outcome
 * (PAGE_DONE), then the next pages (PUMP) unless the page completed the crawl or was recorded
 * before. ARGV[1..6] as PAGE_DONE, ARGV[7] most items to take (0: no pump), then ENQUEUE's groups of five.
 * Links are added before the outcome: a crawl never completes while a page's links are unadded.
 * Returns {result, completed, documents, accepted, robotsBlocked, pumpState, waitUntil, jobId1, item1, ...}
 * (pumpState '' when no pump ran).
 */
const PAGE_DONE_NEXT_LUA = `${FINISH}${ENQUEUE_FN}${PAGE_DONE_FN}${PUMP_FN}
local now = tonumber(ARGV[2])
local accepted, blocked = 0, 0
-- A page recorded already (a re-run after a crash, or the watchdog) adds nothing.
if #ARGV >= 8 and redis.call('ZSCORE', KEYS[5], ARGV[1]) then accepted, blocked = enqueue(8, false) end
local result, completed, documents = pageDone(now)
local out = {result, completed, documents, accepted, blocked, '', 0}
if result ~= 'dup' and completed == 0 and tonumber(ARGV[7]) > 0 then
  local pumped = pump(now, tonumber(ARGV[7]))
  for i = 1, #pumped do out[5 + i] = pumped[i] end
end
return out
`;

/**
 * KICKOFF_DONE: seeding is over (robots.txt and sitemaps read, seed enqueued). ARGV[1] now ms,
 * ARGV[2] delay between page starts in ms (the crawl's `delay` or robots.txt Crawl-delay), or ''.
 * Returns 1 when this completed the crawl (nothing to scrape).
 */
const KICKOFF_DONE_LUA = `${FINISH}
if redis.call('HGET', KEYS[1], 'status') ~= 'scraping' then return 0 end
redis.call('HSET', KEYS[1], 'kickoff', '1')
if ARGV[2] ~= '' then redis.call('HSET', KEYS[1], 'delayMs', ARGV[2]) end
return maybeComplete(tonumber(ARGV[1]))
`;

/**
 * END: ends a crawl that is still scraping with status ARGV[2] (`cancelled` or `failed`) and error
 * ARGV[3] (may be ''). ARGV[1] now ms. Returns {previousStatus, inflightJobId...}: the in-flight pages
 * (their jobs are withdrawn or finish unrecorded).
 */
const END_LUA = `${FINISH}
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'scraping' then return {status or 'missing'} end
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'error', ARGV[3]) end
local out = {'scraping'}
for _, id in ipairs(redis.call('ZRANGE', KEYS[5], 0, -1)) do out[#out + 1] = id end
finish(ARGV[2], tonumber(ARGV[1]))
return out
`;

/** The eight keys of one crawl, in the order above (`RedisKeys.crawl`). */
const CRAWL_KEYS = 8;

export const enqueueScript = defineScript({
  name: 'trawlCrawlEnqueue', numberOfKeys: CRAWL_KEYS, lua: ENQUEUE_LUA,
  decode: (reply) => {
    const [accepted, robotsBlocked] = reply as [number, number];
    return { accepted: Number(accepted), robotsBlocked: Number(robotsBlocked) };
  },
});

/** Raw PUMP reply: state, waitUntil, then (jobId, item JSON) pairs. */
export const pumpScript = defineScript({
  name: 'trawlCrawlPump', numberOfKeys: CRAWL_KEYS, lua: PUMP_LUA,
  decode: (reply) => reply as (string | number)[],
});

export const pageDoneScript = defineScript({
  name: 'trawlCrawlPageDone', numberOfKeys: CRAWL_KEYS, lua: PAGE_DONE_LUA,
  decode: (reply) => {
    const [result, completed, documents] = reply as [string, number, number];
    return { result: String(result), completed: Number(completed) === 1, documents: Number(documents) };
  },
});

/** Raw PAGE_DONE_NEXT reply (see the script). */
export const pageDoneNextScript = defineScript({
  name: 'trawlCrawlPageDoneNext', numberOfKeys: CRAWL_KEYS, lua: PAGE_DONE_NEXT_LUA,
  decode: (reply) => reply as (string | number)[],
});

export const kickoffDoneScript = defineScript({
  name: 'trawlCrawlKickoffDone', numberOfKeys: CRAWL_KEYS, lua: KICKOFF_DONE_LUA,
  decode: (reply) => Number(reply) === 1,
});

export const endScript = defineScript({
  name: 'trawlCrawlEnd', numberOfKeys: CRAWL_KEYS, lua: END_LUA,
  decode: (reply) => {
    const raw = (reply as string[]).map(String);
    return { previous: raw[0] ?? 'missing', inflight: raw.slice(1) };
  },
});

/**
 * PAGE_STATE: whether job ARGV[1] is in flight, and the crawl's status: {0|1, status or false}. A
 * script (one command) rather than a pipeline of ZSCORE and HGET: it runs at every page's start.
 */
export const pageStateScript = defineScript({
  name: 'trawlCrawlPageState', numberOfKeys: CRAWL_KEYS,
  lua: "return {redis.call('ZSCORE', KEYS[5], ARGV[1]) and 1 or 0, redis.call('HGET', KEYS[1], 'status')}",
  decode: (reply) => {
    const [inflight, status] = reply as [number, string | null];
    return { inflight: Number(inflight) === 1, status: status ?? null };
  },
});
