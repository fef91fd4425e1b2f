import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeSitemapBody } from './decode-sitemap-body.js';
import { parseSitemap } from './parse-sitemap.js';
import { parseRobotsTxt } from './robots-txt.js';

// The mirrored site of the shared corpora (next to the repository on development machines, absent in CI).
// Nothing of it is copied into the repository; the unit tests use hand-written excerpts of its shape.
const SITE = join(dirname(fileURLToPath(import.meta.url)), '../../../../shared/corpora/site-jena/site');
const present = existsSync(join(SITE, 'robots.txt')) && existsSync(join(SITE, 'sitemap.xml'));

(present ? describe : describe.skip)('a real site robots.txt and sitemap.xml', () => {
  it('reads the robots.txt rules and its sitemap', () => {
    const robots = parseRobotsTxt(readFileSync(join(SITE, 'robots.txt'), 'utf8'));
    expect(robots.sitemaps).toEqual(['https://jena.apache.org/sitemap.xml']);
    expect(robots.isAllowed('https://jena.apache.org/404/', 'TrawlBot')).toBe(false);
    expect(robots.isAllowed('https://jena.apache.org/documentation/', 'TrawlBot')).toBe(true);
  });

  it('reads every <loc> of the sitemap', () => {
    const bytes = readFileSync(join(SITE, 'sitemap.xml'));
    const text = decodeSitemapBody(bytes, { maxBytes: 10 * 1024 * 1024 });
    const { urls, sitemaps } = parseSitemap(text);
    const locs = [...text.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]);
    expect(sitemaps).toEqual([]);
    expect(urls.length).toBeGreaterThan(100);
    expect(urls.map((u) => u.loc)).toEqual([...new Set(locs)]);
    expect(urls.every((u) => u.lastmod === undefined || /^\d{4}-\d\d-\d\dT/.test(u.lastmod))).toBe(true);
  });
});
