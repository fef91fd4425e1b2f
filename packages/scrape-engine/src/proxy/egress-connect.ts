import { isIP, connect as netConnect, type LookupFunction, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { TrawlError } from '@trawl/api-schema';
import type { TargetGuard } from '@trawl/net-guard';
import { mapProxyError, proxyStatusError } from './map-proxy-error.js';
import { proxyAuthorization } from './proxy-agent.js';
import type { ProxyEndpoint } from './proxy-pool.js';

/** Largest response head accepted from an upstream proxy answering CONNECT. */
const MAX_HEAD_BYTES = 16 * 1024;

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** Resolves once `socket` emitted `event`; rejects on error, early close or after `timeoutMs`. */
function settle(socket: Socket, event: 'connect' | 'secureConnect', timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      const err = Object.assign(new Error(`Connection not established within ${timeoutMs} ms`), { code: 'ETIMEDOUT' });
      socket.destroy(err);
    }, timeoutMs);
    const done = (err?: Error): void => {
      clearTimeout(timer);
      socket.off(event, onReady).off('error', onError).off('close', onClose);
      if (err === undefined) resolve();
      else reject(err);
    };
    const onReady = (): void => done();
    const onError = (err: Error): void => done(err);
    const onClose = (): void => done(Object.assign(new Error('Socket closed while connecting'), { code: 'ECONNRESET' }));
    socket.once(event, onReady).once('error', onError).once('close', onClose);
  });
}

/**
 * A TCP connection to `host:port` under the guard: the name is checked, resolved with every address
 * checked (`guard.lookup`), the socket connects to one of those addresses, and the address it reached
 * is checked again, so DNS rebinding between the check and the connect cannot reach a private address.
 * Throws SCRAPE_BLOCKED_TARGET (a TrawlError) or the socket's error.
 */
export async function connectGuarded(
  guard: TargetGuard,
  target: { host: string; port: number },
  connectTimeoutMs: number,
): Promise<Socket> {
  guard.checkHostname(target.host);
  const socket = netConnect({ host: stripBrackets(target.host), port: target.port, lookup: guard.lookup, allowHalfOpen: true });
  socket.on('error', () => undefined);
  await settle(socket, 'connect', connectTimeoutMs);
  const remote = socket.remoteAddress;
  try {
    if (remote === undefined && !guard.allowPrivateTargets) {
      throw new TrawlError('SCRAPE_BLOCKED_TARGET', 'The connected address is unknown.');
    }
    if (remote !== undefined) guard.checkAddress(remote, target.host);
  } catch (err) {
    socket.destroy();
    throw err;
  }
  return socket;
}

/**
 * A connection to the upstream proxy itself (TLS for an https:// proxy). Not guarded: proxies come
 * from the operator's configuration. `lookup` resolves its host name (default the system's
 * `getaddrinfo`). Failures become SCRAPE_PROXY_ERROR.
 */
export async function connectUpstream(endpoint: ProxyEndpoint, connectTimeoutMs: number, lookup?: LookupFunction): Promise<Socket> {
  const { url } = endpoint;
  const host = stripBrackets(url.hostname);
  const tls = url.protocol === 'https:';
  const port = Number(url.port === '' ? (tls ? 443 : 80) : url.port);
  const resolve = lookup === undefined ? {} : { lookup };
  // No server name for an IP literal (RFC 6066; Node warns, DEP0123).
  const socket = tls
    ? tlsConnect({ host, port, ...(isIP(host) === 0 ? { servername: host } : {}), ALPNProtocols: ['http/1.1'], ...resolve })
    : netConnect({ host, port, allowHalfOpen: true, ...resolve });
  socket.on('error', () => undefined);
  try {
    await settle(socket, tls ? 'secureConnect' : 'connect', connectTimeoutMs);
  } catch (err) {
    throw mapProxyError(err) ?? new TrawlError('SCRAPE_PROXY_ERROR', 'The upstream proxy could not be reached.', {
      retryable: true, cause: err,
    });
  }
  return socket;
}

/** Reads an HTTP response head from `socket`; bytes after it are pushed back for the next reader. */
function readResponseHead(socket: Socket, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const timer = setTimeout(() => finish(new Error('The upstream proxy did not answer CONNECT in time')), timeoutMs);
    const finish = (err: Error | undefined, status = 0, rest?: Buffer): void => {
      clearTimeout(timer);
      socket.off('data', onData).off('error', finish).off('close', onClose);
      socket.pause();
      if (rest !== undefined && rest.length > 0) socket.unshift(rest);
      if (err === undefined) resolve(status);
      else reject(err);
    };
    const onClose = (): void => finish(new Error('The upstream proxy closed the connection during CONNECT'));
    const onData = (chunk: Buffer): void => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf('\r\n\r\n');
      if (end === -1) {
        if (buffered.length > MAX_HEAD_BYTES) finish(new Error('The upstream proxy sent an oversized response head'));
        return;
      }
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(buffered.subarray(0, end).toString('latin1'))?.[1];
      if (status === undefined) finish(new Error('The upstream proxy sent an invalid response to CONNECT'));
      else finish(undefined, Number(status), buffered.subarray(end + 4));
    };
    socket.on('data', onData).once('error', finish).once('close', onClose);
  });
}

/**
 * A tunnel to `target` through the upstream proxy: CONNECT with Proxy-Authorization from the URL's
 * credentials (`lookup`: see {@link connectUpstream}). Throws SCRAPE_PROXY_ERROR when the proxy cannot
 * be reached or answers anything but 2xx.
 */
export async function connectThroughUpstream(
  endpoint: ProxyEndpoint,
  target: { host: string; port: number },
  connectTimeoutMs: number,
  lookup?: LookupFunction,
): Promise<Socket> {
  const socket = await connectUpstream(endpoint, connectTimeoutMs, lookup);
  const authority = `${target.host.includes(':') && !target.host.startsWith('[') ? `[${target.host}]` : target.host}:${target.port}`;
  const auth = proxyAuthorization(endpoint.url);
  socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${auth === undefined ? '' : `Proxy-Authorization: ${auth}\r\n`}\r\n`);
  let status: number;
  try {
    status = await readResponseHead(socket, connectTimeoutMs);
  } catch (err) {
    socket.destroy();
    throw new TrawlError('SCRAPE_PROXY_ERROR', 'The upstream proxy failed during CONNECT.', { retryable: true, cause: err });
  }
  if (status < 200 || status > 299) {
    socket.destroy();
    throw proxyStatusError(status);
  }
  return socket;
}

/**
 * Relays bytes both ways between two sockets until both directions ended. A half-close (FIN) is
 * passed on so the other side can still answer; an error or a full close of one side ends or destroys
 * the other, and a silent peer is cut after `idleMs` without traffic, so no socket outlives its tunnel.
 */
export function splice(a: Socket, b: Socket, idleMs: number): void {
  const destroyBoth = (): void => {
    a.destroy();
    b.destroy();
  };
  for (const [from, to] of [[a, b], [b, a]] as const) {
    from.on('error', destroyBoth);
    from.setTimeout(idleMs, destroyBoth);
    from.once('close', () => {
      // After a clean close, `to` flushes what it still holds and half-closes; its idle timer ends it
      // if its peer never does.
      if (from.errored === null || from.errored === undefined) to.end();
      else to.destroy();
    });
    from.pipe(to);
  }
}
