import { Worker } from 'bullmq';
import { createMetricsRegistry, registerClusterMetrics, throttledErrorLog, type Logger, type Registry } from '@trawl/observability';
import { readFile } from 'node:fs/promises';
import { createBlobStore, type BlobStore } from '@trawl/blob-store';
import {
  CancellationWatcher, HostRateLimiter, ResultWaiter, createQueueStack, openPageCache, type LocalRunner, type PageCache, type ResultStore,
} from '@trawl/queue';
import { CachingDnsResolver, TargetGuard, type DnsResolver } from '@trawl/net-guard';
import { llmSettingsOf, searchSettingsOf } from '@trawl/config';
import { createSearchProvider, type SearchProvider } from '@trawl/search';
import { ChatCompletionsLlm, type Llm } from '@trawl/llm';
import { EgressProxy, HttpFetcher, ProxyPools, type Fetcher } from '@trawl/scrape-engine';
import type { WorkerConfig } from './config.js';
import type { BrowserEngine } from './scrape/pipeline/context.js';
import { CrawlPages } from './crawl/crawl-pages.js';
import { CrawlProcessor } from './crawl/crawl.processor.js';
import { CrawlParamsRunner } from './crawl/crawl-params-runner.js';
import { MapRunner } from './crawl/map-runner.js';
import { ExtractFinisher } from './extract/extract-finisher.js';
import { ExtractProcessor } from './extract/extract.processor.js';
import { ExtractStarter } from './extract/extract-starter.js';
import { MonitorCheckFinisher } from './monitor/monitor-check-finisher.js';
import { MonitorCheckStarter } from './monitor/monitor-check-starter.js';
import { MonitorProcessor } from './monitor/monitor.processor.js';
import { SiteDiscovery } from './crawl/site-discovery.js';
import type { DocumentParser } from './document/document-parser.js';
import { InlineHtmlConverter, ThreadedHtmlConverter, type HtmlConverter } from './convert/html-converter.js';
import { countStalled, lifecycleHandler, type JobHandler } from './job-lifecycle.js';
import { startMetricsServer } from './metrics-server.js';
import { ScrapeProcessor, type ScrapeProcessorDeps } from './scrape/scrape.processor.js';
import { LocalRuns } from './scrape/local-runs.js';
import { ChangeTracker } from './scrape/change-tracking.js';
import { CacheStep } from './cache/cache-step.js';
import { startWebhookWorker } from './webhook/start-webhook-worker.js';
import { createWorkerMetrics, type WorkerMetrics } from './worker-metrics.js';
import { DispatchedPageScraper } from './search/dispatched-page-scraper.js';
import { SearchRunner } from './search/search-runner.js';
import type { WebSearch } from './search/search-pages.js';

/** After the grace period's abort, how long aborted jobs get to hand themselves back, ms. */
const ABORT_SETTLE_MS = 5_000;

/** A running worker process. */
export interface WorkerHandle {
  /** Port of /metrics and /health. */
  metricsPort: number;
  /**
   * Takes scrape jobs admitted elsewhere in this process (the embedded API's) to run here without the
   * queue hop; undefined when this worker runs none (no `http` role, TRAWL_WORKER_LOCAL_RUNS=0).
   */
  localRunner: LocalRunner | undefined;
  /** Where this worker stores outcomes (embedded mode hands them to the API's waiters: ApiHandle.runLocally). */
  results: ResultStore;
  /** Its page cache (none: caching is off), whose writes an API in this process follows (ApiHandle.runLocally). */
  pageCache: PageCache | undefined;
  /**
   * Graceful stop: readiness off, no new jobs, in-flight jobs get `graceMs` to finish; those still
   * running are aborted and go back to the queue (BullMQ lock released), then resources close.
   */
  close(opts?: { graceMs?: number }): Promise<void>;
}

