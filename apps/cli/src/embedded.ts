import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { apiConfigSchema, startApi, type ApiHandle } from '@trawl/api';
import { loadConfig } from '@trawl/config';
import { createLogger, createMetricsRegistry, type Logger } from '@trawl/observability';
import { RedisProcess, type RedisProcessEvent } from '@trawl/queue';
import { startWorker, workerConfigSchema, type WorkerHandle } from '@trawl/worker';

/** A secret kept in the data folder across restarts (created on first use, readable by the owner only). */
function persistentSecret(dataDir: string, file: string, prefix: string): string {
  const path = join(dataDir, file);
  if (existsSync(path)) {
    chmodSync(path, 0o600);
    return readFileSync(path, 'utf8').trim();
  }
  const secret = `${prefix}${randomBytes(20).toString('hex')}`;
  writeFileSync(path, secret + '\n', { mode: 0o600 });
  return secret;
}

export interface EmbeddedHandle {
  api: ApiHandle;
  worker: WorkerHandle;
  redis: RedisProcess | undefined;
  apiKey: string;
  adminKey: string;
  logger: Logger;
  stop(): Promise<void>;
}

/**
 * All-in-one mode (`npm start`): a `redis-server` child with AOF under the data folder (unless
 * REDIS_URL is set), the API and the workers in this process, a printed API key. Teams, keys and
 * jobs live in Redis's AOF, so they survive a restart; the printed keys are kept in the data folder.
 */
export async function startEmbedded(env: Record<string, string | undefined>): Promise<EmbeddedHandle> {
  const dataDir = resolve(env.TRAWL_DATA_DIR ?? '.data');
  // Keys, secrets and the AOF: the owner's only.
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700);
  let redis: RedisProcess | undefined;
  let redisUrl = env.REDIS_URL;
  // Redis events before the logger exists (a leftover server stopped) wait for it.
  const redisLog: { to?: Logger; early: RedisProcessEvent[] } = { early: [] };
  if (!redisUrl) {
    redis = await new RedisProcess({
      dir: join(dataDir, 'redis'),
      port: Number(env.TRAWL_EMBEDDED_REDIS_PORT ?? 0),
      password: persistentSecret(dataDir, 'redis-password', ''),
      // Restarted on the same port and folder if it dies (OOM killer, crash).
      supervise: true,
      // Out of the terminal's process group: on Ctrl-C it stops after the API and workers, not first.
      detached: true,
      exclusive: true,
      onEvent: (e) => (redisLog.to ? logRedisEvent(redisLog.to, e) : redisLog.early.push(e)),
    }).start();
    redisUrl = redis.url;
  }
  const apiKey = env.TRAWL_BOOTSTRAP_API_KEY ?? persistentSecret(dataDir, 'api-key', 'tr-');
  const adminKey = env.TRAWL_ADMIN_KEY ?? persistentSecret(dataDir, 'admin-key', 'tra-');
  // Every role when Chromium is installed; without it, browser options are refused instead of queued.
  const chromium = existsSync(env.TRAWL_CHROMIUM_PATH ?? '/usr/bin/chromium');
  const roles = env.TRAWL_WORKER_ROLES ?? (chromium ? 'http,browser,documents' : 'http,documents');
  const browser = roles.includes('browser');
  const merged = {
    ...env,
    REDIS_URL: redisUrl,
    TRAWL_BOOTSTRAP_API_KEY: apiKey,
    TRAWL_ADMIN_KEY: adminKey,
    TRAWL_WORKER_PORT: env.TRAWL_WORKER_PORT ?? '0',
    TRAWL_WORKER_ROLES: roles,
    TRAWL_BROWSER_ENABLED: env.TRAWL_BROWSER_ENABLED ?? String(browser),
    TRAWL_BROWSER_FALLBACK: env.TRAWL_BROWSER_FALLBACK ?? String(browser),
    TRAWL_DOCUMENTS_ENABLED: env.TRAWL_DOCUMENTS_ENABLED ?? String(roles.includes('documents')),
    TRAWL_DOCUMENT_PARSING: env.TRAWL_DOCUMENT_PARSING ?? String(roles.includes('documents')),
    TRAWL_BLOB_DIR: env.TRAWL_BLOB_DIR ?? join(dataDir, 'blobs'),
    TRAWL_BLOB_SIGNING_SECRET: env.TRAWL_BLOB_SIGNING_SECRET ?? persistentSecret(dataDir, 'blob-secret', ''),
  };
  const apiConfig = loadConfig(apiConfigSchema, merged);
  const workerConfig = loadConfig(workerConfigSchema, merged);
  const logger = createLogger({ role: 'embedded', level: apiConfig.LOG_LEVEL });
  redisLog.to = logger;
  for (const e of redisLog.early) logRedisEvent(logger, e);
  // One process, one registry: the API's /metrics shows the worker's series too.
  const registry = createMetricsRegistry({ role: 'embedded' });
  let api: ApiHandle;
  let worker: WorkerHandle;
  try {
    // The API first: its URL is the base of the blob URLs the worker signs.
    api = await startApi(apiConfig, { logger, registry });
    worker = await startWorker(workerConfig, { logger, registry, blobPublicBaseUrl: apiConfig.TRAWL_PUBLIC_URL ?? api.url });
    // One process: a scrape the API admits runs in this worker at once, without the queue hop, and its
    // outcome reaches the waiting request in-process (still stored for GET /v2/scrape/:id).
    api.runLocally(worker.localRunner, { results: worker.results, pageCache: worker.pageCache });
  } catch (err) {
    // The detached Redis would outlive this process.
    await redis?.stop();
    throw err;
  }
  return {
    api, worker, redis, apiKey, adminKey, logger,
    async stop() {
      await api.close({ graceMs: 5_000 });
      await worker.close({ graceMs: 5_000 });
      await redis?.stop();
    },
  };
}

function logRedisEvent(logger: Logger, e: RedisProcessEvent): void {
  switch (e.type) {
    case 'exited':
      logger.error({ pid: e.pid, code: e.code, signal: e.signal }, 'embedded redis-server exited: restarting it');
      break;
    case 'restarted':
      logger.info({ pid: e.pid, attempt: e.attempt }, 'embedded redis-server restarted');
      break;
    case 'restart-failed':
      logger.error({ err: e.err, attempt: e.attempt, retryInMs: e.retryInMs }, 'embedded redis-server restart failed');
      break;
    case 'orphan-stopped':
      logger.warn({ pid: e.pid }, 'stopped a redis-server left running on the data folder by a previous run');
      break;
  }
}
