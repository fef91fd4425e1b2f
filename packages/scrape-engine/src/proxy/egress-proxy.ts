import { once } from 'node:events';
import {
  createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse,
} from 'node:http';
import type { AddressInfo, LookupFunction, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { TrawlError, type ErrorCode } from '@trawl/api-schema';
import { mapFetchError } from '../http/map-fetch-error.js';
import { resolverLookup, type DnsResolver, type TargetGuard } from '@trawl/net-guard';
import { connectGuarded, connectThroughUpstream, connectUpstream, splice } from './egress-connect.js';
import { proxyAuthorization } from './proxy-agent.js';
import type { ProxyEndpoint } from './proxy-pool.js';

/** Options of {@link EgressProxy}. */
export interface EgressProxyOptions {
  /** Checks every target: direct connections at the socket, upstream ones before the CONNECT. */
  guard: TargetGuard;
  /** Time allowed to connect to a target or upstream proxy (and for its CONNECT answer), in milliseconds. Default 10000. */
  connectTimeoutMs?: number;
  /** A tunnel or request without traffic either way for this long is cut, in milliseconds. Default 300000. */
  idleTimeoutMs?: number;
  /**
   * Resolves upstream proxies' host names (the operator's: not checked by the guard, and with the
   * system's servers and search domains). Default the system's `getaddrinfo`.
   */
  proxyResolver?: DnsResolver;
}

/** Counters of an egress route (or of all routes together). */
export interface EgressStats {
  /** Tunnels and absolute-form requests asked for. */
  connections: number;
  /** Refused by the target guard (answered 403, `X-Trawl-Error: SCRAPE_BLOCKED_TARGET`). */
  blocked: number;
  /** The upstream proxy could not be reached, refused or failed (answered 502, SCRAPE_PROXY_ERROR). */
  upstreamErrors: number;
  /** The target could not be reached directly: DNS, refused, timeout (answered 502 or 504). */
  targetErrors: number;
}

/** Why the last refused connection of a route was refused: what the browser engine reports. */
export interface EgressRefusal {
  host: string;
  port: number;
  code: ErrorCode;
  /** Whether another attempt may succeed (a DNS server that did not answer, EAI_AGAIN). */
  retryable: boolean;
  /** Status answered to the browser. */
  status: number;
}

/** The header of a refusal answered over plain http, beside `x-trawl-error`, when it is retryable. */
export const EGRESS_RETRYABLE_HEADER = 'x-trawl-retryable';

const HOP_BY_HOP = new Set([
  'connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer',
  'transfer-encoding', 'upgrade',
]);
const NEVER_ABORTED = new AbortController().signal;
const DIRECT = 'direct';

function statusFor(code: ErrorCode): number {
  if (code === 'SCRAPE_BLOCKED_TARGET') return 403;
  if (code === 'SCRAPE_TIMEOUT') return 504;
  return 502;
}

function forwardable(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    // `x-trawl-*` are this proxy's own refusal marks: a target sending them would fake a refusal.
    if (value !== undefined && !HOP_BY_HOP.has(name) && !name.startsWith('x-trawl-')) out[name] = value;
  }
  return out;
}

/** `host:port` of a CONNECT request, or undefined when malformed. */
function parseAuthority(authority: string): { host: string; port: number } | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]/\s]+):(\d{1,5})$/.exec(authority);
  const port = Number(m?.[2]);
  if (m?.[1] === undefined || !(port >= 1 && port <= 65535)) return undefined;
  return { host: m[1], port };
}

/** One local listener bound to one way out (direct, or one upstream proxy), with its own counters. */
export class EgressRoute {
  readonly stats: EgressStats = { connections: 0, blocked: 0, upstreamErrors: 0, targetErrors: 0 };
  /** The last refusal on this route, for the browser engine to explain a failed navigation. */
  lastRefusal: EgressRefusal | undefined;
  /** `http://127.0.0.1:<port>`: the proxy server to give Chromium. */
  url = '';
  private readonly sockets = new Set<Duplex>();
  private readonly idleWaiters: (() => void)[] = [];

  constructor(
    readonly upstream: ProxyEndpoint | null,
    private readonly server: Server,
    private readonly onClosed: (route: EgressRoute) => void,
  ) {}

  /** Sockets open on this route (browser side and outbound). */
  get openSockets(): number {
    return this.sockets.size;
  }