export interface StartWorkerOptions {
  logger: Logger;
  registry?: Registry;
  /** Replaces the HTTP engine (tests). */
  fetcher?: Fetcher;
  /** Replaces the browser engine of the browser role (tests): no Chromium is started. */
  browserFetcher?: BrowserEngine;
  /** Replaces the configured search provider (tests); `null` turns search off. */
  searchProvider?: SearchProvider | null;
  /** Base URL for local blob URLs when TRAWL_BLOB_PUBLIC_URL is unset (embedded mode: the API's URL). */
  blobPublicBaseUrl?: string;
  /** `inline` runs HTML conversion and document parsing on the main thread (tests). Default `threads`. */
  htmlMode?: 'threads' | 'inline';
}

/** Composition root of a worker: connections, engines, processors, BullMQ workers, reaper, metrics. */
export async function startWorker(config: WorkerConfig, opts: StartWorkerOptions): Promise<WorkerHandle> {
  const { logger } = opts;
  const registry = opts.registry ?? createMetricsRegistry({ role: 'worker' });
  // While Redis is down every client fails once per reconnection attempt: one line per 30 s instead.
  const onError = throttledErrorLog(logger, 'redis connection error');
  const stack = createQueueStack(config, {
    connectionName: 'trawl-worker', crawlStaleAfterMs: config.TRAWL_CRAWL_STALE_AFTER_MS, onRedisError: onError,
    onWebhookError: (err) => logger.warn({ err }, 'webhook could not be queued'),
  });
  const { redis, keys, dispatcher, results, credits, teams, coordinator, notify, webhooks, monitorScheduler } = stack;
  const crawlStore = stack.crawls;
  const bullConnection = stack.connection('bull');
  const cancellations = new CancellationWatcher(stack.connection('cancel-sub'), keys, stack.cancellations);
  await cancellations.start();
  const shutdown = new AbortController();
  let shuttingDown = false;

  const metrics = createWorkerMetrics(registry);
  // The limits both resolvers keep, and their lookups counted under their name.
  const resolverOptions = (name: 'targets' | 'proxies') => ({
    timeoutMs: config.TRAWL_DNS_TIMEOUT_MS,
    maxTtlSeconds: config.TRAWL_DNS_CACHE_MAX_TTL_SEC,
    observe: (source: string, seconds: number) => metrics.dnsLookups.observe({ resolver: name, source }, seconds),
  });
  // One resolver (and its cache) for every connection this process makes to a target or a receiver.
  const resolver = new CachingDnsResolver({
    servers: config.TRAWL_DNS_SERVERS,
    // Servers chosen for the worker are the only ones asked: not the system's for what they do not know.
    ...(config.TRAWL_DNS_SERVERS.length > 0 ? { fallback: null } : {}),
    ...resolverOptions('targets'),
  });
  // The operator's proxies: the system's servers and, for names DNS does not know, its resolver
  // (search domains: a proxy may be a short in-cluster name), whatever TRAWL_DNS_SERVERS says.
  const proxyResolver = new CachingDnsResolver(resolverOptions('proxies'));
  const fetcher = opts.fetcher ?? new HttpFetcher({
    allowPrivateTargets: config.TRAWL_ALLOW_PRIVATE_TARGETS,
    resolver,
    proxyResolver,
    ...(config.TRAWL_USER_AGENT ? { defaultUserAgent: config.TRAWL_USER_AGENT } : {}),
  });
  const converter: HtmlConverter = opts.htmlMode === 'inline'
    ? new InlineHtmlConverter()
    : new ThreadedHtmlConverter(new URL('./convert/html-thread.js', import.meta.url), config.TRAWL_HTML_THREADS, { jobsRunning: () => metrics.jobsInFlight.scrapesRunning });
  const browserRole = config.TRAWL_WORKER_ROLES.includes('browser');
  const browser = !browserRole ? undefined
    : opts.browserFetcher ? { fetcher: opts.browserFetcher, close: async () => undefined } : await startBrowserEngine(config, logger, metrics, fetcher, { resolver, proxyResolver });
  const blobs: BlobStore | undefined = browserRole
    ? createBlobStore(config, opts.blobPublicBaseUrl ? { publicBaseUrl: opts.blobPublicBaseUrl } : {})
    : undefined;
  const documents = config.TRAWL_WORKER_ROLES.includes('documents') ? await startDocumentParser(config, logger, opts.htmlMode ?? 'threads') : undefined;
  if (documents?.threads) metrics.trackDocumentThreads(documents.threads);
  const llm = createLlm(config, logger, metrics);
  const crawlPages = new CrawlPages({ store: crawlStore, coordinator, notify, logger, metrics });
  const changeStore = stack.changes;
  // The cache may live in its own (evicting) Redis; by default it shares the queue's, self-bounded.
  const cacheStore = openPageCache(config, redis, { connectionName: 'trawl-worker-cache', onRedisError: onError, log: logger });
  const pageCache = cacheStore?.cache;
  registerClusterMetrics(registry, () => stack.clusterStats.snapshot(cacheStore?.separate ? () => cacheStore.cache.redisMemory() : undefined));
  if (cacheStore?.separate && config.TRAWL_CACHE_MAX_BYTES === 0) {
    // Unbounded by us and unable to evict: a full cache Redis would refuse every write.
    void cacheStore.redis.config('GET', 'maxmemory-policy').then((reply) => {
      const policy = Array.isArray(reply) ? String(reply[1]) : '';
      if (policy === 'noeviction') logger.warn({ policy }, 'cache Redis does not evict and TRAWL_CACHE_MAX_BYTES is 0: set maxmemory-policy allkeys-lru on it');
    }, () => undefined);
  }
  const hostRate = new HostRateLimiter(redis, keys, {
    ratePerSec: config.TRAWL_CRAWL_HOST_RATE_PER_SEC, maxInFlight: config.TRAWL_CRAWL_HOST_MAX_IN_FLIGHT,
    targetConcurrency: config.TRAWL_CRAWL_HOST_TARGET_CONCURRENCY, minDelayMs: config.TRAWL_CRAWL_HOST_MIN_DELAY_MS,
    maxDelayMs: config.TRAWL_CRAWL_HOST_MAX_DELAY_MS,
  });
  const deps: ScrapeProcessorDeps = {
    http: fetcher,
    ...(browser ? { browser: browser.fetcher } : {}),
    browserFallback: config.TRAWL_BROWSER_FALLBACK,
    proxies: new ProxyPools({ basic: config.TRAWL_PROXY_BASIC, enhanced: config.TRAWL_PROXY_ENHANCED }),
    ...(blobs ? { blobs } : {}),
    ...(documents ? { documents } : {}),
    documentBodies: stack.documentBodies,
    documentParsing: config.TRAWL_DOCUMENT_PARSING,
    blobUrlTtlSec: config.TRAWL_BLOB_URL_TTL_SEC,
    profiles: stack.profiles,
    converter, results, dispatcher,
    credits,
    teams,
    metrics,
    logger, maxResponseBytes: config.TRAWL_MAX_RESPONSE_BYTES,
    maxResultBytes: config.TRAWL_MAX_RESULT_BYTES,
    maxActionReturnBytes: config.TRAWL_MAX_ACTION_RETURN_BYTES,
    crawlPages,
    hostRate,
    shutdown: shutdown.signal,
    cancellations,
    cache: new CacheStep({
      ...(pageCache ? { cache: pageCache } : {}), shared: config.TRAWL_CACHE_SHARED,
      ...(blobs ? { blobs } : {}), blobUrlTtlSec: config.TRAWL_BLOB_URL_TTL_SEC, metrics,
    }),
    changes: new ChangeTracker(changeStore, metrics),
    ...(llm ? { llm } : {}),
    tokens: stack.tokens,
  };

  const workers: Array<Pick<Worker, 'close'>> = [];
  let resultWaiter: ResultWaiter | undefined;
  /** One BullMQ consumer of `queue`; a job whose worker stops renewing its lock is retried elsewhere. */
  const consumeQueue = (queue: string, handler: JobHandler, concurrency: number) => {
    const worker = new Worker(queue, lifecycleHandler(queue, handler, { metrics, shutdown: shutdown.signal }), {
      connection: bullConnection,
      prefix: keys.bullPrefix(queue),
      concurrency,
      lockDuration: config.TRAWL_JOB_LOCK_MS,
      stalledInterval: Math.max(1000, Math.floor(config.TRAWL_JOB_LOCK_MS / 2)),
      maxStalledCount: 2,
    });
    worker.on('error', throttledErrorLog(logger, 'bullmq worker error', { fields: { queue } }));
    // A stalled job (its worker died or missed its lock renewals) goes back to wait, or fails after
    // `maxStalledCount` stalls: the ids say which page a crash touched.
    worker.on('stalled', (jobId, previous) => logger.warn({ jobId, queue, previous }, 'job stalled'));
    countStalled(worker, queue, metrics);
    workers.push(worker);
  };
  const consume = (queue: 'scrape' | 'browser' | 'documents', concurrency: number) => {
    const processor = new ScrapeProcessor(queue, deps);
    consumeQueue(queue, (job, token) => processor.process(job, token), concurrency);
    return processor;
  };
  let webSearch: WebSearch | undefined;
  let localRuns: LocalRuns | undefined;
  if (config.TRAWL_WORKER_ROLES.includes('http')) {
    const processor = consume('scrape', config.TRAWL_WORKER_CONCURRENCY);
    if (config.TRAWL_WORKER_LOCAL_RUNS > 0) {
      // Scrape jobs this process admits run here at once, without the queue hop (see LocalRuns).
      localRuns = new LocalRuns({ processor, dispatcher, metrics, logger, shutdown: shutdown.signal, max: config.TRAWL_WORKER_LOCAL_RUNS });
      dispatcher.runLocally(localRuns.offer);
    }
    const discovery = new SiteDiscovery({ fetcher, maxBytes: config.TRAWL_MAX_RESPONSE_BYTES });
    const mapRunner = new MapRunner({ fetcher, converter, discovery, concurrency: config.TRAWL_MAP_CONCURRENCY, maxResponseBytes: config.TRAWL_MAX_RESPONSE_BYTES });
    // Search results are scraped as sync scrape jobs whose outcomes this process awaits.
    resultWaiter = new ResultWaiter(stack.connection('results-sub'), keys, results);
    await resultWaiter.start();
    const searchProvider = opts.searchProvider !== undefined ? opts.searchProvider ?? undefined : createSearchProvider(searchSettingsOf(config));
    const searchRunner = new SearchRunner({
      provider: searchProvider,
      scraper: new DispatchedPageScraper({ dispatcher, waiter: resultWaiter, results, cancellations: stack.cancellations }),
      guard: new TargetGuard({ allowPrivateTargets: config.TRAWL_ALLOW_PRIVATE_TARGETS, resolver }),
      credits, requests: metrics.searchRequests, logger: logger.child({ component: 'search' }),
    });
    // Extracts (enableWebSearch) and monitor search targets search only when a provider is configured.
    if (searchProvider) webSearch = searchRunner;
    const crawlProcessor = new CrawlProcessor({
      store: crawlStore, coordinator, notify, discovery, results, credits, logger, changes: changeStore,
      mapRunner, searchRunner,
      paramsRunner: new CrawlParamsRunner({ mapRunner, llm, logger }),
      tokens: stack.tokens,
      kickoffBudgetMs: config.TRAWL_CRAWL_KICKOFF_BUDGET_MS,
      shutdown: shutdown.signal,
      cancellations, teams, hostRate,
    });
    consumeQueue('crawl', (job) => crawlProcessor.process(job), config.TRAWL_CRAWL_CONCURRENCY);
    const extractLog = logger.child({ component: 'extract' });
    const extractProcessor = new ExtractProcessor({
      extracts: stack.extracts, webhooks, logger: extractLog, shutdown: shutdown.signal,
      starter: new ExtractStarter({
        extracts: stack.extracts, crawls: crawlStore, coordinator, mapRunner, teams, webhooks, logger: extractLog,
        maxPages: config.TRAWL_EXTRACT_MAX_PAGES, mapTimeoutMs: config.TRAWL_EXTRACT_MAP_TIMEOUT_MS, shutdown: shutdown.signal,
        ...(webSearch ? { search: webSearch } : {}),
      }),
      finisher: new ExtractFinisher({
        extracts: stack.extracts, crawls: crawlStore, credits, webhooks, tokens: stack.tokens, logger: extractLog, shutdown: shutdown.signal, ...(llm ? { llm } : {}),
      }),
    });
    consumeQueue('extract', (job) => extractProcessor.process(job), config.TRAWL_EXTRACT_CONCURRENCY);
  }
  if (config.TRAWL_WORKER_ROLES.includes('http')) {
    const monitors = stack.monitors;
    const monitorProcessor = new MonitorProcessor({
      starter: new MonitorCheckStarter({
        monitors, scheduler: monitorScheduler, crawls: crawlStore, coordinator, credits, teams, logger,
        crawlRetentionSec: config.TRAWL_CRAWL_RETENTION_SEC, checkTimeoutMs: config.TRAWL_MONITOR_CHECK_TIMEOUT_SEC * 1000,
        ...(webSearch ? { search: webSearch } : {}),
      }),
      finisher: new MonitorCheckFinisher({ monitors, crawls: crawlStore, webhooks, logger }),
    });
    consumeQueue('monitor', (job) => monitorProcessor.process(job), config.TRAWL_MONITOR_CONCURRENCY);
  }
  if (browserRole) consume('browser', config.TRAWL_BROWSER_CONCURRENCY);
  if (documents) consume('documents', config.TRAWL_DOCUMENT_CONCURRENCY);
  if (config.TRAWL_WORKER_ROLES.includes('http')) {
    workers.push(startWebhookWorker(config, {
      connection: bullConnection, keys, logger, registry, shutdown: shutdown.signal, resolver,
      wrap: (handler) => lifecycleHandler('webhook', handler, { metrics, shutdown: shutdown.signal }),
      onWorker: (worker) => countStalled(worker, 'webhook', metrics),
    }));
  }

  // Reaper: any worker may run it; a Redis lock makes one pass run at a time cluster-wide.
  const reaper = setInterval(() => {
    void dispatcher.reconcile().then(
      (r) => { if (r && (r.released || r.recovered)) logger.warn(r, 'admission reconciled'); },
      (err: unknown) => logger.warn({ err }, 'admission reconcile failed'),
    );
  }, config.TRAWL_REAPER_INTERVAL_MS);
  reaper.unref();
  // Crawl watchdog: lost pages and seedings are recovered, so no crawl stays `scraping` forever.
  const watchdog = setInterval(() => {
    void coordinator.watch({ intervalMs: config.TRAWL_CRAWL_WATCH_INTERVAL_MS }).then(
      (pages) => { for (const page of pages) logger.warn(page, 'crawl page recovered'); },
      (err: unknown) => logger.warn({ err }, 'crawl watchdog failed'),
    );
  }, config.TRAWL_CRAWL_WATCH_INTERVAL_MS);
  watchdog.unref();

  const metricsServer = await startMetricsServer({
    registry, redis, host: config.TRAWL_WORKER_HOST, port: config.TRAWL_WORKER_PORT, isShuttingDown: () => shuttingDown,
  });
  logger.info({ roles: config.TRAWL_WORKER_ROLES, metricsPort: metricsServer.port }, 'worker started');

  return {
    metricsPort: metricsServer.port,
    localRunner: localRuns?.offer,
    results,
    pageCache,
    async close({ graceMs = config.TRAWL_SHUTDOWN_GRACE_MS } = {}) {
      shuttingDown = true;
      metrics.shuttingDown.set(1);
      logger.info({ graceMs }, 'worker stopping: no new jobs, waiting for in-flight jobs');
      clearInterval(reaper);
      clearInterval(watchdog);
      dispatcher.runLocally(undefined);
      const drained = Promise.all([...workers.map((w) => w.close()), localRuns?.close()]).then(() => true);
      // At the end of the grace period running jobs are aborted: they go back to their queue.
      const abort = setTimeout(() => shutdown.abort(new Error('shutdown')), graceMs);
      // A job that ignores the abort (stuck in native code) is left to expire its lock: stalled
      // detection puts it back once this process is gone.
      let giveUp: NodeJS.Timeout | undefined;
      const late = new Promise<boolean>((resolve) => {
        giveUp = setTimeout(() => resolve(false), graceMs + ABORT_SETTLE_MS);
      });
      const clean = await Promise.race([drained, late]);
      clearTimeout(abort);
      clearTimeout(giveUp);
      if (!clean) logger.warn('jobs still running after the grace period: they are retried once their locks expire');
      resultWaiter?.close();
      await converter.close();
      await documents?.close();
      await browser?.close();
      await blobs?.close();
      if ('close' in fetcher && typeof fetcher.close === 'function') await (fetcher.close as () => Promise<void>)();
      await new Promise<void>((r) => metricsServer.server.close(() => r()));
      await cacheStore?.close();
      await stack.close();
    },
  };
}

