import { describe, expect, it } from '@jest/globals';
import { scrapeRequestSchema } from '../scrape-request.js';
import { documentSchema } from '../document.js';
import { v1Document, v1MapLinks, parseUnifiedDiff, type V1Diff } from './v1-document.js';
import { v1RecordScrapeOptions } from './v1-record-options.js';
import { v1BatchScrapeRequestSchema, v1ExtractRequestSchema, v1MapRequestSchema, v1ScrapeRequestSchema } from './v1-requests.js';

const URL_ = 'https://example.com/page';

describe('v1 scrape request -> v2', () => {
  it('maps v1 format strings and their option objects to v2 format objects', () => {
    const r = v1ScrapeRequestSchema.parse({
      url: URL_,
      formats: ['content', 'html', 'screenshot', 'json', 'changeTracking'],
      jsonOptions: { prompt: 'the price', systemPrompt: 'You read shops.', schema: { type: 'object' } },
      changeTrackingOptions: { modes: ['git-diff'], tag: 'daily' },
      origin: 'js-sdk@1.29.3',
    });
    expect(r.formats).toEqual([
      { type: 'markdown' },
      { type: 'html' },
      { type: 'screenshot', fullPage: false },
      { type: 'json', prompt: 'You read shops.\n\nthe price', schema: { type: 'object' } },
      { type: 'changeTracking', modes: ['git-diff'], tag: 'daily' },
    ]);
    expect(r.origin).toBe('js-sdk@1.29.3');
    // "content" is markdown again: the v2 schema rejects the duplicate, as for any v2 request.
    const dup = v1ScrapeRequestSchema.safeParse({ url: URL_, formats: ['markdown', 'content'] });
    expect(dup.success).toBe(false);
    expect(JSON.stringify(dup.error?.issues)).toContain('Duplicate format');
  });

  it('translates each v1 spelling to its v2 option', () => {
    const r = v1ScrapeRequestSchema.parse({
      url: URL_,
      formats: ['markdown', 'screenshot@fullPage', 'extract'],
      extract: { prompt: 'the price', systemPrompt: 'You read shops.', schema: { type: 'object' } },
      parsePDF: false,
      proxy: 'stealth',
      location: { country: 'de', languages: ['de-DE'] },
    });
    expect(r.formats).toEqual([
      { type: 'markdown' },
      { type: 'screenshot', fullPage: true },
      { type: 'json', prompt: 'You read shops.\n\nthe price', schema: { type: 'object' } },
    ]);
    expect(r.parsers).toEqual([]);
    expect(r.proxy).toBe('enhanced');
    expect(r.location).toEqual({ country: 'DE', languages: ['de-DE'] });
  });

  it('applies the v1 defaults (maxAge 0) where v2 differs, and v2 defaults elsewhere', () => {
    const r = v1ScrapeRequestSchema.parse({ url: URL_ });
    const v2 = scrapeRequestSchema.parse({ url: URL_ });
    expect(r.maxAge).toBe(0);
    expect(v2.maxAge).toBeGreaterThan(0);
    expect({ ...r, maxAge: v2.maxAge }).toEqual(v2);
    expect(r.blockAds).toBe(true);
    expect(r.removeBase64Images).toBe(true);
    expect(v1ScrapeRequestSchema.parse({ url: URL_, maxAge: 5000 }).maxAge).toBe(5000);
  });

  it('keeps every v2 rule (checked once, after the translation)', () => {
    const half = v1ScrapeRequestSchema.safeParse({ url: URL_, waitFor: 20000, timeout: 30000 });
    expect(half.error?.issues.map((i) => i.message).join()).toContain('waitFor must not exceed half of timeout');
    const badType = v1ScrapeRequestSchema.safeParse({ url: URL_, timeout: 'soon' });
    expect(badType.error?.issues.map((i) => i.path.join('.'))).toEqual(['timeout']);
    expect(v1ScrapeRequestSchema.safeParse({ url: 'ftp://example.com' }).success).toBe(false);
    expect(v1ScrapeRequestSchema.safeParse({ url: URL_, changeTrackingOptions: {}, formats: ['markdown', 'changeTracking'], zeroDataRetention: true }).success).toBe(false);
  });

  it('rejects what v1 rejected: unknown keys and formats, a format without its options and the reverse', () => {
    const unknownKey = v1ScrapeRequestSchema.safeParse({ url: URL_, bogus: 1 });
    expect(unknownKey.error?.issues[0]?.code).toBe('unrecognized_keys');
    expect(v1ScrapeRequestSchema.safeParse({ url: URL_, formats: ['summary'] }).error?.issues[0]?.message).toContain('Unknown v1 format "summary"');
    expect(v1ScrapeRequestSchema.safeParse({ url: URL_, formats: ['json'] }).error?.issues[0]?.path).toEqual(['jsonOptions']);
    expect(v1ScrapeRequestSchema.safeParse({ url: URL_, formats: ['extract'] }).error?.issues[0]?.path).toEqual(['extract']);
    expect(v1ScrapeRequestSchema.safeParse({ url: URL_, jsonOptions: { prompt: 'x' } }).error?.issues[0]?.path).toEqual(['formats']);
    // v2 names are not v1 options.
    expect(v1ScrapeRequestSchema.safeParse({ url: URL_, parsers: ['pdf'] }).success).toBe(false);
  });
});

