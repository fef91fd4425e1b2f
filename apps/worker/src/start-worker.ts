import { Worker } from 'bullmq';
import { createMetricsRegistry, type Logger, type Registry } from '@trawl/observability';
import { Admission, CreditLedger, JobDispatcher, QueueSet, RedisKeys, ResultStore, createRedisClient, redisConnectionFromEnv } from '@trawl/queue';
import { HttpFetcher, type Fetcher } from '@trawl/scrape-engine';
import type { WorkerConfig } from './config.js';
import { InlineHtmlConverter, ThreadedHtmlConverter, type HtmlConverter } from './html-converter.js';
import { startMetricsServer } from './metrics-server.js';
import { ScrapeProcessor } from './scrape/scrape.processor.js';
import { createWorkerMetrics } from './worker-metrics.js';

/** A running worker process. */
export interface WorkerHandle {
  /** Port of /metrics and /health. */
  metricsPort: number;
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
  /** `inline` runs HTML conversion on the main thread (tests). Default `threads`. */
  htmlMode?: 'threads' | 'inline';
}

/** Composition root of a worker: connections, engines, processors, BullMQ workers, reaper, metrics. */
export async function startWorker(config: WorkerConfig, opts: StartWorkerOptions): Promise<WorkerHandle> {
  const { logger } = opts;
  const registry = opts.registry ?? createMetricsRegistry({ role: 'worker' });
  const redisOpts = redisConnectionFromEnv(config);
  const redis = createRedisClient({ ...redisOpts, connectionName: 'trawl-worker' });
  const bullConnection = createRedisClient({ ...redisOpts, connectionName: 'trawl-worker-bull' });
  const keys = new RedisKeys(config.TRAWL_REDIS_PREFIX);
  const queues = new QueueSet(redis, keys);
  const dispatcher = new JobDispatcher(redis, keys, new Admission(redis, keys), queues);
  const results = new ResultStore(redis, keys, { retentionSec: config.TRAWL_RESULT_RETENTION_SEC });
  const shutdown = new AbortController();
  let shuttingDown = false;

  const fetcher = opts.fetcher ?? new HttpFetcher({
    allowPrivateTargets: config.TRAWL_ALLOW_PRIVATE_TARGETS,
    ...(config.TRAWL_USER_AGENT ? { defaultUserAgent: config.TRAWL_USER_AGENT } : {}),
  });
  const converter: HtmlConverter = opts.htmlMode === 'inline'
    ? new InlineHtmlConverter()
    : new ThreadedHtmlConverter(new URL('./html-thread.js', import.meta.url), config.TRAWL_HTML_THREADS);
  const processor = new ScrapeProcessor({
    fetcher, converter, results, dispatcher,
    credits: new CreditLedger(redis, keys),
    metrics: createWorkerMetrics(registry),
    logger, maxResponseBytes: config.TRAWL_MAX_RESPONSE_BYTES,
    shutdown: shutdown.signal,
  });

  const workers: Worker[] = [];
  if (config.TRAWL_WORKER_ROLES.includes('http')) {
    const worker = new Worker('scrape', (job) => processor.process(job), {
      connection: bullConnection,
      prefix: keys.bullPrefix(),
      concurrency: config.TRAWL_WORKER_CONCURRENCY,
      lockDuration: config.TRAWL_JOB_LOCK_MS,
      stalledInterval: Math.max(1000, Math.floor(config.TRAWL_JOB_LOCK_MS / 2)),
      maxStalledCount: 2,
    });
    worker.on('error', (err) => logger.error({ err }, 'bullmq worker error'));
    workers.push(worker);
  }

  // Reaper: any worker may run it; a Redis lock makes one pass run at a time cluster-wide.
  const reaper = setInterval(() => {
    void dispatcher.reconcile().then(
      (r) => { if (r && (r.released || r.recovered)) logger.warn(r, 'admission reconciled'); },
      (err: unknown) => logger.warn({ err }, 'admission reconcile failed'),
    );
  }, config.TRAWL_REAPER_INTERVAL_MS);
  reaper.unref();

  const metricsServer = await startMetricsServer({
    registry, redis, host: config.TRAWL_WORKER_HOST, port: config.TRAWL_WORKER_PORT, isShuttingDown: () => shuttingDown,
  });
  logger.info({ roles: config.TRAWL_WORKER_ROLES, metricsPort: metricsServer.port }, 'worker started');

  return {
    metricsPort: metricsServer.port,
    async close({ graceMs = 10_000 } = {}) {
      shuttingDown = true;
      clearInterval(reaper);
      const drained = Promise.all(workers.map((w) => w.close()));
      const timer = setTimeout(() => shutdown.abort(new Error('shutdown')), graceMs);
      await drained;
      clearTimeout(timer);
      await converter.close();
      if ('close' in fetcher && typeof fetcher.close === 'function') await (fetcher.close as () => Promise<void>)();
      await queues.close();
      await new Promise<void>((r) => metricsServer.server.close(() => r()));
      bullConnection.disconnect();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