  /** Resolves once no socket is open on this route. */
  whenIdle(): Promise<void> {
    if (this.sockets.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops listening and destroys every socket of the route. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    if (this.server.listening) {
      this.server.close();
      await once(this.server, 'close');
    }
    this.onClosed(this);
  }

  /** @internal Follows a socket until it closes; errors are handled by whoever uses the socket. */
  track(socket: Duplex): void {
    this.sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('close', () => {
      this.sockets.delete(socket);
      if (this.sockets.size === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    });
  }
}

/**
 * The only way out for Chromium: an in-process forward proxy on 127.0.0.1 that the browser engine
 * gives each browser context. It serves CONNECT tunnels (https, and WebSockets, which Chromium always
 * tunnels) and absolute-form http requests, and opens every outbound connection either directly under
 * the {@link TargetGuard} (resolve, check every address, connect to a checked address, check the
 * socket's remote address) or through an upstream proxy (CONNECT with its credentials, after the
 * guard's check of the name and its addresses). Each way out has its own listener ({@link routeFor}),
 * so a context picks its route by its proxy server URL and Chromium never needs proxy credentials.
 * Refusals answer 403/502/504 with `X-Trawl-Error: <code>` and are counted per route.
 * Only for loopback clients: a local process could use it as an egress; that is all it would gain.
 */
export class EgressProxy {
  private readonly guard: TargetGuard;
  private readonly connectTimeoutMs: number;
  private readonly idleTimeoutMs: number;
  private readonly proxyLookup: LookupFunction | undefined;
  private readonly shared = new Map<string, Promise<EgressRoute>>();
  private readonly routes = new Set<EgressRoute>();
  private readonly totals: EgressStats = { connections: 0, blocked: 0, upstreamErrors: 0, targetErrors: 0 };
  private closed = false;

  constructor(options: EgressProxyOptions) {
    this.guard = options.guard;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.idleTimeoutMs = options.idleTimeoutMs ?? 300_000;
    this.proxyLookup = options.proxyResolver === undefined ? undefined : resolverLookup(options.proxyResolver);
  }

  /** Opens the direct route's listener (other routes open on first use). */
  async start(): Promise<void> {
    await this.routeFor(null);
  }

  /** Counters of all routes together, closed ones included. */
  get stats(): EgressStats {
    return { ...this.totals };
  }

  /**
   * The proxy server URL (`http://127.0.0.1:<port>`) of the shared route for `upstream` (null: direct),
   * created on first use and kept until {@link close}.
   */
  async routeFor(upstream: ProxyEndpoint | null): Promise<string> {
    return (await this.sharedRoute(upstream)).url;
  }

  /** The shared route object for `upstream`, to read its counters. */
  sharedRoute(upstream: ProxyEndpoint | null): Promise<EgressRoute> {
    const key = upstream === null ? DIRECT : upstream.url.href;
    let route = this.shared.get(key);
    if (route === undefined) {
      route = this.openRoute(upstream);
      this.shared.set(key, route);
      route.catch(() => this.shared.delete(key));
    }
    return route;
  }

  /**
   * A route of its own (e.g. one per browser context, so its counters and `lastRefusal` belong to one
   * scrape). The caller closes it; {@link close} closes it too.
   */
  async openRoute(upstream: ProxyEndpoint | null): Promise<EgressRoute> {
    if (this.closed) throw new Error('EgressProxy is closed');
    const server = createServer();
    const route = new EgressRoute(upstream, server, (r) => this.routes.delete(r));
    server.on('connection', (socket: Socket) => route.track(socket));
    server.on('connect', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      this.tunnel(route, req, socket as Socket, head).catch(() => socket.destroy());
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      this.forward(route, req, res).catch(() => res.destroy());
    });
    // Chromium tunnels WebSockets with CONNECT; an absolute-form upgrade is not something it sends.
    server.on('upgrade', (_req: IncomingMessage, socket: Duplex) => {
      socket.end('HTTP/1.1 501 Not Implemented\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    route.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    this.routes.add(route);
    return route;
  }

  /** Closes every route and its sockets. */
  async close(): Promise<void> {
    this.closed = true;
    this.shared.clear();
    await Promise.all([...this.routes].map((r) => r.close()));
  }

  private count(route: EgressRoute, field: keyof EgressStats): void {
    route.stats[field] += 1;
    this.totals[field] += 1;
  }

  /** Counts a failure to open a way out and returns what to answer. */
  private refusal(route: EgressRoute, target: { host: string; port: number }, err: unknown): EgressRefusal {
    const mapped = err instanceof TrawlError ? err : mapFetchError(err, NEVER_ABORTED);
    const code = mapped.code;
    if (code === 'SCRAPE_BLOCKED_TARGET') this.count(route, 'blocked');
    else if (code === 'SCRAPE_PROXY_ERROR') this.count(route, 'upstreamErrors');
    else this.count(route, 'targetErrors');
    const refusal = { host: target.host, port: target.port, code, retryable: mapped.retryable, status: statusFor(code) };
    route.lastRefusal = refusal;
    return refusal;
  }

  /** A socket to the target through the route: direct under the guard, or tunnelled by the upstream. */
  private async open(route: EgressRoute, target: { host: string; port: number }): Promise<Socket> {
    if (route.upstream === null) return connectGuarded(this.guard, target, this.connectTimeoutMs);
    await this.precheck(target.host);
    return connectThroughUpstream(route.upstream, target, this.connectTimeoutMs, this.proxyLookup);
  }

  /**
   * The guard's check for a target reached through an upstream proxy. The upstream connects from its
   * own network with its own DNS, so the socket-level check cannot run here: only the name and every
   * address our resolver gives for it are checked, before the proxy is asked for anything (as the http
   * engine does). A name we cannot resolve fails closed.
   */
  private async precheck(host: string): Promise<void> {
    if (this.guard.allowPrivateTargets) return;
    try {
      await this.guard.resolveChecked(host);
    } catch (err) {
      throw mapFetchError(err, NEVER_ABORTED);
    }
  }

  private async tunnel(route: EgressRoute, req: IncomingMessage, client: Socket, head: Buffer): Promise<void> {
    this.count(route, 'connections');
    const target = parseAuthority(req.url ?? '');
    if (target === undefined) {
      client.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      return;
    }
    let outbound: Socket;
    try {
      outbound = await this.open(route, target);
    } catch (err) {
      const r = this.refusal(route, target, err);
      const retryable = r.retryable ? `${EGRESS_RETRYABLE_HEADER}: true\r\n` : '';
      client.end(`HTTP/1.1 ${r.status} Refused\r\nx-trawl-error: ${r.code}\r\n${retryable}content-length: 0\r\nconnection: close\r\n\r\n`);
      return;
    }
    route.track(outbound);
    if (client.destroyed) {
      outbound.destroy();
      return;
    }
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) outbound.write(head);
    splice(client, outbound, this.idleTimeoutMs);
  }

  /** An absolute-form http request: one outbound connection per request, closed after the response. */
  private async forward(route: EgressRoute, req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.count(route, 'connections');
    let url: URL | undefined;
    try {
      url = new URL(req.url ?? '');
    } catch {
      url = undefined;
    }
    if (url?.protocol !== 'http:') {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('Only absolute-form http:// requests and CONNECT are served.\n');
      return;
    }
    const target = { host: url.hostname, port: Number(url.port === '' ? 80 : url.port) };
    let outbound: Socket;
    try {
      outbound = route.upstream === null ? await this.open(route, target) : await this.openUpstreamHop(target, route.upstream);
    } catch (err) {
      const r = this.refusal(route, target, err);
      res.writeHead(r.status, { 'x-trawl-error': r.code, ...(r.retryable ? { [EGRESS_RETRYABLE_HEADER]: 'true' } : {}), 'content-type': 'text/plain' }).end(`${r.code}\n`);
      return;
    }
    route.track(outbound);
    if (res.destroyed) {
      outbound.destroy();
      return;
    }
    outbound.setTimeout(this.idleTimeoutMs, () => outbound.destroy());
    // RFC 9112 3.2.2: with an absolute-form target, Host is replaced by the target's authority.
    const headers: Record<string, string | string[]> = { ...forwardable(req.headers), host: url.host };
    const auth = route.upstream === null ? undefined : proxyAuthorization(route.upstream.url);
    if (auth !== undefined) headers['proxy-authorization'] = auth;
    const out = httpRequest({
      createConnection: () => outbound,
      method: req.method,
      // Direct: origin-form to the target. Upstream: absolute-form to the proxy, the form every proxy accepts.
      path: route.upstream === null ? `${url.pathname}${url.search}` : url.href,
      headers,
      setHost: false,
    });
    out.on('response', (answer) => {
      if (route.upstream !== null && answer.statusCode === 407) {
        answer.resume();
        const r = this.refusal(route, target, new TrawlError('SCRAPE_PROXY_ERROR', 'The upstream proxy refused the credentials (407).'));
        res.writeHead(r.status, { 'x-trawl-error': r.code, 'content-type': 'text/plain' }).end(`${r.code}\n`);
        return;
      }
      res.writeHead(answer.statusCode ?? 502, forwardable(answer.headers));
      answer.pipe(res);
    });
    out.on('error', () => {
      if (res.headersSent) res.destroy();
      else res.writeHead(502, { 'x-trawl-error': 'SCRAPE_CONNECTION_REFUSED' }).end();
    });
    res.once('close', () => {
      if (!res.writableFinished) out.destroy();
    });
    req.pipe(out);
  }

  /** For an absolute-form request through an upstream: the guard's pre-check, then a socket to the proxy. */
  private async openUpstreamHop(target: { host: string; port: number }, upstream: ProxyEndpoint): Promise<Socket> {
    await this.precheck(target.host);
    return connectUpstream(upstream, this.connectTimeoutMs, this.proxyLookup);
  }
}
