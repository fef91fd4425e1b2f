export { RedisKeys } from './redis-keys.js';
export { closeRedisClient, createRedisClient, isRedisCluster, isRedisUnavailableError, parseClusterUrl, redisConnectionFromEnv, redisPrimaries, whenUnanswered, type RedisConnectionOptions } from './redis-connection.js';
export { JobCancellations, CancellationWatcher, cancelledError, type CancellationWatch } from './job-cancellations.js';
export { TeamStore, TEAM_DEFAULTS, hashApiKey, type Team, type TeamInput, type ApiKeyRecord } from './team-store.js';
export { RateLimiter, type RateDecision } from './rate-limiter.js';
export { TokenLedger, type UsagePeriod, type DailyTokens } from './token-ledger.js';
export { CreditLedger, creditShortfall, scrapeCredits, remainingCredits, withFormatCredits, type ScrapeUsage } from './credit-ledger.js';
export {
  Admission,
  type AdmissionOptions,
  type AdmitOutcome,
  type DispatchSpec,
  type PromotedJob,
  type PriorityClass,
} from './admission.js';
export { JobDispatcher, type AdmissionFacts, type JobSpec, type LocalRunner, type ReconcileReport } from './job-dispatcher.js';
export { QueueSet } from './queue-set.js';
export {
  JOB_CATALOG,
  QUEUE_NAMES,
  SCRAPE_QUEUE_NAMES,
  scrapeJobSchema,
  crawlQueueJobSchema,
  crawlParamsResultSchema,
  webhookJobSchema,
  monitorJobSchema,
  extractJobSchema,
  admissionInfoSchema,
  bullPriority,
  parseJob,
  replyToSchema,
  WEBHOOK_BACKOFF_TYPE,
  type QueueName,
  type ScrapeQueueName,
  type ScrapeJob,
  type CrawlQueueJob,
  type CrawlParamsResult,
  type WebhookJob,
  type MonitorJob,
  type ExtractJob,
  type QueuePolicy,
  type JobPayload,
} from './job-catalog.js';
export { WebhookSender, type WebhookSenderOptions, type WebhookSendOptions } from './webhook-sender.js';
export { WebhookOrder, isCrawlPageEvent, isCrawlTerminalEvent, type WebhookJobState, type WebhookOrderOptions } from './webhook-order.js';
export { buildWebhookPayload, type WebhookEvent } from './build-webhook-payload.js';
export { webhookRetryDelay, MAX_WEBHOOK_RETRY_AFTER_MS } from './webhook-retry-delay.js';
export { ResultStore, type JobOutcome, type LocalResultDelivery, type StoredCopy, type StoredResult, type ResultStoreOptions } from './result-store.js';
export { DocumentBodyStore, type PutDocumentBodyOptions } from './document-body-store.js';
export { ParseUploadStore, type ConsumeParseUpload, type NewParseUpload, type ParseUploadRecord, type ParseUploadState } from './parse-upload-store.js';
export { ResultWaiter } from './result-waiter.js';
export { hopTimingOn, recordHop, timeHop, type HopTiming } from './hop-timing.js';
export { ProfileStore } from './profile-store.js';
export { RedisProcess, freePort, pingRedis, watchRedisChild, type RedisProcessEvent, type RedisProcessOptions } from './redis-process.js';
export {
  CrawlStore,
  crawlExpiresAt,
  type CrawlKind,
  type CrawlStatus,
  type CrawlRecord,
  type CrawlRecordRequest,
  type NewCrawl,
  type CrawlCandidate,
  type CrawlPage,
  type PumpResult,
  type PageOutcome,
  type CrawlError,
  type PageDoneResult,
  type PageDoneNextResult,
  type CrawlEvent,
  type CrawlMonitorLink,
} from './crawl-store.js';
export { HostRateLimiter, isHostBusy, nextHostDelay, type HostPolitenessOptions, type HostResponse, type HostTicket } from './host-rate-limiter.js';
export { CACHE_WRITE_WAIT_MS, PageCache, type CachedPage, type CachedScreenshot, type CachedDocumentFacts, type DerivedEntry, type DerivedWrite, type EncodedPage, type PageCacheOptions, type PutOptions, type PutOutcome } from './page-cache.js';
export { cacheKeyOf, cacheReadOf, derivableFormats, derivableRequest, derivedOptionsHash, mayStore, parserSignature, staleReason, unusableReason, type CacheRead } from './cache-policy.js';
export { ChangeStore, type PageSnapshot } from './change-store.js';
export { CrawlCoordinator, type CrawlNotifier, type CrawlLifecycleEvent, type CrawlCoordinatorOptions, type RecoveredPage } from './crawl-coordinator.js';
export { webhookCrawlNotifier, type BufferedCrawlNotifier, type PageEventBatching } from './crawl-notifier.js';
export {
  MonitorStore,
  EMPTY_SUMMARY,
  type MonitorRecord,
  type MonitorCheckRecord,
  type MonitorPageRecord,
  type MonitorTargetRun,
  type MonitorNotificationStatus,
  type StartCheckOutcome,
} from './monitor-store.js';
export { MonitorScheduler, monitorCrawlEnded, nameUuid } from './monitor-scheduler.js';
export {
  ExtractStore, extractExpiresAt, queueExtractStart, extractBatchEnded,
  type ExtractRecord, type NewExtract, type ExtractOutcome,
} from './extract-store.js';
export { assertMonitorSchedule, nextMonitorRun, shortestIntervalSec } from './monitor-cron.js';
export { monitorView, monitorCheckView, monitorPageView, type MonitorView, type MonitorCheckView, type MonitorPageView } from './monitor-view.js';
export { openPageCache, type OpenPageCacheOptions, type OpenedPageCache, type PageCacheConfig } from './open-page-cache.js';
export { RedisBreakerOpenError } from './redis-breaker.js';
export { ClusterStats, readRedisMemory, QUEUE_JOB_STATES, type QueueJobState, type QueueStats, type RedisMemory } from './cluster-stats.js';
export { createQueueStack, type QueueStack, type QueueStackConfig, type QueueStackOptions } from './queue-stack.js';
