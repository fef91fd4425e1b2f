import express, { type Express } from 'express';
import type { Redis } from 'ioredis';
import type { Capability } from '@trawl/api-schema';
import type { LocalBlobStore } from '@trawl/blob-store';
import { createHttpMetrics, type Logger, type Registry } from '@trawl/observability';
import type { CreditLedger, DocumentBodyStore, JobCancellations, JobDispatcher, ParseUploadStore, QueueSet, RateLimiter, ResultStore, ResultWaiter, TeamStore, TokenLedger } from '@trawl/queue';
import type { ApiConfig } from './config.js';
import { adminAuth, apiKeyAuth } from './middleware/auth.js';
import { errorHandler, notFound } from './middleware/error-handler.js';
import { httpMetrics } from './middleware/http-metrics.js';
import { redisAvailable } from './middleware/redis-available.js';
import { requestId } from './middleware/request-id.js';
import { adminRoutes } from './routes/admin.routes.js';
import { QUEUE_BOARD_PATH, queueBoard } from './routes/queue-board.js';
import { blobRoutes } from './routes/blob.routes.js';
import { crawlRoutes } from './routes/crawl.routes.js';
import { crawlV1Routes } from './routes/crawl-v1.routes.js';
import { extractRoutes } from './routes/extract.routes.js';
import { mapRoutes } from './routes/map.routes.js';
import { searchRoutes } from './routes/search.routes.js';
import { monitorRoutes } from './routes/monitor.routes.js';
import { parseRoutes } from './routes/parse.routes.js';
import { parseUploadRoutes } from './routes/parse-upload.routes.js';
import { scrapeAuthDeferred, scrapeRoutes } from './routes/scrape.routes.js';
import { systemRoutes } from './routes/system.routes.js';
import { teamRoutes } from './routes/team.routes.js';
import { v1Routes } from './routes/v1.routes.js';
import { CrawlService } from './services/crawl.service.js';
import type { ExtractService } from './services/extract.service.js';
import { MapService } from './services/map.service.js';
import { SearchService } from './services/search.service.js';
import type { MonitorService } from './services/monitor.service.js';
import { ScrapeService, type GatewayCache } from './services/scrape.service.js';

/** Everything the gateway's routes use, created by the composition root. */
export interface AppDeps {
  config: ApiConfig;
  logger: Logger;
  registry: Registry;
  redis: Redis;
  teams: TeamStore;
  limiter: RateLimiter;
  credits: CreditLedger;
  /** LLM tokens used per team (the token-usage routes). */
  tokens: TokenLedger;
  dispatcher: JobDispatcher;
  results: ResultStore;
  waiter: ResultWaiter;
  queues: QueueSet;
  /** Uploads waiting for the documents role. */
  documentBodies: DocumentBodyStore;
  /** Upload URLs of the large-file parse flow. */
  parseUploads: ParseUploadStore;
  /** Stops running work whose caller went away. */
  cancellations: JobCancellations;
  /** The crawl and batch service, shared with the WebSocket stream. */
  crawls: CrawlService;
  /** Monitors (records, job schedulers, manual runs, checks). */
  monitors: MonitorService;
  /** Extracts (`/v2/extract`). */
  extracts: ExtractService;
  capabilities: ReadonlySet<Capability>;
  /** An LLM is configured (TRAWL_LLM_*): the LLM features are served; else they answer 400 LLM_NOT_CONFIGURED. */
  llmConfigured: boolean;
  /** A search provider is configured (TRAWL_SEARCH_PROVIDER is not `none`). Default false: search answers 400 UNSUPPORTED_OPTION. */
  searchEnabled?: boolean;
  /** The local blob store whose signed URLs this gateway serves; null when blobs live in S3. */
  blobs: LocalBlobStore | null;
  isShuttingDown: () => boolean;
  /** The page cache (absent when `TRAWL_CACHE_ENABLED=false`): derived hits are answered at the gateway. */
  cache?: GatewayCache;
}

/**
 * The Express gateway. Order matters: request id and metrics first; then system routes (no auth);
 * then admin routes (admin key); then API routes: API key -> rate limit -> body parsing -> schema.
 */