/**
 * The documents role's parser: threads with a heap limit each (inline in tests), and OCR when the
 * tesseract binary answers. Without it, images and `ocr` mode fail with DOCUMENT_OCR_UNAVAILABLE and
 * `auto` reads the text layer only. The document readers are imported here, for this role only.
 */
async function startDocumentParser(config: WorkerConfig, logger: Logger, mode: 'threads' | 'inline'): Promise<DocumentParser> {
  const { TesseractOcrEngine, ocrEngineAvailable } = await import('@trawl/documents');
  const { InlineDocumentParser, ThreadedDocumentParser } = await import('./document/document-parser.js');
  const ocrEngine = () => new TesseractOcrEngine({ binary: config.TRAWL_TESSERACT_PATH, maxProcesses: config.TRAWL_OCR_CONCURRENCY });
  const ocrOn = await ocrEngineAvailable(ocrEngine());
  if (!ocrOn) logger.warn({ tesseract: config.TRAWL_TESSERACT_PATH }, 'tesseract not found: OCR is off (apt-get install tesseract-ocr)');
  const settings = {
    maxPages: config.TRAWL_DOCUMENT_MAX_PAGES,
    maxInflatedBytes: config.TRAWL_DOCUMENT_MAX_INFLATED_BYTES,
    maxCells: config.TRAWL_DOCUMENT_MAX_CELLS,
    ocrLanguages: config.TRAWL_OCR_LANGUAGES,
  };
  if (mode === 'inline') {
    const ocr = ocrOn ? ocrEngine() : undefined;
    return new InlineDocumentParser(settings, ocr);
  }
  return new ThreadedDocumentParser(new URL('./document/document-thread.js', import.meta.url), config.TRAWL_DOCUMENT_CONCURRENCY, {
    settings, tesseractPath: ocrOn ? config.TRAWL_TESSERACT_PATH : null, ocrConcurrency: config.TRAWL_OCR_CONCURRENCY,
  }, { memoryMb: config.TRAWL_DOCUMENT_MEMORY_MB, idleMs: config.TRAWL_DOCUMENT_THREAD_IDLE_MS });
}

