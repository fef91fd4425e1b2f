import { describe, expect, it } from '@jest/globals';
import { applyPromptOptions, crawlParamsPreviewRequestSchema, crawlPromptOptionsSchema, crawlRequestSchema } from './crawl.js';

const url = 'https://site.test/';

describe('applyPromptOptions', () => {
  it('fills only options absent from the raw body; the body is not changed', () => {
    const body = Object.freeze({ url, prompt: 'blog only', limit: 5, includePaths: [] as string[] });
    const { input, warnings } = applyPromptOptions(body, { includePaths: ['^/blog/'], limit: 50, sitemap: 'skip', allowSubdomains: true });
    expect(input).toEqual({ url, prompt: 'blog only', limit: 5, includePaths: [], sitemap: 'skip', allowSubdomains: true });
    expect(warnings).toEqual([]);
    expect(body).toEqual({ url, prompt: 'blog only', limit: 5, includePaths: [] });
    const request = crawlRequestSchema.parse(input);
    expect(request).toMatchObject({ limit: 5, includePaths: [], sitemap: 'skip', allowSubdomains: true });
  });

  it('counts a v1 alias as set: maxDepth, allowBackwardCrawling, ignoreSitemap', () => {
    const { input } = applyPromptOptions({ url, maxDepth: 1, allowBackwardCrawling: false, ignoreSitemap: true }, {
      maxDiscoveryDepth: 4, maxDepth: 5, crawlEntireDomain: true, sitemap: 'only',
    });
    const request = crawlRequestSchema.parse(input);
    expect(request).toMatchObject({ maxDiscoveryDepth: 1, crawlEntireDomain: false, sitemap: 'skip' });
  });

  it('a derived maxDepth (older name) reaches maxDiscoveryDepth', () => {
    expect(crawlRequestSchema.parse(applyPromptOptions({ url }, { maxDepth: 2 }).input).maxDiscoveryDepth).toBe(2);
  });

  it('leaves derived path patterns out when the user matches whole URLs', () => {
    const { input, warnings } = applyPromptOptions({ url, regexOnFullURL: true }, { includePaths: ['^/blog/'], limit: 3 });
    expect(input).toEqual({ url, regexOnFullURL: true, limit: 3 });
    expect(warnings).toHaveLength(1);
  });
});

describe('crawl prompt schemas', () => {
  it('the options schema refuses what the crawl schema refuses', () => {
    expect(crawlPromptOptionsSchema.safeParse({ includePaths: ['(?=x)'] }).success).toBe(false);
    expect(crawlPromptOptionsSchema.safeParse({ limit: 0 }).success).toBe(false);
    expect(crawlPromptOptionsSchema.safeParse({ bogus: 1 }).success).toBe(false);
    expect(crawlPromptOptionsSchema.parse({ includePaths: ['^/blog/'], sitemap: 'only', delay: 0.5 })).toEqual({ includePaths: ['^/blog/'], sitemap: 'only', delay: 0.5 });
  });

  it('params-preview needs a url and a non-blank prompt', () => {
    expect(crawlParamsPreviewRequestSchema.safeParse({ url }).success).toBe(false);
    expect(crawlParamsPreviewRequestSchema.safeParse({ url, prompt: '  ' }).success).toBe(false);
    expect(crawlParamsPreviewRequestSchema.safeParse({ url: 'not a url', prompt: 'x' }).success).toBe(false);
    expect(crawlParamsPreviewRequestSchema.parse({ url, prompt: ' blog ' })).toEqual({ url, prompt: 'blog' });
    // The official SDK tags its requests.
    expect(crawlParamsPreviewRequestSchema.parse({ url, prompt: 'x', origin: 'js-sdk@4.42.0' }).origin).toBe('js-sdk@4.42.0');
    expect(crawlParamsPreviewRequestSchema.safeParse({ url, prompt: 'x', bogus: 1 }).success).toBe(false);
  });
});
