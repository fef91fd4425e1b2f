import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { commonEnv, envInt, envList, envOptionalString } from '@trawl/config';

/** Worker roles; each consumes its own queues and scales on its own. */
export const WORKER_ROLES = ['http'] as const;
export type WorkerRole = (typeof WORKER_ROLES)[number];

/** Configuration of a worker process (`trawl worker --role <role>`), from the environment. */
export const workerConfigSchema = z.object({
  ...commonEnv,
  /** Roles this process takes jobs for, comma-separated. Default `http`. */
  TRAWL_WORKER_ROLES: envList().pipe(z.array(z.enum(WORKER_ROLES))).transform((r) => (r.length ? r : (['http'] as WorkerRole[]))),
  /** Port of the worker's /metrics and /health endpoints; 0 picks a free one. Default 3003. */
  TRAWL_WORKER_PORT: envInt(3003, { min: 0, max: 65535 }),
  /** Address of the worker's metrics server. Default `0.0.0.0`. */
  TRAWL_WORKER_HOST: z.string().default('0.0.0.0'),
  /** Scrape jobs one process runs at once (network-bound). Default 16. */
  TRAWL_WORKER_CONCURRENCY: envInt(16, { min: 1, max: 1000 }),
  /** Threads converting HTML off the event loop. Default: cores - 1, at least 1. */
  TRAWL_HTML_THREADS: envInt(Math.max(1, availableParallelism() - 1), { min: 1, max: 64 }),
  /** Largest page accepted (after decompression), bytes. Default 20 MiB. */
  TRAWL_MAX_RESPONSE_BYTES: envInt(20 * 1024 * 1024, { min: 1024 }),
  /** User-Agent of plain HTTP scrapes when the request sets none. Default: a current desktop Chrome. */
  TRAWL_USER_AGENT: envOptionalString(),
  /** A job whose worker stops renewing its lock for this long is retried elsewhere, ms. Default 10000. */
  TRAWL_JOB_LOCK_MS: envInt(10_000, { min: 1000 }),
  /** How often admitted jobs are reconciled with BullMQ (slot leak repair), ms. Default 5000. */
  TRAWL_REAPER_INTERVAL_MS: envInt(5_000, { min: 100 }),
  /** How long finished scrape results can be fetched again, seconds. Default 86400. */
  TRAWL_RESULT_RETENTION_SEC: envInt(86_400, { min: 60 }),
});
export type WorkerConfig = z.output<typeof workerConfigSchema>;
