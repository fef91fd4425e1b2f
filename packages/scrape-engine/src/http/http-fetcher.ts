import { performance } from 'node:perf_hooks';
import type { LookupFunction } from 'node:net';
import { TrawlError, redactUrl } from '@trawl/api-schema';
import { TargetGuard, resolverLookup, type DnsResolver } from '@trawl/net-guard';
import type { Agent, Dispatcher, ProxyAgent } from 'undici';
import { decodeText } from '../charset.js';
import { deferText } from '../page-text.js';
import { detectContentKind } from '../content-kind.js';
import type { ContentKind, FetchRequest, FetchResult, Fetcher } from '../fetcher.js';
import { mapProxyError, proxyStatusError } from '../proxy/map-proxy-error.js';
import { createProxyAgent } from '../proxy/proxy-agent.js';
import type { ProxyEndpoint } from '../proxy/proxy-pool.js';
import { basicAuthorization, splitUrlCredentials } from '../url-credentials.js';
import { abortError, mapFetchError } from './map-fetch-error.js';
import { parseContentType } from './parse-content-type.js';
import { readBody } from './read-body.js';
import { RedirectSession } from './redirect-session.js';

/** A current desktop Chrome on Windows: the User-Agent least likely to be served a degraded page. */
export const DEFAULT_USER_AGENT =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36';

const ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const DEFAULT_ACCEPT_LANGUAGE = 'en-US,en;q=0.9';
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const TEXTUAL_KINDS = new Set<ContentKind>(['html', 'xhtml', 'text', 'json', 'xml']);
/** Proxy dispatchers kept open; proxies come from configuration, so this is only a safety bound. */
const MAX_PROXY_AGENTS = 32;

/** Options of {@link HttpFetcher}. */
export interface HttpFetcherOptions {
  /** Allow loopback, private, link-local and metadata targets (`TRAWL_ALLOW_PRIVATE_TARGETS`). Default false. */
  allowPrivateTargets?: boolean;
  /** Redirects followed before SCRAPE_TOO_MANY_REDIRECTS. Default 10. */
  maxRedirects?: number;
  /** User-Agent when neither the request's `userAgent` nor its headers set one. Default {@link DEFAULT_USER_AGENT}. */
  defaultUserAgent?: string;
  /** Time allowed to establish TCP and TLS, in milliseconds. Default 10000. */
  connectTimeoutMs?: number;
  /** Host name resolver (tests map fake names with it). Default the system resolver. */
  resolver?: DnsResolver;
  /**
   * Resolves the host names of the operator's proxies (not checked by the guard, and with the
   * system's servers and search domains). Default the system's `getaddrinfo`.
   */
  proxyResolver?: DnsResolver;
  /** Addresses reachable although in a blocked range (exact match). Default none. */
  exemptAddresses?: readonly string[];
}

type UndiciResponse = Dispatcher.ResponseData;

function headerValue(headers: UndiciResponse['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function flattenHeaders(headers: UndiciResponse['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(name === 'set-cookie' ? '\n' : ', ') : value;
  }
  return out;
}

function parseTarget(raw: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch (err) {
    throw new TrawlError('SCRAPE_INVALID_URL', 'The URL is not valid.', { cause: err });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TrawlError('SCRAPE_INVALID_URL', `The URL scheme "${url.protocol}" cannot be scraped.`, {
      details: { scheme: url.protocol.replace(/:$/, '') },
    });
  }
  if (url.hostname === '') throw new TrawlError('SCRAPE_INVALID_URL', 'The URL has no host.');
  return url;
}

/** Reads and drops a body up to `limit` bytes (then closes the connection); errors are irrelevant. */
async function discard(body: UndiciResponse['body'], limit = 64 * 1024): Promise<void> {
  await body.dump({ limit }).catch(() => undefined);
}

function tooManyRedirects(message: string, details: Record<string, unknown>): TrawlError {
  return new TrawlError('SCRAPE_TOO_MANY_REDIRECTS', message, { details });
}

/**
 * The http engine: one GET through undici, redirects followed by hand so that every hop passes the
 * {@link TargetGuard}, body decompressed under a size cap and decoded as a browser would. A 4xx or
 * 5xx answer is a result carrying its `statusCode`. Owns its connection pools: call {@link close}.
 */
export class HttpFetcher implements Fetcher {
  readonly name = 'http';
  private readonly guard: TargetGuard;
  private readonly maxRedirects: number;
  private readonly defaultUserAgent: string;
  private readonly connectTimeoutMs: number;
  private readonly verifyingAgent: Agent;
  private insecureAgent: Agent | undefined;
  /** `tls mode + proxy URL` -> dispatcher, oldest first (evicted in insertion order). */
  private readonly proxyAgents = new Map<string, ProxyAgent>();
  private readonly proxyLookup: LookupFunction | undefined;

