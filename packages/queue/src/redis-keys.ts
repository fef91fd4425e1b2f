/**
 * The Redis key layout of a deployment. Every key this system writes is built here, with its owner.
 * Keys of one team share the hash tag `{t:<teamId>}` so that the admission and credit scripts, which
 * touch several of them atomically, also work on Redis Cluster.
 *
 * | family | type | owner |
 * |---|---|---|
 * | `<p>:teams` | set of team ids | TeamStore |
 * | `<p>:{t:ID}:team` | hash: name, concurrency, ratePerMinute, credits, creditsUsed, tokensUsed, flags, disabled (1|0), createdAt | TeamStore (credits fields: CreditLedger; tokensUsed: TokenLedger) |
 * | `<p>:{t:ID}:credits:daily` | hash UTC day `YYYY-MM-DD` -> credits charged that day, no expiry | CreditLedger |
 * | `<p>:{t:ID}:tokens:daily` | hash UTC day `YYYY-MM-DD` -> LLM tokens used that day, no expiry | TokenLedger |
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
 * | `<p>:result:<jobId>` | string JSON, or 0xff 0x01 + brotli(JSON) from 2 K characters on; expires | ResultStore |
 * | `<p>:results` | pub/sub channel of finished job ids | ResultStore |
 * | `<p>:docbody:<jobId>` | string bytes of a fetched or uploaded document waiting for the documents role, expires | DocumentBodyStore |
 * | `<p>:{u:REF}:upload` | hash: teamId, tokenHash (sha256 of the URL token), filename, mimeType, jobId, state (pending, uploading, stored), size, expiresAt (ms); expires (expiresAt + grace; upload end + keep time) | ParseUploadStore |
 * | `<p>:{t:ID}:profile:<sha256(name)>` | string JSON browser storage state, no expiry | ProfileStore |
 * | `<p>:{t:ID}:profile:<sha256(name)>:lock` | string jobId of the saving session, expires | ProfileStore |
 * | `<p>:{c:ID}:crawl` | hash: kind, teamId, status, url, request, counters, limit, maxConcurrency, delayMs... | CrawlStore |
 * | `<p>:{c:ID}:seen` | set of URL dedupe keys | CrawlStore |
 * | `<p>:{c:ID}:frontier` | zset jobId -> depth * 1e10 + sequence (breadth first) | CrawlStore |
 * | `<p>:{c:ID}:items` | hash jobId -> {url, depth} of frontier and in-flight pages | CrawlStore |
 * | `<p>:{c:ID}:inflight` | zset jobId -> start time (ms) | CrawlStore |
 * | `<p>:{c:ID}:docs` | list of deflated document JSON, completion order | CrawlStore |
 * | `<p>:{c:ID}:errors` | list of error JSON | CrawlStore |
 * | `<p>:{c:ID}:robots` | list of URLs blocked by robots.txt | CrawlStore |
 * | `<p>:{c:ID}:webhooks` | zset webhook jobId -> time queued (ms): the crawl's page deliveries not known to have ended; expires a day after the last was queued | WebhookOrder (sender adds, webhook worker removes, the terminal delivery reads and prunes) |
 * | `<p>:{t:ID}:crawls` | zset crawlId -> created time: the team's running crawls and batches | CrawlStore |
 * | `<p>:crawls:running` | zset crawlId -> next watchdog check (ms) | CrawlStore (watchdog) |
 * | `<p>:crawl-events` | pub/sub channel of crawl progress (`{crawlId, type}`) | CrawlStore |
 * | `<p>:cancelled:<id>` | string `1`, expires: a cancelled job or crawl id | JobCancellations |
 * | `<p>:cancellations` | pub/sub channel of cancelled job and crawl ids | JobCancellations |
 * | `<p>:{t:ID}:idem:<sha256>` | string crawl id of an idempotency key, expires after 24 h | CrawlStore |
 * | `<p>:{h:<host>}:next` | string next free request start time of a host (ms), expires | HostRateLimiter |
 * | `<p>:{h:<host>}:state` | hash: d (adaptive delay ms), l (latency EWMA ms), cd (Crawl-delay ms), until (Retry-After ms); expires idle | HostRateLimiter |
 * | `<p>:{h:<host>}:leases` | zset lease id -> expiry (ms): the host's requests in flight | HostRateLimiter |
 * | `<p>:{t:ID}:ct:<tag>:<url>` | hash: cur, curId, prev (compressed page snapshots), no expiry | ChangeStore |
 * | `<p>:{t:ID}:ct:<tag>:urls:<host>` | hash url digest -> URL of the host known under the tag, no expiry | ChangeStore |
 * | `<cp>:cache:{cN}:*` | the page cache (may live in its own Redis, `CACHE_REDIS_URL`) | PageCache (see there) |
 * | `<p>:{m:ID}:monitor` | hash: teamId, config JSON, status, currentCheckId, currentCheckAt, lastRunAt, lastCheckSummary, createdAt, updatedAt | MonitorStore |
 * | `<p>:{m:ID}:checks` | zset checkId -> created time (ms) | MonitorStore (pruned past the monitor's retentionDays) |
 * | `<p>:{m:ID}:check:<checkId>` | hash: status, json (the check record) | MonitorStore |
 * | `<p>:{m:ID}:check:<checkId>:pages` | list of page JSON, in target order | MonitorStore |
 * | `<p>:{m:ID}:check:<checkId>:pages:<status>` | list of indexes into `pages` of the pages with that status | MonitorStore |
 * | `<p>:{m:ID}:check:<checkId>:done` | set of target ids whose crawl or batch ended | MonitorStore |
 * | `<p>:{t:ID}:monitors` | zset monitorId -> created time (ms): the team's monitors | MonitorStore |
 * | `<p>:{x:ID}:extract` | hash: teamId, status, request, urls, pages, createdAt, completedAt, retentionSec, zdr, batchId, startWarnings, data, sources, error, warning, tokensUsed, creditsUsed, once:*; expires (creation + retention, end + retention) | ExtractStore |
 * | `{<p>}:bull:<queue>:*` | BullMQ queues (its own layout), single Redis and Sentinel: one hash tag for all queues | BullMQ |
 * | `{<p>:<queue>}:bull:<queue>:*` | BullMQ queues on a Redis Cluster: a hash tag per queue, so the queues spread over the primaries | BullMQ |
 *
 * BullMQ prefix and upgrades: BullMQ needs every key of one queue in one slot, never two queues in
 * one script (we use no flows, whose parent and child may sit in different queues). On a Cluster
 * each queue gets its own hash tag ({@link RedisKeys.bullPrefix}); on a single Redis (and Sentinel)
 * the prefix stays `{<p>}:bull`, so jobs queued before an upgrade are still found. A deployment
 * moving from a single Redis to a Cluster starts from an empty Cluster anyway (Redis cannot migrate
 * a database into a Cluster in place), so the per-queue tags orphan nothing.
 */
