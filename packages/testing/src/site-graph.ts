/**
 * The link graph and pages of {@link GeneratedSite}, as pure functions of the options: no I/O, so the
 * same answers (`reachable`, `depthOf`) are what the server serves.
 *
 * Layout: "/" is the root of a tree of content pages `/p/0 ... /p/<pages-1>` with `branching` children
 * per page, numbered breadth-first: the children of "/" are `/p/0 ... /p/<branching-1>`, the children of
 * `/p/i` are `/p/<branching*(i+1)> ...`, so `/p/i` sits at depth floor(log_b((i+1)(b-1)+1)) and depth
 * grows by one per level. Every page also links to "/" and "/about" (nav), which never shortens a path
 * below the tree depth because both sit at depth <= 1.
 */

/** robots.txt content of {@link GeneratedSiteOptions.robots}. */
export interface GeneratedRobots {
  /** Path prefixes to disallow. Default `['/private/']`. */
  disallow?: string[];
  /** `Crawl-delay` line, in seconds. Default: none. */
  crawlDelaySec?: number;
  /** `User-agent` of the group. Default `*`. */
  userAgent?: string;
}

/** Options of {@link GeneratedSite}. */
export interface GeneratedSiteOptions {
  /** Content pages `/p/0 ...`, arranged as a tree rooted at "/". Default 50. */
  pages: number;
  /** Children per page in the tree. Default 4. */
  branching: number;
  /** Pages `/hidden/<n>` listed only in the sitemap, linked from nowhere. Default 0. */
  sitemapOnly: number;
  /** Each page also links to `/missing/<n>`, which answers 404. Default false. */
  brokenLinks: boolean;
  /** Links to `/p/<n>` with n % 5 === 2 go to `/r/<n>` instead, which 301-redirects to `/p/<n>`. Default false. */
  redirects: boolean;
  /**
   * Extra links with a query string to pages that are already linked: `/p/i` with i % 3 === 0 links to
   * its parent with `?ref=p<i>`, and with i % 3 === 1 to its first child with `?utm_source=p<i>`. Default false.
   */
  queryVariants: boolean;
  /** robots.txt content, or false for no robots.txt (404). Default: disallow `/private/`, list the sitemap. */
  robots: GeneratedRobots | false;
  /** Pages `/private/<n>` linked from the home page (disallowed by the default robots.txt). Default 0. */
  privatePages: number;
  /**
   * `plain`: `/sitemap.xml` is a urlset. `index-gz`: `/sitemap.xml` is a sitemapindex pointing to the
   * gzipped urlset `/sitemap-pages.xml.gz`. `none`: no sitemap (404). Default `plain`.
   */
  sitemap: 'plain' | 'index-gz' | 'none';
  /** Artificial latency before answering each request, in milliseconds. Default 0. */
  latencyMs: number;
  /** Approximate size of each page's HTML in bytes (filler paragraphs). Default 4096. */
  pageBytes: number;
  /** Each page also links to `http://external.invalid/...`, which must never be fetched. Default false. */
  externalLinks: boolean;
}

/** Defaults of {@link GeneratedSiteOptions}. */
export function resolveSiteOptions(opts: Partial<GeneratedSiteOptions> = {}): GeneratedSiteOptions {
  const resolved: GeneratedSiteOptions = {
    pages: 50, branching: 4, sitemapOnly: 0, brokenLinks: false, redirects: false, queryVariants: false,
    robots: {}, privatePages: 0, sitemap: 'plain', latencyMs: 0, pageBytes: 4096, externalLinks: false,
  };
  for (const [key, value] of Object.entries(opts)) {
    // An explicit `undefined` keeps the default, as an absent key does.
    if (value !== undefined) Object.assign(resolved, { [key]: value });
  }
  if (!Number.isInteger(resolved.pages) || resolved.pages < 0) throw new RangeError('pages must be an integer >= 0');
  if (!Number.isInteger(resolved.branching) || resolved.branching < 1) throw new RangeError('branching must be an integer >= 1');
  return resolved;
}

/** What the server answers for a path (without query). */
export type SiteRoute =
  | { kind: 'page'; path: string }
  | { kind: 'redirect'; location: string }
  | { kind: 'robots' | 'sitemap' | 'sitemap-gz' }
  | { kind: 'missing' };

const EXTERNAL_ORIGIN = 'http://external.invalid';

/** The link graph of one option set; every method is deterministic. */
export class SiteGraph {
  constructor(readonly opts: GeneratedSiteOptions) {}

  /** Index of `/p/<n>` (or `/r/<n>` with `prefix` 'r'), or undefined when out of range or malformed. */
  private indexOf(path: string, prefix: string, count: number): number | undefined {
    const m = new RegExp(`^/${prefix}/(0|[1-9][0-9]*)$`).exec(path);
    if (!m) return undefined;
    const n = Number(m[1]);
    return n < count ? n : undefined;
  }

