import { Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { throttledErrorLog, type Logger, type Registry } from '@trawl/observability';
import { WEBHOOK_BACKOFF_TYPE, WebhookOrder, webhookRetryDelay, type RedisKeys } from '@trawl/queue';
import { TargetGuard, type DnsResolver } from '@trawl/net-guard';
import type { WorkerConfig } from '../config.js';
import type { JobHandler } from '../job-lifecycle.js';
import { WebhookProcessor, WebhookRetryError } from './webhook.processor.js';
import { createWebhookMetrics } from './webhook-metrics.js';

/** The settings a webhook worker reads. */
export type WebhookWorkerConfig = Pick<
  WorkerConfig,
  | 'TRAWL_ALLOW_PRIVATE_TARGETS'
  | 'TRAWL_WEBHOOK_ALLOW_PRIVATE'
  | 'TRAWL_WEBHOOK_BACKOFF_MS'
  | 'TRAWL_WEBHOOK_SECRET'
  | 'TRAWL_WEBHOOK_TIMEOUT_MS'
  | 'TRAWL_WEBHOOK_CONCURRENCY'
>;

export interface StartWebhookWorkerOptions {
  /** BullMQ connection (`maxRetriesPerRequest: null`); the caller owns it. */
  connection: Redis;
  /** The key layout: the webhook queue's BullMQ prefix, the crawls' delivery order. */
  keys: RedisKeys;
  logger: Logger;
  /** The process registry; the webhook metrics are registered on it. */
  registry: Registry;
  /** Aborted when the process shuts down: in-flight deliveries stop and are retried later. */
  shutdown: AbortSignal;
  /** Wraps the delivery handler (the process's job lifecycle: metrics, return to the queue on shutdown). */
  wrap?: (handler: JobHandler) => JobHandler;
  /** Called with the BullMQ worker once created (event listeners). */
  onWorker?: (worker: Worker) => void;
  /** Replaces the target guard built from the config (tests map fake names with a resolver). */
  guard?: TargetGuard;
  /** Resolves receivers' host names for the guard built from the config. Default: the system's resolver. */
  resolver?: DnsResolver;
}

/** A running webhook consumer. */
export interface WebhookWorkerHandle {
  /** Stops taking deliveries, waits for those in flight, then closes the connection pool. */
  close(): Promise<void>;
}

/**
 * Consumes the `webhook` queue (processes with the `http` role): one guarded connection pool for
 * every receiver, refusing private, loopback and metadata addresses unless
 * `TRAWL_WEBHOOK_ALLOW_PRIVATE` or `TRAWL_ALLOW_PRIVATE_TARGETS` is true.
 */
export function startWebhookWorker(config: WebhookWorkerConfig, opts: StartWebhookWorkerOptions): WebhookWorkerHandle {
  const guard = opts.guard ?? new TargetGuard({
    allowPrivateTargets: config.TRAWL_WEBHOOK_ALLOW_PRIVATE || config.TRAWL_ALLOW_PRIVATE_TARGETS,
    ...(opts.resolver ? { resolver: opts.resolver } : {}),
  });
  const agent = guard.createAgent({ connectTimeoutMs: config.TRAWL_WEBHOOK_TIMEOUT_MS });
  // A crawl's terminal event waits for its page deliveries (keys under the crawl's hash tag; the
  // job states from the webhook queue itself).
  const prefix = opts.keys.bullPrefix('webhook');
  const queue = new Queue('webhook', { connection: opts.connection, prefix });
  queue.on('error', throttledErrorLog(opts.logger, 'bullmq queue error', { fields: { queue: 'webhook' } }));
  const order = new WebhookOrder(opts.connection, opts.keys);
  const processor = new WebhookProcessor({
    agent,
    ...(config.TRAWL_WEBHOOK_SECRET === undefined ? {} : { secret: config.TRAWL_WEBHOOK_SECRET }),
    timeoutMs: config.TRAWL_WEBHOOK_TIMEOUT_MS,
    metrics: createWebhookMetrics(opts.registry),
    logger: opts.logger,
    shutdown: opts.shutdown,
    order: {
      pending: (crawlId) => order.pending(crawlId, (jobId) => queue.getJobState(jobId)),
      settled: (crawlId, jobId) => order.settled(crawlId, jobId),
    },
  });
  const handler = (job: Job, token?: string) => processor.process(job, token);
  const worker = new Worker('webhook', opts.wrap ? opts.wrap(handler) : handler, {
    connection: opts.connection,
    prefix,
    concurrency: config.TRAWL_WEBHOOK_CONCURRENCY,
    maxStalledCount: 2,
    settings: {
      // Exponential from the delivery's own delay, lengthened by the receiver's Retry-After.
      backoffStrategy: (attemptsMade, type, err, job) => {
        const backoff = job?.opts.backoff;
        const base = typeof backoff === 'object' && backoff.delay !== undefined ? backoff.delay : config.TRAWL_WEBHOOK_BACKOFF_MS;
        if (type !== WEBHOOK_BACKOFF_TYPE) opts.logger.warn({ type }, 'unknown backoff type on the webhook queue');
        return webhookRetryDelay(attemptsMade, base, err instanceof WebhookRetryError ? err.retryAfterMs : undefined);
      },
    },
  });
  worker.on('error', throttledErrorLog(opts.logger, 'bullmq worker error', { fields: { queue: 'webhook' } }));
  opts.onWorker?.(worker);
  return {
    async close() {
      await worker.close();
      await queue.close();
      await agent.close();
    },
  };
}
