import { llmSettingsOf, searchSettingsOf } from '@trawl/config';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BROWSER_CAPABILITIES, LLM_CAPABILITIES, type Capability } from '@trawl/api-schema';
import { LocalBlobStore, createBlobStore } from '@trawl/blob-store';
import { Counter, createMetricsRegistry, registerClusterMetrics, throttledErrorLog, type Logger, type Registry } from '@trawl/observability';
import {
  ParseUploadStore, RateLimiter, ResultWaiter, createQueueStack, openPageCache, type LocalRunner, type PageCache, type ResultStore, type TeamStore,
} from '@trawl/queue';
import { createApp } from './app.js';
import { guardConnections } from './connection-guard.js';
import { CrawlEventHub, attachCrawlStream } from './routes/crawl-stream.js';
import { CrawlParamsService } from './services/crawl-params.service.js';
import { CrawlService } from './services/crawl.service.js';
import { ExtractService } from './services/extract.service.js';
import { MonitorService } from './services/monitor.service.js';
import type { ApiConfig } from './config.js';

/**
 * Reconnection attempts a request's Redis command waits through before failing with 503 (with the
 * client's 100 ms..2 s backoff, a few seconds): enough for a Redis restart, never a hang.
 */
const API_REDIS_RETRIES = 10;

/** A running gateway. */
export interface ApiHandle {
  server: Server;
  /** `http://host:port` it listens on. */
  url: string;
  teams: TeamStore;
  /**
   * Jobs this API admits are offered to `runner` first: a worker in the same process (embedded mode)
   * runs them at once, without the queue hop; what it declines goes to BullMQ. `undefined` turns it off.
   * `results`: that worker's result store; while a runner is set, the outcomes it stores for this API's
   * waiting requests are handed to them in-process (no announcement on the results channel).
   * `pageCache`: that worker's page cache (required with `results`: an outcome handed over goes ahead
   * of its page's cache writes); while a runner is set, this API's cache reads wait for its writes of
   * the same entry.
   */
  runLocally(runner: LocalRunner | undefined, opts?: { results: ResultStore; pageCache: PageCache | undefined }): void;
  /**
   * Readiness off; after `delayMs` stop accepting; in-flight requests get `graceMs` to finish (sync
   * scrapes still waiting then answer 503); close resources. Defaults: TRAWL_SHUTDOWN_DELAY_MS and
   * TRAWL_SHUTDOWN_GRACE_MS.
   */
  close(opts?: { graceMs?: number; delayMs?: number }): Promise<void>;
}

/**
 * Composition root of the API: creates the Redis connections, stores, queues and the HTTP server,
 * and closes them in reverse order. Used by `main.ts` (production) and the CLI's embedded mode.
 */
