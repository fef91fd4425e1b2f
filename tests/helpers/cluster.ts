import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { apiConfigSchema, startApi, type ApiHandle } from '@trawl/api';
import { loadConfig } from '@trawl/config';
import { createLogger, createMetricsRegistry } from '@trawl/observability';
import { createRedisClient } from '@trawl/queue';
import { RedisServerFixture } from '@trawl/testing';
import { startWorker, workerConfigSchema, type StartWorkerOptions, type WorkerHandle } from '@trawl/worker';

export const ADMIN_KEY = 'test-admin-key-0123456789';
export const BOOT_KEY = 'tr-test-bootstrap-key-0123456789';

/**
 * API + worker in this process against a real redis-server; private targets allowed (fixtures are on
 * loopback). The worker takes the http role unless `TRAWL_WORKER_ROLES` says otherwise; without the
 * browser role, browser options are refused (400) and nothing falls back to the browser; without the
 * documents role, documents answer SCRAPE_UNSUPPORTED_CONTENT and /v2/parse is refused.
 */
export class TestCluster {
  /** The redis-server child (not set when the test gave its own Redis, `opts.redisUrl`). */
  redisServer!: RedisServerFixture;
  api!: ApiHandle;
  worker: WorkerHandle | undefined;
  redis!: Redis;
  env: Record<string, string> = {};

  /** `opts.redisUrl`: a Redis the test runs itself (a Redis Cluster); by default a new redis-server. */
  static async start(env: Record<string, string> = {}, opts: { worker?: boolean; redisUrl?: string } = {}): Promise<TestCluster> {
    const c = new TestCluster();
    if (opts.redisUrl === undefined) c.redisServer = await RedisServerFixture.start();
    const redisUrl = opts.redisUrl ?? c.redisServer.url;
    c.redis = createRedisClient({ url: redisUrl, maxRetriesPerRequest: 20 });
    c.env = {
      REDIS_URL: redisUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      TRAWL_ADMIN_KEY: ADMIN_KEY,
      TRAWL_BOOTSTRAP_API_KEY: BOOT_KEY,
      TRAWL_ALLOW_PRIVATE_TARGETS: 'true',
      TRAWL_WORKER_PORT: '0',
      TRAWL_WORKER_HOST: '127.0.0.1',
      TRAWL_REAPER_INTERVAL_MS: '500',
      TRAWL_SYNC_GRACE_MS: '1000',
      // A loaded test machine may take over a second to answer: tests that expect a cache hit must
      // not get a miss for it. Tests of a cache Redis that stops answering set their own.
      TRAWL_CACHE_TIMEOUT_MS: '10000',
      TRAWL_BLOB_DIR: mkdtempSync(join(tmpdir(), 'trawl-blobs-')),
      TRAWL_BLOB_SIGNING_SECRET: 'test-blob-signing-secret-0123456789abcdef',
      ...env,
    };
    const browser = (c.env.TRAWL_WORKER_ROLES ?? 'http').includes('browser');
    c.env.TRAWL_BROWSER_ENABLED ??= String(browser);
    c.env.TRAWL_BROWSER_FALLBACK ??= String(browser);
    const documents = (c.env.TRAWL_WORKER_ROLES ?? 'http').includes('documents');
    c.env.TRAWL_DOCUMENTS_ENABLED ??= String(documents);
    c.env.TRAWL_DOCUMENT_PARSING ??= String(documents);
    await c.startApi();
    if (opts.worker !== false) await c.startWorker();
    return c;
  }

  async startApi(): Promise<void> {
    const config = loadConfig(apiConfigSchema, this.env);
    this.api = await startApi(config, { logger: createLogger({ role: 'api', level: config.LOG_LEVEL }), registry: createMetricsRegistry({ role: 'api', collectDefaults: false }) });
  }

  /** Starts the worker; `engines` replaces its HTTP or browser engine with fakes. */
  async startWorker(engines: Pick<StartWorkerOptions, 'fetcher' | 'browserFetcher'> = {}): Promise<void> {
    const config = loadConfig(workerConfigSchema, this.env);
    this.worker = await startWorker(config, {
      ...engines,
      logger: createLogger({ role: 'worker', level: config.LOG_LEVEL }),
      registry: createMetricsRegistry({ role: 'worker', collectDefaults: false }),
      htmlMode: 'inline',
      blobPublicBaseUrl: this.api.url,
    });
  }

  async restartApi(): Promise<void> {
    await this.api.close({ graceMs: 100 });
    await this.startApi();
  }

  /** fetch against the API with a bearer key and a JSON body; `signal` aborts it (the promise rejects). */
  async call(method: string, path: string, opts: { key?: string | null; body?: unknown; raw?: string; headers?: Record<string, string>; signal?: AbortSignal } = {}) {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    const key = opts.key === undefined ? BOOT_KEY : opts.key;
    if (key) headers.authorization = `Bearer ${key}`;
    let body: string | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(this.api.url + path, { method, headers, ...(body !== undefined ? { body } : {}), ...(opts.signal ? { signal: opts.signal } : {}) });
    const text = await res.text();
    let json: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience over arbitrary bodies
    try {
      json = JSON.parse(text);
    } catch {
      json = { text };
    }
    return { status: res.status, headers: res.headers, body: json };
  }

  admin(method: string, path: string, body?: unknown) {
    return this.call(method, path, { key: ADMIN_KEY, ...(body !== undefined ? { body } : {}) });
  }

  /** A new team with its own key. */
  async team(fields: Record<string, unknown> = {}): Promise<{ id: string; key: string }> {
    const t = await this.admin('POST', '/admin/teams', { name: `team-${Math.random().toString(36).slice(2, 8)}`, ...fields });
    const k = await this.admin('POST', `/admin/teams/${t.body.id}/keys`, {});
    return { id: t.body.id as string, key: k.body.key as string };
  }

  async stop(): Promise<void> {
    await this.api?.close({ graceMs: 100 });
    await this.worker?.close({ graceMs: 100 });
    this.redis?.disconnect();
    await this.redisServer?.stop();
  }
}
