import { canonicalizeParsedUrl } from './canonical-url.js';
import { hasNonPageExtension } from './non-page-extension.js';
import { parseHttpUrl } from './parse-http-url.js';
import { compilePathPatterns, pathCandidates, type PathPatterns } from './path-patterns.js';
import { normalizePercentEncoding } from './percent-encoding.js';
import { bareHost, urlKeyOfParsed } from './url-key.js';

/** Options that decide which discovered URLs a crawl follows (Firecrawl v2 crawl semantics). */
export interface CrawlScopeOptions {
  /** Where the crawl starts: an absolute http(s) URL. Always in scope. */
  seedUrl: string;
  /**
   * Regexes (no flags); when non-empty, a URL must match one. Tested against the path and query
   * (`/blog/post-1?page=2`), also with the leading `/` removed, without the query and percent-decoded;
   * or against the full canonical URL when `regexOnFullURL`. Empty strings are ignored.
   */
  includePaths: string[];
  /** Regexes (no flags); a URL matching one is out of scope. Matched like `includePaths`; wins over it. */
  excludePaths: string[];
  /** Match `includePaths`/`excludePaths` against the full canonical URL instead of its path. */
  regexOnFullURL: boolean;
  /**
   * Most discovery hops followed. The seed and sitemap URLs have depth 0; links found on a depth-d page
   * have depth d+1. Undefined: no limit.
   */
  maxDiscoveryDepth?: number;
  /**
   * False: on the seed's host, only the seed's children (seed `/docs`, `/docs/` -> `/docs/*`; seed
   * `/docs/intro` -> `/docs/intro/*`; a file-like seed `/docs/a.html` -> `/docs/*`). True: the whole host. Subdomains and external hosts, when allowed,
   * are never restricted by path.
   */
  crawlEntireDomain: boolean;
  /** Also follow subdomains of the seed's host without its `www.` (`a.example.com` for `www.example.com`). */
  allowSubdomains: boolean;
  /** Follow any http(s) host (depth and include/exclude still apply). */
  allowExternalLinks: boolean;
  /** Drop the query string entirely, from the URL to fetch and from the dedupe key. */
  ignoreQueryParameters: boolean;
  /** Dedupe key treats www/non-www, http/https, trailing slash and index pages as the same page. */
  deduplicateSimilarURLs: boolean;
}

/** Why {@link CrawlScope.check} refused a URL. */
export type ScopeRejection =
  | 'invalid'
  | 'scheme'
  | 'external'
  | 'subdomain'
  | 'outside-path'
  | 'include'
  | 'exclude'
  | 'depth'
  | 'file-type';

/** Verdict of {@link CrawlScope.check}. */
export type ScopeCheck = { ok: true; url: string; key: string } | { ok: false; reason: ScopeRejection };

/**
 * Decides, for each discovered URL, whether a crawl follows it, and gives the URL to fetch and its dedupe
 * key. Built once per crawl from its options; `check` is pure and cheap (one URL parse, the user's
 * regexes). Checks run in this order, the first failing one is the reason: `invalid`, `scheme`, then (the
 * seed itself is always in scope) `external`/`subdomain`, `outside-path`, `file-type`, `exclude`,
 * `include`, `depth`.
 */
export class CrawlScope {
  /** Canonical form of the seed URL (the URL to fetch first). */
  readonly seedUrl: string;
  /** Dedupe key of the seed URL. */
  readonly seedKey: string;
  /** Path prefix URLs on the seed's host must have when `crawlEntireDomain` is false. */
  readonly pathPrefix: string;
  private readonly opts: CrawlScopeOptions;
  private readonly siteHost: string;
  private readonly includes: PathPatterns;
  private readonly excludes: PathPatterns;

  /**
   * @throws InvalidCrawlPatternError when an `includePaths`/`excludePaths` entry is not a valid regex.
   * @throws TypeError when `seedUrl` is not an absolute http(s) URL.
   */
  constructor(opts: CrawlScopeOptions) {
    this.opts = { ...opts, includePaths: [...opts.includePaths], excludePaths: [...opts.excludePaths] };
    this.includes = compilePathPatterns('includePaths', opts.includePaths);
    this.excludes = compilePathPatterns('excludePaths', opts.excludePaths);
    const parsed = parseHttpUrl(opts.seedUrl);
    const seedUrl = parsed.ok ? canonicalizeParsedUrl(parsed.url, opts) : null;
    const seedKey = parsed.ok ? urlKeyOfParsed(parsed.url, opts) : null;
    if (!parsed.ok || seedUrl === null || seedKey === null) {
      throw new TypeError(`Crawl seed is not an absolute http(s) URL: ${JSON.stringify(opts.seedUrl.slice(0, 200))}`);
    }
    this.seedUrl = seedUrl;
    this.seedKey = seedKey;
    this.siteHost = bareHost(parsed.url.hostname);
    const path = normalizePercentEncoding(parsed.url.pathname);
    // `/docs` and `/docs/` mean the folder `/docs/`; a file-like last segment (`/docs/a.html`) means its folder.
    const last = path.slice(path.lastIndexOf('/') + 1);
    this.pathPrefix = last === '' || last.includes('.') ? path.slice(0, path.lastIndexOf('/') + 1) : `${path}/`;
  }

  /** Canonical URL to scrape and its dedupe key, or why it is out of scope. `depth` = discovery depth of this URL. */
  check(url: string, depth: number): ScopeCheck {
    const parsed = parseHttpUrl(url);
    if (!parsed.ok) return parsed;
    const u = parsed.url;
    const canonical = canonicalizeParsedUrl(u, this.opts);
    const key = urlKeyOfParsed(u, this.opts);
    if (canonical === null || key === null) return { ok: false, reason: 'invalid' };
    if (key === this.seedKey) return { ok: true, url: canonical, key };

    const host = bareHost(u.hostname);
    const sameSite = host === this.siteHost;
    if (!sameSite && !this.opts.allowExternalLinks) {
      const subdomain = host.endsWith(`.${this.siteHost}`);
      if (!subdomain) return { ok: false, reason: 'external' };
      if (!this.opts.allowSubdomains) return { ok: false, reason: 'subdomain' };
    }
    const pathname = normalizePercentEncoding(u.pathname);
    if (sameSite && !this.opts.crawlEntireDomain && !pathname.startsWith(this.pathPrefix)) {
      return { ok: false, reason: 'outside-path' };
    }
    if (hasNonPageExtension(pathname)) return { ok: false, reason: 'file-type' };

    if (this.excludes.active || this.includes.active) {
      const search = this.opts.ignoreQueryParameters ? '' : normalizePercentEncoding(u.search);
      const candidates = this.opts.regexOnFullURL ? [canonical] : pathCandidates(pathname, search);
      if (this.excludes.active && this.excludes.matches(candidates)) return { ok: false, reason: 'exclude' };
      if (this.includes.active && !this.includes.matches(candidates)) return { ok: false, reason: 'include' };
    }
    const max = this.opts.maxDiscoveryDepth;
    if (max !== undefined && !(depth <= max)) return { ok: false, reason: 'depth' };
    return { ok: true, url: canonical, key };
  }
}
