import { canonicalizeParsedUrl } from './canonical-url.js';
import { normalizePercentEncoding } from './percent-encoding.js';
import { parseHttpUrl } from './parse-http-url.js';

/** Options of {@link urlKey}. */
export interface UrlKeyOptions {
  /** Drop the query string entirely. */
  ignoreQueryParameters: boolean;
  /** Treat www/non-www, http/https, a trailing slash and index pages as the same page. */
  deduplicateSimilarURLs: boolean;
}

/** Last path segments that servers conventionally serve for the directory itself. Compared lowercase. */
const INDEX_PAGES = new Set([
  'index.html', 'index.htm', 'index.shtml', 'index.php', 'index.asp', 'index.aspx', 'index.jsp', 'index.cfm',
  'default.html', 'default.htm', 'default.asp', 'default.aspx',
]);

/** Host without a trailing dot (`example.com.` is the same DNS name) and without a leading `www.`. */
export function bareHost(hostname: string): string {
  const host = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  return host.startsWith('www.') ? host.slice(4) : host;
}

/** Dedupe key of a parsed http(s) URL; see {@link urlKey}. */
export function urlKeyOfParsed(url: URL, opts: UrlKeyOptions): string | null {
  if (!opts.deduplicateSimilarURLs) return canonicalizeParsedUrl(url, opts);
  if (canonicalizeParsedUrl(url, opts) === null) return null;
  let path = normalizePercentEncoding(url.pathname);
  const slash = path.lastIndexOf('/');
  if (INDEX_PAGES.has(path.slice(slash + 1).toLowerCase())) path = path.slice(0, slash + 1);
  path = path.replace(/\/+$/, '');
  const query = opts.ignoreQueryParameters ? '' : normalizePercentEncoding(url.search);
  const port = url.port === '' ? '' : `:${url.port}`;
  return `${bareHost(url.hostname)}${port}${path === '' ? '/' : path}${query}`;
}

/**
 * Dedupe key of a URL: two URLs with the same key are one page of the crawl. With
 * `deduplicateSimilarURLs` false it is {@link canonicalUrl}; with it true the key is
 * `host[:port]/path[?query]` with no scheme (http and https agree), no `www.` prefix, no trailing slash
 * and no trailing index page (`/docs/`, `/docs` and `/docs/index.html` agree), and no credentials.
 * Percent-encoding is normalised either way. Null when the URL is not http(s), unparsable or too long.
 */
export function urlKey(url: string, opts: UrlKeyOptions): string | null {
  const parsed = parseHttpUrl(url);
  return parsed.ok ? urlKeyOfParsed(parsed.url, opts) : null;
}
