import { parseHttpUrl } from './parse-http-url.js';

/** Paths where sites usually publish a sitemap when robots.txt names none. */
const SITEMAP_PATHS = ['/sitemap.xml', '/sitemap_index.xml', '/sitemap-index.xml', '/sitemap.xml.gz'];

/**
 * The usual sitemap locations of the seed's site: `/sitemap.xml`, `/sitemap_index.xml`,
 * `/sitemap-index.xml` and `/sitemap.xml.gz` on the seed's origin (scheme, host and port). Empty when the
 * seed is not an absolute http(s) URL.
 */
export function defaultSitemapUrls(seedUrl: string): string[] {
  const parsed = parseHttpUrl(seedUrl);
  if (!parsed.ok) return [];
  return SITEMAP_PATHS.map((path) => `${parsed.url.origin}${path}`);
}
