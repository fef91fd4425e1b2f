import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { ERROR_CODES } from '@trawl/api-schema';
import type { Logger } from '@trawl/observability';
import { ERROR_STATUS } from './error-status.js';

/** Timeouts and caps of the HTTP server against slow or greedy clients (see the API config). */
export interface ConnectionLimits {
  /** Time to send the request headers, ms. */
  headersTimeoutMs: number;
  /** Time to send a whole request (headers and body), ms; not the time to answer it. */
  bodyTimeoutMs: number;
  /** Idle time of a keep-alive connection between requests, ms. */
  idleTimeoutMs: number;
  /** Open connections per client address; 0 is no cap. */
  maxConnectionsPerClient: number;
}

/** The whole answer to a connection over the cap, written before any request is read. */
function refusal(): string {
  const code = 'TOO_MANY_CONNECTIONS';
  const body = JSON.stringify({ success: false, error: ERROR_CODES[code], code });
  return `HTTP/1.1 ${ERROR_STATUS[code]} Too Many Requests\r\nContent-Type: application/json; charset=utf-8\r\n`
    + `Content-Length: ${Buffer.byteLength(body)}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n${body}`;
}

/**
 * Applies the limits to the server. Node 20's `requestTimeout` runs from the start of a request until
 * it is fully received (not until it is answered), so it bounds a trickled body without cutting a
 * sync scrape that answers minutes later; `headersTimeout` bounds the headers alone. Both are checked
 * every `connectionsCheckingInterval` (set at `createServer`). There is no socket inactivity timeout:
 * a sync scrape is silent until its answer.
 */
export function guardConnections(server: Server, limits: ConnectionLimits, logger: Logger): void {
  server.headersTimeout = limits.headersTimeoutMs;
  // Node requires requestTimeout >= headersTimeout.
  server.requestTimeout = Math.max(limits.bodyTimeoutMs, limits.headersTimeoutMs);
  server.keepAliveTimeout = limits.idleTimeoutMs;
  // Accept errors (EMFILE under a connection flood) are reported here; unheard they end the process.
  server.on('error', (err) => logger.error({ err }, 'http server error'));
  if (limits.maxConnectionsPerClient <= 0) return;
  const open = new Map<string, number>();
  // Before the HTTP server's own listener: a refused socket is paused first, so no request on it is
  // ever parsed or handled.
  server.prependListener('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? 'unknown';
    const count = (open.get(address) ?? 0) + 1;
    if (count > limits.maxConnectionsPerClient) {
      logger.warn({ limit: limits.maxConnectionsPerClient }, 'connection refused: too many from one client');
      socket.pause();
      socket.on('error', () => undefined);
      socket.end(refusal(), () => socket.destroy());
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
