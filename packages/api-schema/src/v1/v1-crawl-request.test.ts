import { describe, expect, it } from '@jest/globals';
import { v1CrawlRequestSchema } from './v1-crawl-request.js';

const url = 'https://example.com/docs/';
const parse = (body: Record<string, unknown>) => v1CrawlRequestSchema.parse({ url, ...body });

describe('v1CrawlRequestSchema', () => {
  it('applies the v1 defaults: maxDepth 10 as the discovery depth, sitemap used, same path only, fresh pages', () => {
    const r = parse({});
    expect(r.maxDiscoveryDepth).toBe(10);
    expect(r.sitemap).toBe('include');
    expect(r.crawlEntireDomain).toBe(false);
    expect(r.limit).toBe(10_000);
    expect(r.scrapeOptions.maxAge).toBe(0);
    expect(r).not.toHaveProperty('maxDepth');
    expect(r).not.toHaveProperty('ignoreSitemap');
  });

  it('maps maxDepth, allowBackwardLinks and ignoreSitemap; the v2 names given as well win', () => {
    const r = parse({ maxDepth: 2, allowBackwardLinks: true, ignoreSitemap: true });
    expect(r).toMatchObject({ maxDiscoveryDepth: 2, crawlEntireDomain: true, sitemap: 'skip' });
    expect(parse({ maxDepth: 2, maxDiscoveryDepth: 5 }).maxDiscoveryDepth).toBe(5);
    expect(parse({ allowBackwardLinks: true, crawlEntireDomain: false }).crawlEntireDomain).toBe(false);
    expect(parse({ ignoreSitemap: false }).sitemap).toBe('include');
  });

  it('passes the shared fields through and takes a webhook URL string', () => {
    const r = parse({
      includePaths: ['^/docs/a'], excludePaths: ['x'], regexOnFullURL: true, limit: 7, allowExternalLinks: true, allowSubdomains: true,
      deduplicateSimilarURLs: false, ignoreQueryParameters: true, delay: 0.5, maxConcurrency: 2, zeroDataRetention: true,
      webhook: 'https://hooks.example.com/x', origin: 'js-sdk@1.29.3', integration: 'langchain',
    });
    expect(r).toMatchObject({
      includePaths: ['^/docs/a'], excludePaths: ['x'], regexOnFullURL: true, limit: 7, allowExternalLinks: true, allowSubdomains: true,
      deduplicateSimilarURLs: false, ignoreQueryParameters: true, delay: 0.5, maxConcurrency: 2, zeroDataRetention: true,
      webhook: { url: 'https://hooks.example.com/x' }, origin: 'js-sdk@1.29.3',
    });
  });

  it('translates v1 scrape options (format strings, jsonOptions) to v2', () => {
    const r = parse({ scrapeOptions: { formats: ['markdown', 'links', 'json'], jsonOptions: { prompt: 'p' }, onlyMainContent: false, maxAge: 60_000 } });
    expect(r.scrapeOptions.formats).toEqual([{ type: 'markdown' }, { type: 'links' }, expect.objectContaining({ type: 'json', prompt: 'p' })]);
    expect(r.scrapeOptions.onlyMainContent).toBe(false);
    expect(r.scrapeOptions.maxAge).toBe(60_000);
  });

  it('refuses v2-only and unknown fields, and bad values with the v2 rules', () => {
    for (const body of [{ prompt: 'all docs' }, { sitemap: 'skip' }, { allowBackwardCrawling: true }, { nope: 1 }, { limit: 0 }, { maxDepth: -1 }, { scrapeOptions: { formats: ['summary'] } }]) {
      expect(v1CrawlRequestSchema.safeParse({ url, ...body }).success).toBe(false);
    }
  });
});
