import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import type { Registry } from '@trawl/observability';

/** A worker's small HTTP server: /metrics, /health/live, /health/ready (Redis reachable, not stopping). */
export async function startMetricsServer(opts: {
  registry: Registry;
  redis: Redis;
  host: string;
  port: number;
  isShuttingDown: () => boolean;
}): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    const send = (status: number, body: string, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    };
    if (req.url === '/metrics') {
      void opts.registry.metrics().then((m) => send(200, m, opts.registry.contentType), () => send(500, '{}'));
    } else if (req.url === '/health/live') {
      send(200, '{"status":"ok"}');
    } else if (req.url === '/health/ready') {
      if (opts.isShuttingDown()) return send(503, '{"status":"shutting-down"}');
      const timer = setTimeout(() => send(503, '{"status":"redis-unreachable"}'), 1000);
      void opts.redis.ping().then(
        () => { clearTimeout(timer); if (!res.headersSent) send(200, '{"status":"ready"}'); },
        () => { clearTimeout(timer); if (!res.headersSent) send(503, '{"status":"redis-unreachable"}'); },
      );
    } else send(404, '{"status":"not-found"}');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, resolve);
  });
  return { server, port: (server.address() as AddressInfo).port };
}