export class RedisKeys {
  /** Whether the keys are for a Redis Cluster (BullMQ queues then get a hash tag each). */
  readonly cluster: boolean;

  /**
   * @param prefix deployment prefix, `TRAWL_REDIS_PREFIX` (default `trawl`).
   * @param opts.cluster the keys live on a Redis Cluster (`isRedisCluster` of the client).
   */
  constructor(readonly prefix: string, opts: { cluster?: boolean } = {}) {
    this.cluster = opts.cluster ?? false;
  }

  teams(): string {
    return `${this.prefix}:teams`;
  }
  team(teamId: string): string {
    return `${this.prefix}:{t:${teamId}}:team`;
  }
  /** LLM tokens used per UTC day; shares the team's hash tag so it is updated with `tokensUsed` in one MULTI. */
  teamTokensDaily(teamId: string): string {
    return `${this.prefix}:{t:${teamId}}:tokens:daily`;
  }
  /** Credits charged per UTC day; shares the team's hash tag so it is updated with `creditsUsed` in one MULTI. */
  teamCreditsDaily(teamId: string): string {
    return `${this.prefix}:{t:${teamId}}:credits:daily`;
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
  /** The eight keys of one crawl, in the order the crawl scripts expect. */
  crawl(crawlId: string): string[] {
    const base = `${this.prefix}:{c:${crawlId}}`;
    return ['crawl', 'seen', 'frontier', 'items', 'inflight', 'docs', 'errors', 'robots'].map((k) => `${base}:${k}`);
  }
  /** The crawl's page webhook deliveries not known to have ended (WebhookOrder). */
  crawlWebhooks(crawlId: string): string {
    return `${this.prefix}:{c:${crawlId}}:webhooks`;
  }
  teamCrawls(teamId: string): string {
    return `${this.prefix}:{t:${teamId}}:crawls`;
  }
  crawlsRunning(): string {
    return `${this.prefix}:crawls:running`;
  }
  crawlEvents(): string {
    return `${this.prefix}:crawl-events`;
  }
  /** A job or crawl id cancelled: running work for it stops, work picked up later does not start. */
  cancelled(id: string): string {
    return `${this.prefix}:cancelled:${id}`;
  }
  cancellationsChannel(): string {
    return `${this.prefix}:cancellations`;
  }
  idempotency(teamId: string, keyHash: string): string {
    return `${this.prefix}:{t:${teamId}}:idem:${keyHash}`;
  }
  /** A page's change-tracking snapshots under a tag; `tagHash` and `urlHash` are digests. */
  changeSnapshot(teamId: string, tagHash: string, urlHash: string): string {
    return `${this.prefix}:{t:${teamId}}:ct:${tagHash}:${urlHash}`;
  }
  changeIndex(teamId: string, tagHash: string, hostHash: string): string {
    return `${this.prefix}:{t:${teamId}}:ct:${tagHash}:urls:${hostHash}`;
  }
  hostRate(host: string): string {
    return `${this.prefix}:{h:${host}}:next`;
  }
  hostState(host: string): string {
    return `${this.prefix}:{h:${host}}:state`;
  }
  hostLeases(host: string): string {
    return `${this.prefix}:{h:${host}}:leases`;
  }
  result(jobId: string): string {
    return `${this.prefix}:result:${jobId}`;
  }
  documentBody(jobId: string): string {
    return `${this.prefix}:docbody:${jobId}`;
  }
  /** An upload URL of the large-file parse flow (`{u:<ref>}`: its own slot; the PUT knows no team). */
  parseUpload(ref: string): string {
    return `${this.prefix}:{u:${ref}}:upload`;
  }
  resultsChannel(): string {
    return `${this.prefix}:results`;
  }
  /** The results channel of one waiter (ResultWaiter.replyTo): outcomes of the jobs it submitted. */
  replyChannel(waiterId: string): string {
    return `${this.prefix}:results:to:${waiterId}`;
  }
  /** A monitor's record; every key of one monitor shares the hash tag `{m:<id>}`. */
  monitor(monitorId: string): string {
    return `${this.prefix}:{m:${monitorId}}:monitor`;
  }
  monitorChecks(monitorId: string): string {
    return `${this.prefix}:{m:${monitorId}}:checks`;
  }
  /**
   * The keys of one check, in the order the monitor scripts expect: record, pages, the five
   * pages-by-status lists (same, new, changed, removed, error), done targets.
   */
  monitorCheck(monitorId: string, checkId: string): string[] {
    const base = `${this.prefix}:{m:${monitorId}}:check:${checkId}`;
    return [base, `${base}:pages`, ...['same', 'new', 'changed', 'removed', 'error'].map((s) => `${base}:pages:${s}`), `${base}:done`];
  }
  teamMonitors(teamId: string): string {
    return `${this.prefix}:{t:${teamId}}:monitors`;
  }
  /** An extract's record (`{x:<id>}`: its own slot). */
  extract(extractId: string): string {
    return `${this.prefix}:{x:${extractId}}:extract`;
  }
  /**
   * BullMQ prefix of `queue`: a hash tag keeps the queue's keys in one Cluster slot, as BullMQ
   * requires. On a Cluster the tag names the queue (`{<p>:<queue>}:bull`), so the queues' commands
   * spread over the primaries; on a single Redis it is `{<p>}:bull` for every queue, the layout of
   * earlier versions (jobs queued before an upgrade stay visible).
   */
  bullPrefix(queue: string): string {
    return this.cluster ? `{${this.prefix}:${queue}}:bull` : `{${this.prefix}}:bull`;
  }
  /** BullMQ's lock of a job (owned by BullMQ; read to tell whether a run still holds its job). */
  bullJobLock(queue: string, jobId: string): string {
    return `${this.bullPrefix(queue)}:${queue}:${jobId}:lock`;
  }
}