describe('other v1 bodies', () => {
  it('batch: v1 options at the top level, SDK-sent undefined fields take the v2 defaults', () => {
    const r = v1BatchScrapeRequestSchema.parse({
      urls: [URL_], formats: ['markdown', 'screenshot'], webhook: undefined, ignoreInvalidURLs: undefined, origin: 'js-sdk@1.29.3',
    });
    expect(r.formats).toEqual([{ type: 'markdown' }, { type: 'screenshot', fullPage: false }]);
    expect(r.ignoreInvalidURLs).toBe(true);
    expect(r.maxAge).toBe(0);
    expect(v1BatchScrapeRequestSchema.safeParse({ urls: [] }).success).toBe(false);
  });

  it('map: sitemapOnly/ignoreSitemap become sitemap, useIndex is accepted', () => {
    expect(v1MapRequestSchema.parse({ url: URL_ }).sitemap).toBe('include');
    expect(v1MapRequestSchema.parse({ url: URL_, ignoreSitemap: true }).sitemap).toBe('skip');
    expect(v1MapRequestSchema.parse({ url: URL_, sitemapOnly: true, ignoreSitemap: true }).sitemap).toBe('only');
    const r = v1MapRequestSchema.parse({ url: URL_, includeSubdomains: false, search: 'docs', limit: 3, useIndex: true });
    expect(r).toMatchObject({ includeSubdomains: false, search: 'docs', limit: 3 });
    expect(v1MapRequestSchema.safeParse({ url: URL_, sitemap: 'only' }).success).toBe(false);
    expect(v1MapRequestSchema.safeParse({ url: URL_, limit: 0 }).success).toBe(false);
  });

  it('extract: v1 scrapeOptions are translated, includeSubdomains is allowExternalLinks', () => {
    const r = v1ExtractRequestSchema.parse({
      urls: [URL_], prompt: 'names', includeSubdomains: true, scrapeOptions: { formats: ['markdown'], proxy: 'stealth' },
    });
    expect(r.allowExternalLinks).toBe(true);
    expect(r.scrapeOptions?.proxy).toBe('enhanced');
    expect(r.scrapeOptions?.maxAge).toBe(0);
    const bad = v1ExtractRequestSchema.safeParse({ urls: [URL_], scrapeOptions: { formats: ['json'] } });
    expect(bad.error?.issues[0]?.path).toEqual(['scrapeOptions', 'jsonOptions']);
    expect(v1ExtractRequestSchema.safeParse({}).success).toBe(false);
  });
});

describe('v1 documents', () => {
  const doc = documentSchema.parse({
    markdown: '# Hi',
    json: { price: 12 },
    screenshot: 'https://trawl.example/blobs/a.png',
    changeTracking: { changeStatus: 'changed', visibility: 'visible', previousScrapeAt: null, diff: '--- a/page\n+++ b/page\n@@ -1,2 +1,2 @@\n same\n-old\n+new\n' },
    metadata: { sourceURL: URL_, statusCode: 200, proxyUsed: 'enhanced', scrapeId: 'x' },
  });

  it('puts the extraction under the requested keys and renames enhanced to stealth', () => {
    const v1 = v1Document(doc, { jsonKeys: ['extract'] });
    expect(v1.extract).toEqual({ price: 12 });
    expect('json' in v1).toBe(false);
    expect(v1.metadata).toMatchObject({ proxyUsed: 'stealth', scrapeId: 'x', statusCode: 200 });
    expect(v1.screenshot).toBe(doc.screenshot);
    const both = v1Document(doc);
    expect(both.json).toEqual({ price: 12 });
    expect(both.extract).toEqual({ price: 12 });
    expect(v1Document({ ...doc, metadata: { ...doc.metadata, proxyUsed: 'basic' } }).metadata).toMatchObject({ proxyUsed: 'basic' });
  });

  it('gives the diff as {text, json} as v1 clients read it', () => {
    const diff = (v1Document(doc).changeTracking as { diff?: V1Diff } | undefined)?.diff;
    expect(diff?.text).toBe(doc.changeTracking?.diff);
    expect(diff?.json).toEqual(parseUnifiedDiff(doc.changeTracking?.diff ?? ''));
    expect(diff?.json.files).toEqual([{
      from: 'page', to: 'page', chunks: [{
        content: '@@ -1,2 +1,2 @@',
        changes: [
          { type: 'normal', normal: true, ln1: 1, ln2: 1, content: ' same' },
          { type: 'del', ln: 2, content: '-old' },
          { type: 'add', ln: 2, content: '+new' },
        ],
      }],
    }]);
  });

  it('map links as v1 strings', () => {
    expect(v1MapLinks([{ url: 'https://a.test/', title: 'A' }, 'https://b.test/', { title: 'no url' }])).toEqual(['https://a.test/', 'https://b.test/']);
  });

  it('v2 options read back in v1 names are the v1 options that produced them', () => {
    const body = { formats: ['markdown', 'screenshot@fullPage', 'json'], jsonOptions: { prompt: 'p', schema: { type: 'object' } }, parsePDF: false };
    const parsed = v1ScrapeRequestSchema.parse({ url: URL_, ...body });
    expect(v1RecordScrapeOptions(parsed)).toMatchObject(body);
  });
});
