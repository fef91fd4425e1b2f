import { createHash } from 'node:crypto';
import type { ScrapeRequest } from '@trawl/api-schema';
import { canonicalUrl } from '@trawl/crawl';
import type { CachedPage } from './page-cache.js';

/** How a request may use the cache before fetching. */
export type CacheRead =
  /** Fetch; the cache is not consulted. */
  | { mode: 'off' }
  /** Serve a copy younger than `maxAgeMs`, else fetch. */
  | { mode: 'fresh'; maxAgeMs: number }
  /** Serve from the cache or fail; never fetch (`lockdown`, or `minAge`: at least that old). */
  | { mode: 'only'; reason: 'lockdown' | 'minAge'; maxAgeMs: number; minAgeMs: number };

/**
 * A request whose page may be one user's view: custom headers, actions, a profile, or credentials
 * in the URL (sent as Basic auth). Such a page is never served from the cache nor kept in it.
 */
function isSensitive(request: ScrapeRequest): boolean {
  if ((request.actions?.length ?? 0) > 0 || Object.keys(request.headers ?? {}).length > 0 || request.profile !== undefined) return true;
  return URL.canParse(request.url) && new URL(request.url).username !== '';
}

/**
 * The cache mode of a request. `lockdown` and `minAge` are cache-only. Otherwise the cache serves
 * copies within `maxAge` (0 turns reading off), except to sensitive requests ({@link isSensitive})
 * and to change tracking, which exists to see the page as it is now.
 */
export function cacheReadOf(request: ScrapeRequest): CacheRead {
  if (request.lockdown) return { mode: 'only', reason: 'lockdown', maxAgeMs: request.maxAge, minAgeMs: 0 };
  if (request.minAge !== undefined) return { mode: 'only', reason: 'minAge', maxAgeMs: Number.POSITIVE_INFINITY, minAgeMs: request.minAge };
  if (isSensitive(request) || request.maxAge <= 0 || request.formats.some((f) => f.type === 'changeTracking')) return { mode: 'off' };
  return { mode: 'fresh', maxAgeMs: request.maxAge };
}

/**
 * The cache key of a request: a digest of the canonical URL and the options that change what the
 * target sends or renders (device, location and languages, wait, ad blocking, TLS checks). Options applied after
 * the fetch (onlyMainContent, tags, formats) are not in it: every hit derives them again from the
 * stored page. `teamId` scopes the key to a team when the cache is not shared. Null for a URL that
 * has no canonical form.
 */
export function cacheKeyOf(request: ScrapeRequest, teamId?: string): string | null {
  const url = canonicalUrl(request.url, { ignoreQueryParameters: false });
  if (url === null) return null;
  const parts = [
    'v1', url, request.mobile ? 'mobile' : 'desktop', request.location?.country ?? 'US',
    // Languages are a set (Accept-Language order aside): order and duplicates do not make another page.
    [...new Set(request.location?.languages ?? [])].sort().join(','), String(request.waitFor), request.blockAds ? 'ads-blocked' : 'ads',
    // A copy fetched without certificate checks is never served to a request that wants them.
    request.skipTlsVerification ? 'tls-unchecked' : 'tls-checked',
    teamId ?? '',
  ];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/** The parser settings a document was read with, as stored and compared: `pdf:<mode>:<maxPages|all>`. */
export function parserSignature(request: ScrapeRequest): string {
  const pdf = request.parsers[0];
  return pdf ? `pdf:${pdf.mode}:${pdf.maxPages ?? 'all'}${pdf.pages === true ? ':pages' : ''}` : 'raw';
}

/** Why a stored page cannot answer a request, or null when it can. */
export function unusableReason(entry: CachedPage, request: ScrapeRequest, read: Exclude<CacheRead, { mode: 'off' }>, now: number): string | null {
  const common = staleReason(entry, request, read, now);
  if (common !== null) return common;
  if (entry.kind === 'document' && entry.document?.parser !== parserSignature(request)) return 'other-parser';
  const shot = request.formats.find((f) => f.type === 'screenshot');
  if (shot?.type === 'screenshot') {
    const have = entry.screenshot;
    if (!have || have.fullPage !== shot.fullPage || have.quality !== shot.quality
      || have.viewport?.width !== shot.viewport?.width || have.viewport?.height !== shot.viewport?.height) return 'no-screenshot';
  }
  return null;
}

/**
 * What a page entry and a derived entry share: the age rules (`maxAge`, and `minAge` in the
 * cache-only mode) and the proxy rule. Null when neither refuses the copy.
 */
export function staleReason(
  entry: { cachedAt: number; proxyUsed: 'basic' | 'enhanced' }, request: ScrapeRequest, read: Exclude<CacheRead, { mode: 'off' }>, now: number,
): string | null {
  const age = now - entry.cachedAt;
  if (age > read.maxAgeMs) return 'too-old';
  if (read.mode === 'only' && age < read.minAgeMs) return 'too-young';
  // Asked for the enhanced proxy (a page that blocks plain fetches): a copy fetched by a basic attempt
  // may be exactly the blocked page, so only an enhanced fetch answers it.
  if (request.proxy === 'enhanced' && entry.proxyUsed !== 'enhanced') return 'basic-fetch';
  return null;
}

/** Whether a fresh result may be stored: asked to, and a page worth serving again (2xx). */
export function mayStore(request: ScrapeRequest, statusCode: number): boolean {
  return request.storeInCache && !request.zeroDataRetention && !isSensitive(request) && statusCode >= 200 && statusCode < 300;
}

/**
 * Formats a derived cache entry may hold: the ones the HTML pipeline alone produces from the page,
 * free of charge beyond the page. LLM formats (charged, and not repeatable), screenshots (their blob
 * is stored again per job), change tracking (compares against now) and the rest always run in a worker.
 */
const DERIVED_FORMATS: ReadonlySet<string> = new Set(['markdown', 'html', 'rawHtml', 'links', 'images']);

/**
 * Request fields that do not change the formats derived from a page: the deadline, the cache
 * controls, retention and the caller's tags. Every other field goes into {@link derivedOptionsHash},
 * so an option added later makes a different hash (a miss), never a wrong answer.
 */
const NOT_DERIVING: ReadonlySet<string> = new Set([
  'url', 'timeout', 'maxAge', 'minAge', 'lockdown', 'storeInCache', 'zeroDataRetention', 'origin', 'integration',
  'auditMetadata', 'fastMode', 'useMock', 'domainTools', 'toolDetail',
]);

/**
 * Whether a request may be answered by the gateway from a derived entry (formats already converted
 * for its options), without a slot, a queue hop or a conversion: it reads the cache (see
 * {@link cacheReadOf}), keeps no zero-data-retention promise (ZDR, and lockdown which implies it,
 * go to a worker), and asks only for {@link DERIVED_FORMATS} with no post-processing that costs
 * credits or calls an LLM (onlyCleanContent, redactPII). The same rule decides what a worker stores.
 */
export function derivableRequest(request: ScrapeRequest): boolean {
  if (request.zeroDataRetention || cacheReadOf(request).mode === 'off') return false;
  if (request.onlyCleanContent || request.redactPII !== false) return false;
  return request.formats.length > 0 && request.formats.every((f) => DERIVED_FORMATS.has(f.type));
}

/** The digest of the options that shape a request's derived formats (hex, 32 chars). */
export function derivedOptionsHash(request: ScrapeRequest): string {
  const shaping = Object.entries(request).filter(([k, v]) => !NOT_DERIVING.has(k) && v !== undefined);
  return createHash('sha256').update(JSON.stringify(['d1', shaping])).digest('hex').slice(0, 32);
}
