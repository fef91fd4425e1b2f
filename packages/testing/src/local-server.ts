import { once } from 'node:events';
import { createServer as createHttpServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/** A real HTTP(S) server on a free port of a loopback address, for integration tests. */
export interface LocalServer {
  host: string;
  port: number;
  /** Requests received, as `METHOD path`. */
  hits: string[];
  close(): Promise<void>;
}

/** Starts a server (default host 127.0.0.1, port 0: a free one); `tls` makes it HTTPS. */
export async function startServer(
  handler: RequestListener,
  options: { host?: string; port?: number; tls?: { key: string; cert: string } } = {},
): Promise<LocalServer> {
  const hits: string[] = [];
  const listener: RequestListener = (req, res) => {
    hits.push(`${req.method ?? ''} ${req.url ?? ''}`);
    handler(req, res);
  };
  const server: Server = options.tls ? createHttpsServer(options.tls, listener) : createHttpServer(listener);
  const host = options.host ?? '127.0.0.1';
  server.listen(options.port ?? 0, host);
  await Promise.race([once(server, 'listening'), once(server, 'error').then(([err]) => Promise.reject(err))]);
  const { port } = server.address() as AddressInfo;
  return {
    host,
    port,
    hits,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** One answer of {@link MapResolver}: the shape of `@trawl/net-guard`'s `ResolvedAddress`. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * A resolver from a table, so tests use fake host names on local servers. A name with several
 * answers gets them in turn (the last one repeats), which simulates DNS rebinding.
 */
export class MapResolver {
  readonly calls: string[] = [];
  constructor(private readonly table: Record<string, string[]>) {}

  async resolve(hostname: string): Promise<ResolvedAddress[]> {
    this.calls.push(hostname);
    const answers = this.table[hostname.toLowerCase()];
    if (answers === undefined) {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
    }
    const n = this.calls.filter((h) => h === hostname).length;
    const address = answers[Math.min(n, answers.length) - 1] ?? '';
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  }
}
