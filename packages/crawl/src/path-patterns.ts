import { RE2JS } from 're2js';
import { InvalidCrawlPatternError } from './invalid-crawl-pattern-error.js';

/** Compiled `includePaths` or `excludePaths`: `matches` is true when any pattern matches any candidate. */
export interface PathPatterns {
  /** False when the list had no usable pattern (empty, or only empty strings). */
  readonly active: boolean;
  matches(candidates: readonly string[]): boolean;
}

/**
 * Compiles user patterns once per crawl with RE2 (re2js), no flags: case-sensitive (as Firecrawl does),
 * unanchored. RE2 matches in linear time; a JavaScript `RegExp` backtracks, and `(a+)+$` against a
 * long path of `a`s then blocked the worker's event loop for seconds per URL (health checks and
 * SIGTERM unanswered). The gateway refuses what RE2 cannot compile (`checkPathPattern` in
 * `@trawl/api-schema`: lookaround, backreferences, syntax errors). Empty strings are skipped: an empty
 * regex matches everything, which in `excludePaths` would silently exclude the whole crawl (Firecrawl
 * ignores them too).
 * @throws InvalidCrawlPatternError on the first pattern that does not compile.
 */
export function compilePathPatterns(field: 'includePaths' | 'excludePaths', patterns: readonly string[]): PathPatterns {
  const regexes: RE2JS[] = [];
  for (const pattern of patterns) {
    if (pattern === '') continue;
    try {
      regexes.push(RE2JS.compile(pattern));
    } catch (err) {
      throw new InvalidCrawlPatternError(field, pattern, err);
    }
  }
  return {
    active: regexes.length > 0,
    matches: (candidates) => regexes.some((re) => candidates.some((c) => re.test(c))),
  };
}

/**
 * The strings a path pattern is tested against, for a URL's path and query. Users write patterns for
 * `/blog/post-1` (`^/blog/`), for `blog/post-1` (`^blog/`) and for the path without its query
 * (`\.html$`), and non-ASCII paths readable (`/wiki/Zürich`) or encoded. All of these are offered; a
 * pattern matches the URL when it matches one of them.
 */
export function pathCandidates(pathname: string, search: string): string[] {
  const bases = search === '' ? [pathname] : [pathname + search, pathname];
  const out = new Set<string>();
  for (const base of bases) {
    for (const form of [base, safeDecode(base)]) {
      out.add(form);
      if (form.startsWith('/')) out.add(form.slice(1));
    }
  }
  return [...out];
}

function safeDecode(text: string): string {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
