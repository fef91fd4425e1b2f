import {
  ALLOW_ALL_ROBOTS, decodeSitemapBody, defaultSitemapUrls, parseRobotsTxt, parseSitemap, type RobotsRules,
} from '@trawl/crawl';
import type { Fetcher } from '@trawl/scrape-engine';

/** The user agent token robots.txt groups are matched against unless the crawl names one. */
export const DEFAULT_ROBOTS_USER_AGENT = 'TrawlBot';

/** Sitemap files fetched in parallel. */
const SITEMAP_FETCHES_AT_ONCE = 4;

export interface SiteDiscoveryOptions {
  fetcher: Fetcher;
  /** Cap on robots.txt and each (decompressed) sitemap, bytes. */
  maxBytes: number;
  /** Most sitemap files read per site (indexes included). Default 50. */
  maxSitemaps?: number;
  userAgent?: string;
}

/**
 * Reads what a site says about itself: robots.txt (rules, Crawl-delay, Sitemap lines) and its
 * sitemaps (indexes followed, gzipped ones decompressed with a cap). Every failure is tolerated: a
 * missing or broken robots.txt allows everything, a broken sitemap adds nothing.
 */
export class SiteDiscovery {
  private readonly maxSitemaps: number;

  constructor(private readonly opts: SiteDiscoveryOptions) {
    this.maxSitemaps = opts.maxSitemaps ?? 50;
  }

  /**
   * robots.txt of the URL's origin and its raw text ('' when absent). An error status or a failed
   * fetch allows everything (RFC 9309 says 4xx; on 5xx we also crawl rather than stall).
   */
  async robots(url: string, signal: AbortSignal): Promise<{ rules: RobotsRules; text: string }> {
    const text = await this.fetchText(new URL('/robots.txt', url).href, signal);
    return text === null ? { rules: ALLOW_ALL_ROBOTS, text: '' } : { rules: parseRobotsTxt(text), text };
  }

  /**
   * URLs listed by the site's sitemaps: those robots.txt names, else the usual locations. Stops at
   * `maxUrls` URLs, `maxSitemaps` files, or when the signal fires (what was found so far is kept).
   */
  async sitemapUrls(seedUrl: string, robots: RobotsRules, opts: { maxUrls: number; signal: AbortSignal }): Promise<{ loc: string; lastmod?: string }[]> {
    const queue = robots.sitemaps.length > 0 ? [...robots.sitemaps] : defaultSitemapUrls(seedUrl);
    const seenFiles = new Set<string>();
    const seenUrls = new Set<string>();
    const out: { loc: string; lastmod?: string }[] = [];
    while (queue.length > 0 && seenFiles.size < this.maxSitemaps && out.length < opts.maxUrls && !opts.signal.aborted) {
      // A few files at a time: the usual locations are probed together, indexes fan out.
      const wave = queue.splice(0, SITEMAP_FETCHES_AT_ONCE).filter((f) => !seenFiles.has(f)).slice(0, this.maxSitemaps - seenFiles.size);
      for (const f of wave) seenFiles.add(f);
      const bodies = await Promise.all(wave.map((f) => this.fetchSitemap(f, opts.signal)));
      for (const body of bodies) {
        if (body === null) continue;
        const parsed = parseSitemap(body);
        for (const child of parsed.sitemaps) if (!seenFiles.has(child)) queue.push(child);
        for (const u of parsed.urls) {
          if (out.length >= opts.maxUrls) break;
          if (seenUrls.has(u.loc)) continue;
          seenUrls.add(u.loc);
          out.push(u);
        }
      }
    }
    return out;
  }

  private async fetchSitemap(url: string, signal: AbortSignal): Promise<string | null> {
    try {
      const page = await this.opts.fetcher.fetch({ url, signal, maxBytes: this.opts.maxBytes, ...this.ua() });
      if (page.statusCode >= 400) return null;
      if (page.text !== undefined) return page.text;
      return page.body ? decodeSitemapBody(page.body, { maxBytes: this.opts.maxBytes }) : null;
    } catch {
      return null;
    }
  }

  private async fetchText(url: string, signal: AbortSignal): Promise<string | null> {
    try {
      const page = await this.opts.fetcher.fetch({ url, signal, maxBytes: this.opts.maxBytes, ...this.ua() });
      if (page.statusCode >= 400) return null;
      return page.text ?? (page.body ? page.body.toString('utf8') : null);
    } catch {
      return null;
    }
  }

  private ua(): { userAgent?: string } {
    return this.opts.userAgent ? { userAgent: this.opts.userAgent } : {};
  }
}
