/** Headers the engine controls or undici refuses; a client's value for them is dropped. */
const DROPPED_HEADERS = new Set([
  'accept-encoding', 'connection', 'content-length', 'expect', 'host', 'keep-alive', 'proxy-connection',
  'te', 'trailer', 'transfer-encoding', 'upgrade',
]);
/** Credentials: resent only while the redirect chain stays on the requested site. */
const SITE_BOUND_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

function siteHost(url: URL): string {
  return url.hostname.toLowerCase().replace(/^www\./, '');
}

/**
 * Whether credentials given for `from` may follow a redirect to `to`: same host up to a leading
 * `www.`, or one host a subdomain of the other, and no downgrade from https to http. Conservative
 * without a public suffix list (`a.example.com` -> `b.example.com` loses them).
 */
export function isSameSite(from: URL, to: URL): boolean {
  if (from.protocol === 'https:' && to.protocol !== 'https:') return false;
  const a = siteHost(from);
  const b = siteHost(to);
  return a === b || a.endsWith(`.${b}`) || b.endsWith(`.${a}`);
}

function parseCookiePairs(header: string): Map<string, string> {
  const pairs = new Map<string, string>();
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    const name = (eq === -1 ? '' : part.slice(0, eq)).trim();
    if (name !== '') pairs.set(name, part.slice(eq + 1).trim());
  }
  return pairs;
}

/**
 * Request headers and cookies across the hops of one fetch. Client headers follow every hop, except
 * credentials, which stay on the requested site; cookies set by a hop (`Set-Cookie`) are sent back to
 * the same host on later hops, as a browser would when a site sets a session cookie and redirects.
 */
export class RedirectSession {
  private readonly origin: URL;
  private readonly headers: Map<string, string>;
  /** `Authorization` from the requested URL's userinfo: sent to its exact origin only, as a browser does. */
  private readonly originAuthorization: string | undefined;
  /** host -> cookie name -> value, only what this fetch's responses set. */
  private readonly jar = new Map<string, Map<string, string>>();

  /**
   * @param originAuthorization `Authorization` value for the requested origin (credentials of its URL);
   *   a client `Authorization` header wins over it.
   */
  constructor(requested: URL, clientHeaders: Readonly<Record<string, string>>, originAuthorization?: string) {
    this.origin = requested;
    this.headers = new Map();
    for (const [name, value] of Object.entries(clientHeaders)) {
      const lower = name.toLowerCase();
      if (!DROPPED_HEADERS.has(lower)) this.headers.set(lower, value);
    }
    this.originAuthorization = this.headers.has('authorization') ? undefined : originAuthorization;
  }

  /** Whether the client set `name` (any case). */
  has(name: string): boolean {
    return this.headers.has(name.toLowerCase());
  }

  /** The client headers and cookies to send to `url`. */
  headersFor(url: URL): Record<string, string> {
    const sameSite = isSameSite(this.origin, url);
    const out: Record<string, string> = {};
    for (const [name, value] of this.headers) {
      if (sameSite || !SITE_BOUND_HEADERS.has(name)) out[name] = value;
    }
    if (this.originAuthorization !== undefined && url.origin === this.origin.origin) out.authorization = this.originAuthorization;
    const set = this.jar.get(url.hostname.toLowerCase());
    if (set !== undefined && set.size > 0) {
      const cookies = parseCookiePairs(out.cookie ?? '');
      for (const [name, value] of set) cookies.set(name, value);
      out.cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    }
    return out;
  }

  /** Stores the cookies a response set, for its own host. */
  recordSetCookie(url: URL, setCookie: string | string[] | undefined): void {
    if (setCookie === undefined) return;
    const host = url.hostname.toLowerCase();
    const set = this.jar.get(host) ?? new Map<string, string>();
    for (const line of Array.isArray(setCookie) ? setCookie : [setCookie]) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = (eq === -1 ? '' : pair.slice(0, eq)).trim();
      if (name === '') continue;
      const expired = attributes.some((a) => /^\s*max-age\s*=\s*(?:0|-\d+)\s*$/i.test(a));
      if (expired) set.delete(name);
      else set.set(name, pair.slice(eq + 1).trim());
    }
    this.jar.set(host, set);
  }

  /** Identity of a hop for loop detection: a URL revisited with the same cookies is a loop. */
  loopKey(url: URL): string {
    return `${url.href}\n${this.headersFor(url).cookie ?? ''}`;
  }
}