export function createApp(deps: AppDeps): Express {
  const { config } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.TRAWL_TRUST_PROXY);
  app.use(requestId(deps.logger));
  // While stopping, keep-alive clients are told to reconnect (to another replica) after this response.
  app.use((_req, res, next) => {
    if (deps.isShuttingDown()) res.setHeader('Connection', 'close');
    next();
  });
  app.use(httpMetrics(createHttpMetrics(deps.registry)));
  app.use(systemRoutes({
    redis: deps.redis,
    registry: deps.registry,
    isShuttingDown: deps.isShuttingDown,
    ...(config.TRAWL_PUBLIC_URL ? { publicUrl: config.TRAWL_PUBLIC_URL } : {}),
  }));
  // Everything below needs Redis: fail fast while it is down or not answering.
  app.use(redisAvailable(deps.redis, {
    stallMs: config.TRAWL_REDIS_STALL_MS,
    onStall: (stalled, nodes) => {
      if (stalled) deps.logger.warn({ stallMs: config.TRAWL_REDIS_STALL_MS, nodes }, 'redis is not answering: requests fail with 503 until it does');
      else deps.logger.info('redis answers again');
    },
  }));
  app.use('/admin', adminAuth(config.TRAWL_ADMIN_KEY, deps.teams));
  if (config.TRAWL_QUEUE_UI) app.use(QUEUE_BOARD_PATH, queueBoard(deps.queues, { readOnly: config.TRAWL_QUEUE_UI_READ_ONLY }));
  app.use(adminRoutes({ teams: deps.teams, maxBodyBytes: config.TRAWL_MAX_BODY_BYTES, maxJsonDepth: config.TRAWL_MAX_JSON_DEPTH }));
  const scrape = new ScrapeService({
    dispatcher: deps.dispatcher,
    waiter: deps.waiter,
    results: deps.results,
    credits: deps.credits,
    documentBodies: deps.documentBodies,
    cancellations: deps.cancellations,
    capabilities: deps.capabilities,
    llmConfigured: deps.llmConfigured,
    graceMs: config.TRAWL_SYNC_GRACE_MS,
    ...(deps.cache ? { cache: deps.cache } : {}),
  });
  // Blob URLs carry their own signature instead of an API key.
  app.use(blobRoutes({ store: deps.blobs }));
  // Upload URLs carry their own token too.
  const uploadTiming = { urlTtlSec: config.TRAWL_PARSE_UPLOAD_URL_TTL_SEC };
  app.use(parseUploadRoutes({ uploads: deps.parseUploads, documentBodies: deps.documentBodies, timing: uploadTiming, maxFileBytes: config.TRAWL_PARSE_MAX_FILE_BYTES }));
  app.use(['/v1', '/v2'], apiKeyAuth(deps.teams, { deferTo: scrapeAuthDeferred }));
  app.use(scrapeRoutes({ scrape, limiter: deps.limiter, teams: deps.teams, maxBodyBytes: config.TRAWL_MAX_BODY_BYTES, maxJsonDepth: config.TRAWL_MAX_JSON_DEPTH }));
  const publicUrl = config.TRAWL_PUBLIC_URL ? { publicUrl: config.TRAWL_PUBLIC_URL } : {};
  app.use(parseRoutes({
    scrape, limiter: deps.limiter, credits: deps.credits, documentBodies: deps.documentBodies,
    enabled: config.TRAWL_DOCUMENTS_ENABLED, maxOptionsBytes: config.TRAWL_MAX_BODY_BYTES, maxJsonDepth: config.TRAWL_MAX_JSON_DEPTH, maxFileBytes: config.TRAWL_PARSE_MAX_FILE_BYTES,
    uploads: deps.parseUploads, uploadTiming, ...publicUrl,
  }));
  app.use(crawlRoutes({ crawls: deps.crawls, limiter: deps.limiter, maxBodyBytes: config.TRAWL_MAX_BODY_BYTES, maxJsonDepth: config.TRAWL_MAX_JSON_DEPTH, ...publicUrl }));
  app.use(crawlV1Routes({ crawls: deps.crawls, limiter: deps.limiter, maxBodyBytes: config.TRAWL_MAX_BODY_BYTES, maxJsonDepth: config.TRAWL_MAX_JSON_DEPTH, ...publicUrl }));
  const maps = new MapService({
    queues: deps.queues, waiter: deps.waiter, results: deps.results, credits: deps.credits, cancellations: deps.cancellations,
    defaultTimeoutMs: config.TRAWL_MAP_DEFAULT_TIMEOUT_MS, graceMs: config.TRAWL_SYNC_GRACE_MS,
  });
  app.use(mapRoutes({ maps, limiter: deps.limiter, maxBodyBytes: config.TRAWL_MAX_BODY_BYTES, maxJsonDepth: config.TRAWL_MAX_JSON_DEPTH }));
  const searches = new SearchService({
    queues: deps.queues, waiter: deps.waiter, results: deps.results, credits: deps.credits, cancellations: deps.cancellations,
    enabled: deps.searchEnabled ?? false, graceMs: config.TRAWL_SYNC_GRACE_MS,
  });
  app.use(searchRoutes({ searches, limiter: deps.limiter, maxBodyBytes: config.TRAWL_MAX_BODY_BYTES, maxJsonDepth: config.TRAWL_MAX_JSON_DEPTH }));
  app.use(extractRoutes({ extracts: deps.extracts, limiter: deps.limiter, maxBodyBytes: config.TRAWL_MAX_BODY_BYTES, maxJsonDepth: config.TRAWL_MAX_JSON_DEPTH }));
  app.use(monitorRoutes({ monitors: deps.monitors, limiter: deps.limiter, maxBodyBytes: config.TRAWL_MAX_BODY_BYTES, maxJsonDepth: config.TRAWL_MAX_JSON_DEPTH, ...publicUrl }));
  app.use(v1Routes({ scrape, crawls: deps.crawls, maps, extracts: deps.extracts, limiter: deps.limiter, maxBodyBytes: config.TRAWL_MAX_BODY_BYTES, maxJsonDepth: config.TRAWL_MAX_JSON_DEPTH, ...publicUrl }));
  app.use(teamRoutes({ limiter: deps.limiter, dispatcher: deps.dispatcher, results: deps.results, credits: deps.credits, tokens: deps.tokens }));
  app.use(notFound());
  app.use(errorHandler());
  return app;
}
