import type { LookupFunction } from 'node:net';
import { ProxyAgent } from 'undici';
import type { ProxyEndpoint } from './proxy-pool.js';

/** Options of {@link createProxyAgent}. */
export interface ProxyAgentOptions {
  /** Verify the target's TLS certificate (through the tunnel). Default true. */
  rejectUnauthorized?: boolean;
  /** Time allowed to connect to the proxy, and for the TLS handshake with the target, in milliseconds. Default 10000. */
  connectTimeoutMs?: number;
  /** Resolves the proxy's host name (`net.connect`'s hook). Default the system's `getaddrinfo`. */
  lookup?: LookupFunction;
}

/**
 * `Basic base64(user:pass)` from the URL's credentials (percent-decoded), or undefined without a user
 * name. A user name without a password is sent with an empty password, as curl does.
 */
export function proxyAuthorization(url: URL): string | undefined {
  if (url.username === '') return undefined;
  const pair = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  return `Basic ${Buffer.from(pair).toString('base64')}`;
}

/** The proxy URL without credentials (they travel in Proxy-Authorization only). */
export function proxyOrigin(url: URL): string {
  return `${url.protocol}//${url.host}`;
}

/**
 * An undici dispatcher that sends every request through `endpoint`: https targets through a CONNECT
 * tunnel (TLS with the target end to end), http targets as absolute-form requests to the proxy (the
 * form every forward proxy accepts; many refuse CONNECT to port 80). The caller owns and closes it.
 * The connection to the proxy itself is not guarded: proxies come from the operator's configuration
 * and may well sit on a private network.
 */
export function createProxyAgent(endpoint: ProxyEndpoint, options: ProxyAgentOptions = {}): ProxyAgent {
  const timeout = options.connectTimeoutMs ?? 10_000;
  const token = proxyAuthorization(endpoint.url);
  return new ProxyAgent({
    uri: proxyOrigin(endpoint.url),
    ...(token === undefined ? {} : { token }),
    proxyTunnel: false,
    proxyTls: { timeout, ...(options.lookup === undefined ? {} : { lookup: options.lookup }) },
    requestTls: { rejectUnauthorized: options.rejectUnauthorized ?? true, timeout },
  });
}
