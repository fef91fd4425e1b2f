import type { Redis } from 'ioredis';
import { Admission } from './admission.js';
import { ChangeStore } from './change-store.js';
import { ClusterStats } from './cluster-stats.js';
import { CrawlCoordinator } from './crawl-coordinator.js';
import { webhookCrawlNotifier, type BufferedCrawlNotifier } from './crawl-notifier.js';
import { WebhookOrder } from './webhook-order.js';
import { CrawlStore } from './crawl-store.js';
import { CreditLedger } from './credit-ledger.js';
import { DocumentBodyStore } from './document-body-store.js';
import { ExtractStore, extractBatchEnded } from './extract-store.js';
import { JobCancellations } from './job-cancellations.js';
import { JobDispatcher } from './job-dispatcher.js';
import { MonitorScheduler, monitorCrawlEnded } from './monitor-scheduler.js';
import { MonitorStore } from './monitor-store.js';
import { ProfileStore } from './profile-store.js';
import { QueueSet } from './queue-set.js';
import { closeRedisClient, createRedisClient, isRedisCluster, redisConnectionFromEnv } from './redis-connection.js';
import { RedisKeys } from './redis-keys.js';
import { ResultStore } from './result-store.js';
import { TeamStore } from './team-store.js';
import { TokenLedger } from './token-ledger.js';
import { WebhookSender } from './webhook-sender.js';

/**
 * The settings the queue stack is built from: fields of each app's config (`commonEnv`, `queueEnv`
 * and `webhookEnv` of @trawl/config). Every one is required, so an app config that lacks one does not
 * compile: both sides build the stack from the same settings.
 */
export interface QueueStackConfig {
  REDIS_URL?: string | undefined;
  REDIS_SENTINELS: string[];
  REDIS_SENTINEL_NAME: string;
  TRAWL_REDIS_PREFIX: string;
  /** Waiting jobs a team may have. */
  TRAWL_BACKLOG_CAP: number;
  /** Lifetime of finished results, seconds. */
  TRAWL_RESULT_RETENTION_SEC: number;
  /** Store large results compressed (see ResultStoreOptions.compress). Default false. */
  TRAWL_RESULT_COMPRESSION?: boolean;
  /** First retry delay of a webhook delivery, ms. */
  TRAWL_WEBHOOK_BACKOFF_MS: number;
  /** Webhook delivery attempts. */
  TRAWL_WEBHOOK_ATTEMPTS: number;
  /** Page events of a crawl per delivery job, at most (1: one job per page). */
  TRAWL_WEBHOOK_PAGE_BATCH: number;
}

/** Options of {@link createQueueStack}. */
export interface QueueStackOptions {
  /** CLIENT LIST name of the main connection (`trawl-api`, `trawl-worker`); extra ones get a suffix. */
  connectionName: string;
  /** A webhook that could not be queued (the crawl goes on). */
  onWebhookError: (err: unknown) => void;
  /** In-flight crawl pages older than this with no live job are recovered by the watchdog, ms. Default 30000. */
  crawlStaleAfterMs?: number;
  /** Connection errors of every client and queue (throttle it: while Redis is down each reconnection fails). */
  onRedisError?: (err: unknown) => void;
  /**
   * Reconnection attempts a command of the main connection waits through before it fails (the API:
   * a request answers 503 instead of hanging). Default: waits forever (workers, BullMQ).
   */
  maxRetriesPerRequest?: number;
}

/**
 * The Redis side of Trawl as the API and every worker see it: one command connection, the key
 * layout, the BullMQ queues, team admission and the stores over them. Built in one place so the two
 * composition roots cannot drift apart.
 */