export async function startApi(
  config: ApiConfig,
  opts: { logger: Logger; registry?: Registry; capabilities?: ReadonlySet<Capability> },
): Promise<ApiHandle> {
  const { logger } = opts;
  const registry = opts.registry ?? createMetricsRegistry({ role: 'api' });
  // One throttled line while Redis is down, not one per reconnection attempt of each client.
  const onRedisError = throttledErrorLog(logger, 'redis connection error');
  const stack = createQueueStack(config, {
    connectionName: 'trawl-api', onRedisError,
    // Commands of requests give up after a few reconnection attempts (503), instead of waiting forever.
    maxRetriesPerRequest: API_REDIS_RETRIES,
    onWebhookError: (err) => logger.warn({ err }, 'webhook could not be queued'),
  });
  const { redis, keys, teams, cancellations, queues, results, dispatcher, credits, coordinator, notify, monitorScheduler } = stack;
  // Commands give up after a few reconnections: at startup, wait for Redis instead (it may start later).
  // (Not events.once: it would reject on the first connection error.)
  if (redis.status !== 'ready') await new Promise<void>((resolve) => redis.once('ready', () => resolve()));
  const crawlStore = stack.crawls;
  const waiter = new ResultWaiter(stack.connection('sub'), keys, results);
  await waiter.start();
  registerClusterMetrics(registry, () => stack.clusterStats.snapshot());
  if (config.TRAWL_BOOTSTRAP_API_KEY) {
    const team = await teams.ensureKey(config.TRAWL_BOOTSTRAP_API_KEY, 'default');
    logger.info({ teamId: team.id }, 'bootstrap API key ready');
  }
  // The gateway serves local-store blobs (screenshots, PDFs) at their signed URLs and sweeps expired ones.
  const blobStore = createBlobStore(config, { publicBaseUrl: config.TRAWL_PUBLIC_URL ?? `http://127.0.0.1:${config.PORT}` });
  const localBlobs = blobStore instanceof LocalBlobStore ? blobStore : null;
  if (localBlobs?.ephemeralSecret) logger.warn('TRAWL_BLOB_SIGNING_SECRET is unset: blob URLs signed by other processes will not verify');
  const sweeper = localBlobs
    ? setInterval(() => {
      void localBlobs.sweep({ olderThanSec: config.TRAWL_BLOB_RETENTION_SEC }).catch((err: unknown) => logger.warn({ err }, 'blob sweep failed'));
    }, 10 * 60_000)
    : undefined;
  sweeper?.unref();
  const llmConfigured = llmSettingsOf(config) !== undefined;
  const capabilities = opts.capabilities ?? new Set<Capability>([
    ...(config.TRAWL_BROWSER_ENABLED ? BROWSER_CAPABILITIES : []),
    // The LLM features need a configured LLM (else 400 LLM_NOT_CONFIGURED); highlights rank lexically without one.
    ...(llmConfigured ? LLM_CAPABILITIES : []),
    'highlights',
    // Change tracking keeps its versions in the queue Redis: always there. The cache-only modes need the cache.
    'changeTracking',
    ...(config.TRAWL_CACHE_ENABLED ? (['lockdown', 'minAge'] as const) : []),
  ]);
  // Derived cache hits are answered here (ScrapeService.scrape): the same cache the workers write.
  const cacheStore = openPageCache(config, redis, { connectionName: 'trawl-api-cache', onRedisError, maxRetriesPerRequest: API_REDIS_RETRIES, log: logger });
  const cache = cacheStore
    ? {
      pages: cacheStore.cache,
      shared: config.TRAWL_CACHE_SHARED,
      lookups: new Counter({
        name: 'trawl_gateway_cache_lookups_total',
        help: 'Derived cache entries looked up by the gateway, by mode (fresh: maxAge; minAge) and outcome (hit: answered without a worker; miss, stale, failed: sent to a worker)',
        labelNames: ['mode', 'outcome'] as const,
        registers: [registry],
      }),
    }
    : undefined;
  let shuttingDown = false;
  const params = new CrawlParamsService({
    queues, waiter, results, cancellations, llmConfigured,
    llmTimeoutMs: config.TRAWL_LLM_TIMEOUT_MS, graceMs: config.TRAWL_SYNC_GRACE_MS,
  });
  const crawls = new CrawlService({ store: crawlStore, coordinator, cancellations, credits, notify, capabilities, llmConfigured, params, retentionSec: config.TRAWL_CRAWL_RETENTION_SEC,
    webhookAllowPrivate: config.TRAWL_WEBHOOK_ALLOW_PRIVATE || config.TRAWL_ALLOW_PRIVATE_TARGETS,
  });
  // Web search is served unless turned off (TRAWL_SEARCH_PROVIDER=none): extract enableWebSearch, monitor search targets.
  const webSearch = searchSettingsOf(config).provider !== 'none';
  const monitors = new MonitorService({
    store: stack.monitors, scheduler: monitorScheduler, capabilities,
    webhookAllowPrivate: config.TRAWL_WEBHOOK_ALLOW_PRIVATE || config.TRAWL_ALLOW_PRIVATE_TARGETS,
    minIntervalSec: config.TRAWL_MONITOR_MIN_INTERVAL_SEC, webSearch,
  });
  const extracts = new ExtractService({
    store: stack.extracts, queues, credits, crawls: crawlStore, coordinator, cancellations, capabilities, llmConfigured,
    webhookAllowPrivate: config.TRAWL_WEBHOOK_ALLOW_PRIVATE || config.TRAWL_ALLOW_PRIVATE_TARGETS,
    retentionSec: config.TRAWL_CRAWL_RETENTION_SEC, webSearch,
  });
  const hub = new CrawlEventHub(stack.connection('crawl-sub'), keys);
  await hub.start();
  const app = createApp({
    config, logger, registry, redis, teams,
    limiter: new RateLimiter(redis, keys),
    credits,
    tokens: stack.tokens,
    dispatcher, results, waiter, queues, crawls, monitors, extracts,
    documentBodies: stack.documentBodies,
    parseUploads: new ParseUploadStore(redis, keys),
    cancellations,
    capabilities,
    llmConfigured,
    searchEnabled: searchSettingsOf(config).provider !== 'none',
    blobs: localBlobs,
    isShuttingDown: () => shuttingDown,
    ...(cache ? { cache } : {}),
  });
  // Request timeouts are checked this often: a fraction of the shortest, so they fire near their value.
  const server = createServer({ connectionsCheckingInterval: Math.min(1000, Math.floor(config.TRAWL_HEADERS_TIMEOUT_MS / 4)) }, app);
  const wss = attachCrawlStream(server, { teams, crawls, store: crawlStore, hub, logger });
  guardConnections(server, {
    headersTimeoutMs: config.TRAWL_HEADERS_TIMEOUT_MS,
    bodyTimeoutMs: config.TRAWL_BODY_TIMEOUT_MS,
    idleTimeoutMs: config.TRAWL_IDLE_TIMEOUT_MS,
    maxConnectionsPerClient: config.TRAWL_MAX_CONNECTIONS_PER_CLIENT,
  }, logger);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, resolve);
  });
  const addr = server.address() as AddressInfo;
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${addr.port}`;
  logger.info({ url }, 'api listening');

  return {
    server,
    url,
    teams,
    runLocally: (runner, opts) => {
      stack.dispatcher.runLocally(runner);
      opts?.results?.deliverLocally(runner ? waiter : undefined);
      cache?.pages.follow(runner ? opts?.pageCache : undefined);
    },
    async close({ graceMs = config.TRAWL_SHUTDOWN_GRACE_MS, delayMs = config.TRAWL_SHUTDOWN_DELAY_MS } = {}) {
      // Readiness answers 503 from now on; the listener keeps serving while load balancers notice.
      shuttingDown = true;
      logger.info({ graceMs, delayMs }, 'api stopping');
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
      for (const client of wss.clients) client.close(1001);
      wss.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // A keep-alive connection whose last response was sent after this point idles: close those too.
      server.closeIdleConnections();
      const idle = setInterval(() => server.closeIdleConnections(), 200);
      // Past the grace period, callers still waiting get 503 (their jobs go on in the workers), then
      // whatever connection is left is cut.
      let cut: NodeJS.Timeout | undefined;
      const timer = setTimeout(() => {
        waiter.close();
        cut = setTimeout(() => server.closeAllConnections(), 1000);
      }, graceMs);
      await closed;
      clearInterval(idle);
      clearTimeout(timer);
      clearTimeout(cut);
      waiter.close();
      hub.close();
      if (sweeper) clearInterval(sweeper);
      await blobStore.close();
      await cacheStore?.close();
      await stack.close();
    },
  };
}
