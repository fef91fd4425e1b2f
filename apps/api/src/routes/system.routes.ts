import { Router } from 'express';
import type { Redis } from 'ioredis';
import { buildOpenApiDocument } from '@trawl/api-schema';
import type { Registry } from '@trawl/observability';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** The body of `GET /`: name, API version, the contract's address and one `METHOD /path` line per endpoint. */
function describeApi(doc: ReturnType<typeof buildOpenApiDocument>): object {
  const paths = (doc.paths ?? {}) as Record<string, Partial<Record<(typeof METHODS)[number], unknown>>>;
  const endpoints = Object.entries(paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m] !== undefined).map((m) => `${m.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`));
  return {
    name: 'Trawl',
    description: 'Self-hostable web data extraction API (Web Data Extraction API v2)',
    version: doc.info.version,
    docs: '/v2/openapi.json',
    endpoints,
  };
}

/** `GET /` (what this server is), liveness, readiness (Redis reachable and not shutting down), Prometheus metrics, OpenAPI. */
export function systemRoutes(deps: {
  redis: Redis;
  registry: Registry;
  isShuttingDown: () => boolean;
  publicUrl?: string;
}): Router {
  const router = Router();
  let openapi: string | undefined;
  let index: object | undefined;
  // What a browser or a client probing the base URL sees: what this is and where the contract is.
  router.get('/', (_req, res) => {
    index ??= describeApi(buildOpenApiDocument(deps.publicUrl ? { serverUrl: deps.publicUrl } : {}));
    res.json(index);
  });
  router.get('/health/live', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/health/ready', async (_req, res) => {
    if (deps.isShuttingDown()) {
      res.status(503).json({ status: 'shutting-down' });
      return;
    }
    // A reconnecting client queues commands: not ready without asking.
    const ok = deps.redis.status === 'ready' && await Promise.race([
      deps.redis.ping().then(() => true, () => false),
      new Promise<boolean>((r) => setTimeout(() => r(false), 1000).unref()),
    ]);
    res.status(ok ? 200 : 503).json({ status: ok ? 'ready' : 'redis-unreachable' });
  });
  router.get('/metrics', async (_req, res) => {
    res.setHeader('Content-Type', deps.registry.contentType);
    res.send(await deps.registry.metrics());
  });
  // The contract document is public: it describes the API and carries no data.
  router.get('/v2/openapi.json', (_req, res) => {
    openapi ??= JSON.stringify(buildOpenApiDocument(deps.publicUrl ? { serverUrl: deps.publicUrl } : {}));
    res.type('application/json').send(openapi);
  });
  return router;
}