  /** Every path answering 200 with an HTML page: "/", "/about", `/p/*`, `/private/*`, `/hidden/*`. */
  allPagePaths(): string[] {
    const o = this.opts;
    return [
      '/', '/about',
      ...range(o.pages).map((i) => `/p/${i}`),
      ...range(o.privatePages).map((i) => `/private/${i}`),
      ...range(o.sitemapOnly).map((i) => `/hidden/${i}`),
    ];
  }

  /** Paths listed in the sitemap: "/", "/about", `/p/*` and `/hidden/*` (never `/private/*`). */
  sitemapPaths(): string[] {
    if (this.opts.sitemap === 'none') return [];
    return this.allPagePaths().filter((p) => !p.startsWith('/private/'));
  }

  route(path: string): SiteRoute {
    const o = this.opts;
    if (path === '/robots.txt') return o.robots === false ? { kind: 'missing' } : { kind: 'robots' };
    if (path === '/sitemap.xml') return o.sitemap === 'none' ? { kind: 'missing' } : { kind: 'sitemap' };
    if (path === '/sitemap-pages.xml.gz') return o.sitemap === 'index-gz' ? { kind: 'sitemap-gz' } : { kind: 'missing' };
    const r = o.redirects ? this.indexOf(path, 'r', o.pages) : undefined;
    if (r !== undefined) return { kind: 'redirect', location: `/p/${r}` };
    if (this.isPage(path)) return { kind: 'page', path };
    return { kind: 'missing' };
  }

  isPage(path: string): boolean {
    const o = this.opts;
    return path === '/' || path === '/about'
      || this.indexOf(path, 'p', o.pages) !== undefined
      || this.indexOf(path, 'private', o.privatePages) !== undefined
      || this.indexOf(path, 'hidden', o.sitemapOnly) !== undefined;
  }

  /** Tree children of a page (canonical paths). */
  children(path: string): string[] {
    const o = this.opts;
    if (path === '/') {
      return [...range(Math.min(o.branching, o.pages)).map((i) => `/p/${i}`), ...range(o.privatePages).map((i) => `/private/${i}`)];
    }
    const i = this.indexOf(path, 'p', o.pages);
    if (i === undefined) return [];
    const first = o.branching * (i + 1);
    return range(Math.max(0, Math.min(o.branching, o.pages - first))).map((k) => `/p/${first + k}`);
  }

  /** Link of a page to a content page: through `/r/<n>` for the redirected ones. */
  private hrefTo(path: string): string {
    const n = this.indexOf(path, 'p', this.opts.pages);
    return this.opts.redirects && n !== undefined && n % 5 === 2 ? `/r/${n}` : path;
  }

  /** The hrefs of the main content of a page, in document order (nav links not included). */
  contentLinks(path: string): string[] {
    const o = this.opts;
    const links = this.children(path).map((c) => this.hrefTo(c));
    const i = this.indexOf(path, 'p', o.pages);
    if (o.queryVariants && i !== undefined) {
      const parent = i < o.branching ? '/' : `/p/${Math.floor(i / o.branching) - 1}`;
      const firstChild = this.children(path)[0];
      if (i % 3 === 0) links.push(`${parent}?ref=p${i}`);
      if (i % 3 === 1 && firstChild) links.push(`${firstChild}?utm_source=p${i}`);
    }
    const id = i ?? (path === '/' ? 'home' : path.slice(1).replace(/\//g, '-'));
    if (o.brokenLinks) links.push(`/missing/${id}`);
    if (o.externalLinks) links.push(`${EXTERNAL_ORIGIN}/from/${id}`);
    return links;
  }

  /** Nav links, the same on every page. */
  navLinks(): string[] {
    return ['/', '/about'];
  }

  /** The page path a same-site href leads to (query dropped, redirect followed), or undefined. */
  canonical(href: string): string | undefined {
    if (/^[a-z]+:/i.test(href)) return undefined;
    const path = href.split(/[?#]/)[0] ?? '';
    const route = this.route(path);
    if (route.kind === 'redirect') return route.location;
    return route.kind === 'page' ? path : undefined;
  }

  isDisallowed(path: string): boolean {
    const robots = this.opts.robots;
    if (robots === false) return false;
    return (robots.disallow ?? ['/private/']).some((prefix) => prefix !== '' && path.startsWith(prefix));
  }

  /**
   * Breadth-first distances from "/" over page links. With `politely`, disallowed pages are neither
   * counted nor expanded, as a robots.txt-respecting crawler never fetches them.
   */
  depths({ politely }: { politely: boolean }): Map<string, number> {
    const depth = new Map<string, number>([['/', 0]]);
    const queue = ['/'];
    for (let head = 0; head < queue.length; head++) {
      const path = queue[head] as string;
      const d = depth.get(path) as number;
      for (const href of [...this.navLinks(), ...this.contentLinks(path)]) {
        const target = this.canonical(href);
        if (target === undefined || depth.has(target) || (politely && this.isDisallowed(target))) continue;
        depth.set(target, d + 1);
        queue.push(target);
      }
    }
    return depth;
  }
}

export function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}
