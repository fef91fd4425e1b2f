import { TrawlError, type MapRequest } from '@trawl/api-schema';
import { CrawlScope, rankLinks, type RobotsRules } from '@trawl/crawl';
import type { Fetcher } from '@trawl/scrape-engine';
import type { HtmlConverter } from '../convert/html-converter.js';
import { htmlInputOf } from '../convert/build-document.js';
import { DEFAULT_ROBOTS_USER_AGENT, type SiteDiscovery } from './site-discovery.js';

/** The 408 of a map that found nothing in time; clients match the start of its message. */
export function mapTimeout(): TrawlError {
  return new TrawlError('MAP_TIMEOUT', 'The map operation timed out before any URL was found; retry with a larger timeout');
}

/** One entry of a map's `links`. */
export interface MapLink {
  url: string;
  title?: string;
  description?: string;
}

export interface MapRunnerOptions {
  fetcher: Fetcher;
  converter: HtmlConverter;
  discovery: SiteDiscovery;
  /** Pages fetched at once during link discovery. */
  concurrency: number;
  maxResponseBytes: number;
  /** Share of the time budget kept for answering after discovery stops, 0..1. Default 0.1. */
  reserveShare?: number;
}

/**
 * `POST /v2/map`: the site's sitemap URLs plus a fast breadth-first link discovery over plain HTTP
 * (robots.txt respected for fetching), bounded by `limit` and the time budget, so pages no sitemap
 * lists are found too. Pages fetched give their title and description. `search` ranks the result.
 */
export class MapRunner {
  constructor(private readonly opts: MapRunnerOptions) {}

  /** `cancel` fires when the waiting caller went away: every fetch stops. */
  async run(request: MapRequest, ctx: { deadline: number; shutdown: AbortSignal; cancel?: AbortSignal }): Promise<MapLink[]> {
    return (await this.runReport(request, ctx)).links;
  }

  /**
   * As `run`, and tells whether the time budget cut the map short (links were left unexplored, or the
   * sitemaps were still being read). A map whose seed page could not be fetched in time, and that found
   * nothing else, fails `MAP_TIMEOUT`.
   */
  async runReport(request: MapRequest, ctx: { deadline: number; shutdown: AbortSignal; cancel?: AbortSignal }): Promise<{ links: MapLink[]; timedOut: boolean }> {
    const budget = Math.max(0, ctx.deadline - Date.now());
    const stopDiscoveryAt = ctx.deadline - budget * (this.opts.reserveShare ?? 0.1);
    const signal = AbortSignal.any([AbortSignal.timeout(Math.max(1, budget - 200)), ctx.shutdown, ...(ctx.cancel ? [ctx.cancel] : [])]);
    const scope = new CrawlScope({
      seedUrl: request.url, includePaths: [], excludePaths: [], regexOnFullURL: false, crawlEntireDomain: true,
      allowSubdomains: request.includeSubdomains, allowExternalLinks: false,
      ignoreQueryParameters: request.ignoreQueryParameters, deduplicateSimilarURLs: true,
    });
    const found = new Map<string, MapLink>();
    const add = (url: string): string | null => {
      if (found.size >= request.limit) return null;
      const c = scope.check(url, 0);
      if (!c.ok || found.has(c.key)) return null;
      found.set(c.key, { url: c.url });
      return c.key;
    };
    const seedKey = add(request.url);
    const robots = await this.opts.discovery.robots(request.url, signal);
    // Sitemaps and link discovery run side by side; sitemap URLs are added as they come.
    const sitemap = request.sitemap === 'skip'
      ? Promise.resolve()
      : this.opts.discovery.sitemapUrls(request.url, robots.rules, { maxUrls: request.limit * 4, signal }).then((listed) => {
        for (const u of listed) add(u.loc);
      });
    const discovery = request.sitemap !== 'only' && seedKey !== null
      ? this.discover(request, { seedKey, found, add, robots: robots.rules, stopAt: stopDiscoveryAt, signal })
      : Promise.resolve({ cutShort: false });
    const [, discovered] = await Promise.all([sitemap, discovery]);
    if (ctx.shutdown.aborted) throw ctx.shutdown.reason;
    if (ctx.cancel?.aborted) throw ctx.cancel.reason;
    const timedOut = discovered.cutShort || signal.aborted;
    const links = [...found.values()];
    return { links: request.search ? rankLinks(links, request.search) : links, timedOut };
  }

  /** Breadth-first fetches from the seed until the queue empties, the limit fills or time runs out. */
  private async discover(request: MapRequest, s: {
    seedKey: string; found: Map<string, MapLink>; add: (url: string) => string | null; robots: RobotsRules; stopAt: number; signal: AbortSignal;
  }): Promise<{ cutShort: boolean }> {
    const queue: string[] = [s.seedKey];
    let inFlight = 0;
    let seedError: unknown;
    await new Promise<void>((resolve) => {
      const next = (): void => {
        while (inFlight < this.opts.concurrency && queue.length > 0 && Date.now() < s.stopAt && !s.signal.aborted) {
          const key = queue.shift()!;
          const link = s.found.get(key)!;
          if (!s.robots.isAllowed(link.url, DEFAULT_ROBOTS_USER_AGENT)) continue;
          inFlight += 1;
          void this.visit(request, link, s.signal).then(
            (links) => {
              for (const url of links) {
                const k = s.add(url);
                if (k !== null) queue.push(k);
              }
            },
            (err: unknown) => {
              if (key === s.seedKey) seedError = err;
            },
          ).finally(() => {
            inFlight -= 1;
            next();
          });
        }
        if (inFlight === 0) resolve();
      };
      next();
    });
    if (seedError !== undefined && s.found.size <= 1) {
      const te = TrawlError.from(seedError);
      if (te.code === 'SCRAPE_TIMEOUT' || s.signal.aborted) throw mapTimeout();
      throw te;
    }
    // Links still waiting (and room for them) when time ran out: the map is partial.
    return { cutShort: queue.length > 0 && s.found.size < request.limit };
  }

  /** Fetches one page: fills its title and description, returns its links. */
  private async visit(request: MapRequest, link: MapLink, signal: AbortSignal): Promise<string[]> {
    const page = await this.opts.fetcher.fetch({
      url: link.url, signal, maxBytes: this.opts.maxResponseBytes, ...(request.headers ? { headers: request.headers } : {}),
    });
    if (page.kind !== 'html' && page.kind !== 'xhtml') return [];
    const result = await this.opts.converter.convert(htmlInputOf(page), { url: page.url, formats: { links: true } }, signal);
    if (page.statusCode < 400) {
      if (result.metadata.title) link.title = result.metadata.title;
      if (result.metadata.description) link.description = result.metadata.description;
    }
    return [...(page.url !== link.url ? [page.url] : []), ...(result.links ?? [])];
  }
}
