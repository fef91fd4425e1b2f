import { normalizePercentEncoding } from './percent-encoding.js';
import { MAX_URL_LENGTH, parseHttpUrl } from './parse-http-url.js';

/** Options of {@link canonicalUrl}. */
export interface CanonicalUrlOptions {
  /** Drop the query string entirely. */
  ignoreQueryParameters: boolean;
}

/**
 * Canonical form of a parsed http(s) URL; see {@link canonicalUrl}. Null when the result would be longer
 * than {@link MAX_URL_LENGTH} (punycode and percent-encoding can grow a URL).
 */
export function canonicalizeParsedUrl(url: URL, opts: CanonicalUrlOptions): string | null {
  const auth = url.username !== '' || url.password !== '' ? `${url.username}${url.password !== '' ? `:${url.password}` : ''}@` : '';
  // `search` is '' for both "no query" and a bare "?": the bare "?" is dropped with it.
  const query = opts.ignoreQueryParameters ? '' : normalizePercentEncoding(url.search);
  const canonical = `${url.protocol}//${auth}${url.host}${normalizePercentEncoding(url.pathname)}${query}`;
  return canonical.length > MAX_URL_LENGTH ? null : canonical;
}

/**
 * Canonical form of a URL to fetch: absolute http(s), lowercase scheme and host (IDN hosts punycoded),
 * default port dropped, fragment dropped, empty path `/`, dot segments resolved, percent-encoding
 * normalised (uppercase hex, unreserved characters decoded). The query keeps its order (parameter order
 * can matter to the server) unless `ignoreQueryParameters` drops it. Null when not http(s), unparsable,
 * relative, or longer than {@link MAX_URL_LENGTH}.
 */
export function canonicalUrl(url: string, opts: CanonicalUrlOptions): string | null {
  const parsed = parseHttpUrl(url);
  return parsed.ok ? canonicalizeParsedUrl(parsed.url, opts) : null;
}