/**
 * The browser role's engine: a Chromium pool, the egress proxy every context connects through (the
 * target guard applies to each of the browser's connections), ad blocking and cookie-banner handling.
 * Playwright and the ad blocker are imported here, so a worker without the browser role never loads them.
 */
async function startBrowserEngine(
  config: WorkerConfig, logger: Logger, metrics: WorkerMetrics, downloads: Fetcher, dns: { resolver: DnsResolver; proxyResolver: DnsResolver },
) {
  const { AdBlocker, BrowserFetcher, BrowserPool, adBlockPlugin, cookieConsentPlugin, loadConsentAssets } = await import('@trawl/browser');
  const pool = new BrowserPool({
    executablePath: config.TRAWL_CHROMIUM_PATH,
    ...(config.TRAWL_CHROMIUM_HEADLESS_SHELL_PATH !== undefined ? { headlessShellPath: config.TRAWL_CHROMIUM_HEADLESS_SHELL_PATH || null } : {}),
    recycleAfterContexts: config.TRAWL_BROWSER_RECYCLE_PAGES,
    recycleAboveRssBytes: config.TRAWL_BROWSER_MAX_RSS_MB * 1024 * 1024,
    pageMaxRssBytes: config.TRAWL_BROWSER_PAGE_MAX_MB * 1024 * 1024,
    sessionMaxUses: config.TRAWL_BROWSER_SESSION_PAGES,
    sessionIdleMs: config.TRAWL_BROWSER_SESSION_IDLE_MS,
    extraArgs: ['--force-webrtc-ip-handling-policy=disable_non_proxied_udp', ...config.TRAWL_BROWSER_EXTRA_ARGS],
    onEvent: (event) => {
      metrics.browserEvents.inc({ event: event.type, flavor: event.flavor });
      if (event.type === 'crashed') logger.warn(event, 'browser crashed');
      else if (event.type === 'page-killed') logger.warn(event, 'browser page killed past its memory limit');
      else if (event.type === 'shell-failed') logger.warn(event, 'the headless shell did not start: the standard browser uses TRAWL_CHROMIUM_PATH');
      else logger.info(event, `browser ${event.type}`);
    },
  });
  metrics.trackBrowserPool(() => pool.stats());
  const egress = new EgressProxy({ guard: new TargetGuard({ allowPrivateTargets: config.TRAWL_ALLOW_PRIVATE_TARGETS, resolver: dns.resolver }), proxyResolver: dns.proxyResolver });
  await egress.start();
  const blocker = config.TRAWL_BLOCKLIST_PATH
    ? AdBlocker.fromFilterList(await readFile(config.TRAWL_BLOCKLIST_PATH, 'utf8'))
    : await AdBlocker.load();
  const consent = await loadConsentAssets();
  logger.info({ filters: blocker.stats.filters, loadMs: Math.round(blocker.stats.loadMs) }, 'ad blocker ready');
  const fetcher = new BrowserFetcher({
    pool,
    egress,
    plugins: [cookieConsentPlugin(consent, (err) => logger.debug({ err }, 'cookie consent error')), adBlockPlugin(blocker)],
    smartWaitMaxMs: config.TRAWL_BROWSER_SMART_WAIT_MS,
    skipMedia: config.TRAWL_BROWSER_SKIP_MEDIA,
    // Downloads and PDFs (which Chromium does not render) are fetched by the http engine.
    downloads,
    ...(config.TRAWL_USER_AGENT ? { defaultUserAgent: config.TRAWL_USER_AGENT } : {}),
  });
  return {
    fetcher,
    async close() {
      await pool.close();
      await egress.close();
    },
  };
}

/** The configured LLM client with its metrics, or undefined when no LLM is configured. */
function createLlm(config: WorkerConfig, logger: Logger, metrics: WorkerMetrics): Llm | undefined {
  const settings = llmSettingsOf(config);
  if (settings === undefined) return undefined;
  logger.info({ baseUrl: settings.baseUrl, model: settings.model, contextTokens: settings.contextTokens }, 'LLM configured');
  return new ChatCompletionsLlm(settings, {
    logger: logger.child({ component: 'llm' }),
    observer: (e) => {
      metrics.llmRequests.inc({ feature: e.feature, outcome: e.outcome });
      metrics.llmRequestSeconds.observe({ feature: e.feature }, e.seconds);
      if (e.promptTokens > 0) metrics.llmTokens.inc({ feature: e.feature, kind: 'prompt' }, e.promptTokens);
      if (e.completionTokens > 0) metrics.llmTokens.inc({ feature: e.feature, kind: 'completion' }, e.completionTokens);
    },
  });
}