  constructor(options: HttpFetcherOptions = {}) {
    this.guard = new TargetGuard({
      allowPrivateTargets: options.allowPrivateTargets ?? false,
      ...(options.resolver === undefined ? {} : { resolver: options.resolver }),
      ...(options.exemptAddresses === undefined ? {} : { exemptAddresses: options.exemptAddresses }),
    });
    this.maxRedirects = options.maxRedirects ?? 10;
    this.defaultUserAgent = options.defaultUserAgent ?? DEFAULT_USER_AGENT;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.proxyLookup = options.proxyResolver === undefined ? undefined : resolverLookup(options.proxyResolver);
    this.verifyingAgent = this.guard.createAgent({ connectTimeoutMs: this.connectTimeoutMs });
  }

  /**
   * Fetches `req.url`. Throws TrawlError: SCRAPE_INVALID_URL, SCRAPE_BLOCKED_TARGET,
   * SCRAPE_DNS_RESOLUTION_ERROR, SCRAPE_CONNECTION_REFUSED (retryable), SCRAPE_TLS_ERROR, SCRAPE_TIMEOUT,
   * SCRAPE_TOO_LARGE, SCRAPE_TOO_MANY_REDIRECTS, SCRAPE_UNSUPPORTED_CONTENT, SCRAPE_FAILED, JOB_CANCELLED
   * (or the signal's own TrawlError reason); with `req.proxy`, SCRAPE_PROXY_ERROR too.
   */
  async fetch(req: FetchRequest): Promise<FetchResult> {
    const started = performance.now();
    // Credentials in the URL become Basic auth for its origin; no URL carries them further.
    const { url: requested, credentials } = splitUrlCredentials(parseTarget(req.url));
    if (req.signal.aborted) throw abortError(req.signal);
    const session = new RedirectSession(requested, req.headers ?? {}, credentials && basicAuthorization(credentials));
    const agent = this.dispatcherFor(req);
    const redirects: string[] = [];
    const visited = new Set<string>();
    let url = requested;
    try {
      for (;;) {
        visited.add(session.loopKey(url));
        if (req.proxy !== undefined) await this.precheckProxied(url, req.signal);
        const res = await this.request(agent, url, session, req);
        // Through a proxy in absolute form, a 407 can only be the proxy's own answer.
        if (req.proxy !== undefined && res.statusCode === 407) {
          await discard(res.body);
          throw proxyStatusError(407);
        }
        session.recordSetCookie(url, res.headers['set-cookie']);
        const location = REDIRECT_STATUSES.has(res.statusCode) ? headerValue(res.headers, 'location') : undefined;
        if (location === undefined) {
          return await this.finish(res, { req, url, redirects, started });
        }
        // The body of a redirect is never used; draining a small one keeps the socket for the next hop.
        await discard(res.body);
        if (redirects.length >= this.maxRedirects) {
          throw tooManyRedirects(`The target redirected more than ${this.maxRedirects} times.`, {
            maxRedirects: this.maxRedirects,
          });
        }
        // Userinfo in a Location is not used (nor reported): credentials come from the request only.
        const next = splitUrlCredentials(parseTarget(location, url)).url;
        redirects.push(next.href);
        if (visited.has(session.loopKey(next))) {
          throw tooManyRedirects('The target redirects in a loop.', { loop: true, redirects: redirects.length });
        }
        url = next;
      }
    } catch (err) {
      const viaProxy = req.proxy === undefined || req.signal.aborted ? undefined : mapProxyError(err);
      throw viaProxy ?? mapFetchError(err, req.signal);
    }
  }

  /** Closes the connection pools; in-flight fetches fail. */
  async close(): Promise<void> {
    const proxied = [...this.proxyAgents.values()];
    this.proxyAgents.clear();
    await Promise.all([this.verifyingAgent.close(), this.insecureAgent?.close(), ...proxied.map((a) => a.close())]);
  }

  private dispatcherFor(req: FetchRequest): Dispatcher {
    const insecure = req.skipTlsVerification === true;
    if (req.proxy === undefined) return insecure ? this.getInsecureAgent() : this.verifyingAgent;
    return this.getProxyAgent(req.proxy, insecure);
  }