export interface QueueStack {
  redis: Redis;
  keys: RedisKeys;
  queues: QueueSet;
  admission: Admission;
  dispatcher: JobDispatcher;
  results: ResultStore;
  teams: TeamStore;
  credits: CreditLedger;
  /** LLM tokens used per team (written by workers, read by the token-usage routes). */
  tokens: TokenLedger;
  cancellations: JobCancellations;
  crawls: CrawlStore;
  coordinator: CrawlCoordinator;
  /** Crawl events as webhooks; page events are batched per crawl (flushed by {@link close}). */
  notify: BufferedCrawlNotifier;
  webhooks: WebhookSender;
  monitors: MonitorStore;
  /** Extract records (`POST /v2/extract`). */
  extracts: ExtractStore;
  monitorScheduler: MonitorScheduler;
  documentBodies: DocumentBodyStore;
  profiles: ProfileStore;
  changes: ChangeStore;
  clusterStats: ClusterStats;
  /**
   * Another connection to the same Redis, for a subscriber or a BullMQ worker (blocking commands
   * cannot share the command connection). Named `<connectionName>-<role>`; closed by {@link close}.
   */
  connection(role: string): Redis;
  /** Closes the queues, then every connection (extra ones first). */
  close(): Promise<void>;
}

/** Builds the {@link QueueStack} of one process from its config. */
export function createQueueStack(config: QueueStackConfig, opts: QueueStackOptions): QueueStack {
  const redisOpts = redisConnectionFromEnv(config);
  const onError = opts.onRedisError;
  const redis = createRedisClient({
    ...redisOpts, connectionName: opts.connectionName, ...(onError ? { onError } : {}),
    ...(opts.maxRetriesPerRequest !== undefined ? { maxRetriesPerRequest: opts.maxRetriesPerRequest } : {}),
  });
  const extra: Redis[] = [];
  const keys = new RedisKeys(config.TRAWL_REDIS_PREFIX, { cluster: isRedisCluster(redis) });
  const queues = new QueueSet(redis, keys, onError ? { onError } : {});
  const admission = new Admission(redis, keys, { backlogCap: config.TRAWL_BACKLOG_CAP });
  const dispatcher = new JobDispatcher(redis, keys, admission, queues);
  const crawls = new CrawlStore(redis, keys);
  const webhooks = new WebhookSender(queues, {
    backoffMs: config.TRAWL_WEBHOOK_BACKOFF_MS, attempts: config.TRAWL_WEBHOOK_ATTEMPTS, order: new WebhookOrder(redis, keys),
  });
  const notify = webhookCrawlNotifier(webhooks, opts.onWebhookError, { maxEvents: config.TRAWL_WEBHOOK_PAGE_BATCH });
  const monitorScheduler = new MonitorScheduler(queues);
  const monitorEnded = monitorCrawlEnded(monitorScheduler);
  const extractEnded = extractBatchEnded(queues);
  const coordinator = new CrawlCoordinator(crawls, dispatcher, queues, notify, {
    ...(opts.crawlStaleAfterMs !== undefined ? { staleAfterMs: opts.crawlStaleAfterMs } : {}),
    // Whoever ends a monitor target's crawl or an extract's batch (a cancel in the API, its last page
    // in a worker, the watchdog) tells the check, or starts the extract's finish step.
    onEnded: async (crawl) => {
      await monitorEnded(crawl);
      await extractEnded(crawl);
    },
  });
  return {
    redis, keys, queues, admission, dispatcher, crawls, coordinator, notify, webhooks, monitorScheduler,
    results: new ResultStore(redis, keys, { retentionSec: config.TRAWL_RESULT_RETENTION_SEC, compress: config.TRAWL_RESULT_COMPRESSION ?? false }),
    teams: new TeamStore(redis, keys),
    credits: new CreditLedger(redis, keys),
    tokens: new TokenLedger(redis, keys),
    cancellations: new JobCancellations(redis, keys),
    monitors: new MonitorStore(redis, keys),
    extracts: new ExtractStore(redis, keys),
    documentBodies: new DocumentBodyStore(redis, keys),
    profiles: new ProfileStore(redis, keys),
    changes: new ChangeStore(redis, keys),
    clusterStats: new ClusterStats(redis, keys),
    connection(role) {
      const client = createRedisClient({ ...redisOpts, connectionName: `${opts.connectionName}-${role}`, ...(onError ? { onError } : {}) });
      extra.push(client);
      return client;
    },
    async close() {
      await notify.flush(); // page events held for batching go out before the queues close
      await queues.close();
      for (const client of extra.reverse()) client.disconnect();
      // Never waits on a dead Redis (bounded QUIT, then disconnect).
      await closeRedisClient(redis);
    },
  };
}
