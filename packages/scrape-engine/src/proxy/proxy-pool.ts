/** Proxy tiers of the `proxy` scrape option (`auto` is the caller's choice between them). */
export type ProxyTier = 'basic' | 'enhanced';

/** One upstream forward proxy. Credentials, when any, are the URL's username and password. */
export interface ProxyEndpoint {
  /** `http://[user:pass@]host[:port]` or `https://...` (TLS to the proxy itself). */
  url: URL;
  /** ISO 3166-1 alpha-2 country the proxy exits in, upper-case; absent for a general-purpose proxy. */
  country?: string;
}

/** Endpoints of each tier, as parsed from configuration. */
export interface ProxyPoolsInit {
  basic?: readonly ProxyEndpoint[];
  enhanced?: readonly ProxyEndpoint[];
}

/** What {@link ProxyPools.pick} is asked for. */
export interface ProxyPick {
  tier: ProxyTier;
  /** ISO alpha-2 country (any case) the scrape asked for (`location.country`). */
  country?: string;
}

const COUNTRY_PREFIX = /^([A-Za-z]{2})=(.*)$/s;
const SCHEMES = new Set(['http:', 'https:']);

/** `scheme://user:***@host:port`: safe for logs and error messages. */
export function redactProxyUrl(url: URL): string {
  const auth = url.username === '' && url.password === '' ? '' : `${url.username}:***@`;
  return `${url.protocol}//${auth}${url.host}`;
}

/** An entry that did not parse as a URL, with anything that looks like a password masked. */
function redactRaw(entry: string): string {
  return entry.replace(/\/\/([^/@:]*):[^/@]*@/, '//$1:***@');
}

function entryError(index: number, entry: string, why: string): Error {
  return new Error(`proxy entry ${index + 1} ("${redactRaw(entry)}") ${why}`);
}

/** Parses one entry: `[CC=]scheme://[user:pass@]host[:port]`. */
function parseEntry(entry: string, index: number): ProxyEndpoint {
  const prefixed = COUNTRY_PREFIX.exec(entry);
  const country = prefixed?.[1]?.toUpperCase();
  const raw = prefixed?.[2] ?? entry;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw entryError(index, entry, 'is not a URL; expected [CC=]http://[user:pass@]host:port');
  }
  if (!SCHEMES.has(url.protocol)) {
    throw entryError(index, entry, `has the unsupported scheme "${url.protocol}"; use http:// or https://`);
  }
  if (url.hostname === '') throw entryError(index, entry, 'has no host');
  if ((url.pathname !== '' && url.pathname !== '/') || url.search !== '' || url.hash !== '') {
    throw entryError(index, entry, 'has a path, query or fragment; a proxy URL is scheme://host:port only');
  }
  if (url.password !== '' && url.username === '') throw entryError(index, entry, 'has a password but no user name');
  return country === undefined ? { url } : { url, country };
}

/**
 * Parses a proxy list (`TRAWL_PROXY_BASIC`, `TRAWL_PROXY_ENHANCED`): entries separated by commas and/or
 * white space, each `[CC=]http(s)://[user:pass@]host[:port]` where `CC` is an ISO alpha-2 country.
 * Credentials with reserved characters are percent-encoded, as in any URL. An empty string is an empty
 * list. Throws an Error naming the first bad entry (position and text, password masked); suited to a
 * zod `transform` that turns the throw into an issue.
 */
export function parseProxyList(value: string): ProxyEndpoint[] {
  return value
    .split(/[\s,]+/)
    .filter((entry) => entry !== '')
    .map((entry, index) => parseEntry(entry, index));
}

/**
 * The configured upstream proxies by tier, handed out round-robin. An empty tier means a direct
 * connection (`pick` returns null): a self-hosted deployment works without any proxy.
 */
export class ProxyPools {
  private readonly tiers: Record<ProxyTier, readonly ProxyEndpoint[]>;
  /** Next index per candidate list (`tier:country`), so each list rotates on its own. */
  private readonly cursors = new Map<string, number>();

  constructor(init: ProxyPoolsInit = {}) {
    this.tiers = { basic: [...(init.basic ?? [])], enhanced: [...(init.enhanced ?? [])] };
  }

  /** Whether `tier` has at least one endpoint (otherwise that tier is a direct connection). */
  has(tier: ProxyTier): boolean {
    return this.tiers[tier].length > 0;
  }

  /**
   * The next endpoint of `tier`, or null for a direct connection when the tier is empty. With a
   * `country`: an endpoint of that country; failing that a country-less one; failing that any endpoint
   * of the tier (a proxy in the wrong country still hides the server's address, which a direct
   * connection would not). Without a country: a country-less endpoint; failing that any endpoint.
   * Never falls back to another tier: that choice (e.g. `auto`) belongs to the caller.
   */
  pick(request: ProxyPick): ProxyEndpoint | null {
    const all = this.tiers[request.tier];
    if (all.length === 0) return null;
    const country = request.country?.toUpperCase();
    const general = all.filter((e) => e.country === undefined);
    const local = country === undefined ? [] : all.filter((e) => e.country === country);
    const [key, candidates] = local.length > 0 ? [`${request.tier}:${country}`, local]
      : general.length > 0 ? [`${request.tier}:`, general]
        : [`${request.tier}:*`, all];
    const cursor = this.cursors.get(key) ?? 0;
    this.cursors.set(key, (cursor + 1) % candidates.length);
    return candidates[cursor % candidates.length] ?? null;
  }

  /** The endpoints for logs: `CC=scheme://user:***@host:port`, credentials masked. */
  describe(): Record<ProxyTier, string[]> {
    const show = (e: ProxyEndpoint): string => `${e.country === undefined ? '' : `${e.country}=`}${redactProxyUrl(e.url)}`;
    return { basic: this.tiers.basic.map(show), enhanced: this.tiers.enhanced.map(show) };
  }
}