  private getProxyAgent(endpoint: ProxyEndpoint, insecure: boolean): ProxyAgent {
    const key = `${insecure ? 'insecure' : 'verify'} ${endpoint.url.href}`;
    let agent = this.proxyAgents.get(key);
    if (agent === undefined) {
      agent = createProxyAgent(endpoint, { rejectUnauthorized: !insecure, connectTimeoutMs: this.connectTimeoutMs, ...(this.proxyLookup === undefined ? {} : { lookup: this.proxyLookup }) });
      this.proxyAgents.set(key, agent);
      const oldest = this.proxyAgents.entries().next();
      if (this.proxyAgents.size > MAX_PROXY_AGENTS && oldest.done !== true) {
        this.proxyAgents.delete(oldest.value[0]);
        // close() lets the requests in flight on it finish.
        oldest.value[1].close().catch(() => undefined);
      }
    }
    return agent;
  }

  /**
   * The guard's check for a proxied hop. Through a proxy the connection to the target is made by the
   * proxy, from its own network and with its own DNS, so the socket-level check cannot run here. What
   * can be checked is checked before anything is sent: the host name (localhost, blocked literals) and
   * every address our resolver gives for it. Trade-off: a name that resolves differently at the proxy
   * (split-horizon DNS, rebinding between the two lookups) is only as safe as the proxy's own egress
   * rules; a proxy on a private network should refuse private destinations itself. A name our resolver
   * cannot resolve fails closed (SCRAPE_DNS_RESOLUTION_ERROR) rather than being sent unchecked.
   */
  private async precheckProxied(url: URL, signal: AbortSignal): Promise<void> {
    if (this.guard.allowPrivateTargets) return;
    try {
      await this.guard.resolveChecked(url.hostname);
    } catch (err) {
      // Mapped here: a DNS failure of ours is not the proxy's, whatever its code says.
      throw mapFetchError(err, signal);
    }
  }

  private getInsecureAgent(): Agent {
    this.insecureAgent ??= this.guard.createAgent({
      connectTimeoutMs: this.connectTimeoutMs,
      rejectUnauthorized: false,
    });
    return this.insecureAgent;
  }

  private request(agent: Dispatcher, url: URL, session: RedirectSession, req: FetchRequest): Promise<UndiciResponse> {
    const headers: Record<string, string> = {
      accept: ACCEPT,
      'accept-language': req.acceptLanguage ?? DEFAULT_ACCEPT_LANGUAGE,
      'user-agent': req.userAgent ?? this.defaultUserAgent,
      ...session.headersFor(url),
      'accept-encoding': 'gzip, deflate, br',
    };
    // The proxy's credentials come from its URL only; a client's value would reach the proxy (and
    // undici's ProxyAgent refuses it outright).
    if (req.proxy !== undefined) delete headers['proxy-authorization'];
    return agent.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      headers,
      signal: req.signal,
    });
  }

  private async finish(
    res: UndiciResponse,
    ctx: { req: FetchRequest; url: URL; redirects: string[]; started: number },
  ): Promise<FetchResult> {
    const ttfbMs = performance.now() - ctx.started;
    const headers = flattenHeaders(res.headers);
    const declaredLength = Number(headers['content-length']);
    if (Number.isFinite(declaredLength) && declaredLength > ctx.req.maxBytes) {
      discard(res.body, 0).catch(() => undefined);
      throw new TrawlError('SCRAPE_TOO_LARGE', `The response is larger than ${ctx.req.maxBytes} bytes.`, {
        details: { maxBytes: ctx.req.maxBytes, contentLength: declaredLength },
      });
    }
    const bytes = await readBody(res.body, {
      maxBytes: ctx.req.maxBytes,
      ...(headers['content-encoding'] === undefined ? {} : { contentEncoding: headers['content-encoding'] }),
    });
    const contentType = parseContentType(headers['content-type']);
    const { kind, mimeType } = detectContentKind({
      bytes,
      ...(contentType.mimeType === undefined ? {} : { mimeType: contentType.mimeType }),
    });
    const result: FetchResult = {
      requestedUrl: redactUrl(ctx.req.url),
      url: ctx.url.href,
      statusCode: res.statusCode,
      headers,
      contentType: mimeType,
      kind,
      redirects: ctx.redirects,
      timings: { ttfbMs, totalMs: 0 },
    };
    if (TEXTUAL_KINDS.has(kind)) {
      // Valid UTF-8 is decoded when the text is first read (`deferText`): a page converted in a
      // thread goes there as its bytes, and is never decoded on this event loop.
      const decoded = decodeText({
        bytes,
        kind,
        ...(contentType.charset === undefined ? {} : { headerCharset: contentType.charset }),
      }, { deferUtf8: true });
      if (decoded.text !== undefined) result.text = decoded.text;
      else if (decoded.utf8) deferText(result, decoded.utf8);
      result.charset = decoded.charset.encoding;
      if (decoded.utf8) result.utf8 = decoded.utf8;
    } else {
      result.body = bytes;
    }
    result.timings.totalMs = performance.now() - ctx.started;
    return result;
  }
}
