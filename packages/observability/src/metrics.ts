import { Registry, collectDefaultMetrics, Histogram } from 'prom-client';

export { Registry, Histogram, Counter, Gauge } from 'prom-client';

/**
 * One registry per process, created in `main.ts`. Default Node.js metrics carry the `trawl_` prefix;
 * every process labels its series with its role so dashboards can split API and worker roles.
 */
export function createMetricsRegistry(opts: { role: string; collectDefaults?: boolean }): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ role: opts.role });
  if (opts.collectDefaults !== false) collectDefaultMetrics({ register: registry, prefix: 'trawl_' });
  return registry;
}

/**
 * `trawl_http_request_duration_seconds{method, route, status, fault}`; route is the template, never
 * the URL; `fault` is `target` when the request failed because the target site did (a 500 with a
 * target code: DNS, refused, TLS...), else `none`, so alerts on server errors can leave those out.
 */
export function createHttpMetrics(registry: Registry) {
  return {
    requestDuration: new Histogram({
      name: 'trawl_http_request_duration_seconds',
      help: 'HTTP request duration by route template and status code',
      labelNames: ['method', 'route', 'status', 'fault'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers: [registry],
    }),
  };
}
export type HttpMetrics = ReturnType<typeof createHttpMetrics>;
