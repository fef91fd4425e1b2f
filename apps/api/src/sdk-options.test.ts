import { describe, expect, it } from '@jest/globals';
import type {
  BatchScrapeOptions, CrawlOptions, FirecrawlClient, MapOptions, ParseOptions, ScrapeOptions,
} from '@mendable/firecrawl-js';
import {
  batchScrapeRequestSchema, createMonitorRequestSchema, crawlRequestSchema, extractRequestSchema, mapRequestSchema, parseRequestSchema, scrapeRequestSchema,
} from '@trawl/api-schema';
import { parseBodyOrThrow } from './middleware/validate.js';

/**
 * Every option the 4.x SDK's types let a caller send, each one set (`Required<...>`: a new SDK option
 * breaks the type-check of this file until it is listed here). The SDK's payload builders are not
 * exported, but they copy these options into the body as they are (`Object.assign(payload, options)`),
 * so these objects are the bodies it sends. None may be refused.
 */
const scrapeOptions = {
  formats: [
    'markdown', 'html', 'rawHtml', 'links', 'images', 'summary',
    { type: 'json', prompt: 'p', checkPromptInjection: true },
    { type: 'attributes', selectors: [{ selector: 'a', attribute: 'href' }] },
  ],
  headers: { 'x-test': '1' },
  includeTags: ['main'],
  excludeTags: ['nav'],
  onlyMainContent: true,
  timeout: 30_000,
  waitFor: 0,
  mobile: false,
  parsers: ['image', { type: 'pdf', mode: 'fast', maxPages: 3, pages: true, pageMarkdown: true, blocks: true, pageMarkers: true }],
  actions: [],
  location: { country: 'US', languages: ['en-US'] },
  skipTlsVerification: true,
  removeBase64Images: true,
  fastMode: true,
  useMock: 'mock-1',
  blockAds: true,
  proxy: 'stealth',
  maxAge: 0,
  minAge: 1,
  storeInCache: true,
  lockdown: false,
  redactPII: { mode: 'fast', entities: ['EMAIL'], replaceStyle: 'mask' },
  threatProtection: { mode: 'normal', riskScoreThreshold: 50, blacklist: [], whitelist: [], blockedTlds: ['zip'], failurePolicy: 'open' },
  auditMetadata: { username: 'u' },
  profile: { name: 'p', saveChanges: false },
  integration: 'n8n',
  origin: 'js-sdk@4.42.0',
  domainTools: true,
  toolDetail: 'compact',
} satisfies Required<ScrapeOptions>;

const { toolDetail: _toolDetail, ...nestedScrapeOptions } = scrapeOptions;

const crawlOptions = {
  prompt: 'docs only',
  excludePaths: ['/x'],
  includePaths: ['/docs'],
  maxDiscoveryDepth: 2,
  sitemap: 'include',
  ignoreQueryParameters: true,
  deduplicateSimilarURLs: true,
  limit: 10,
  crawlEntireDomain: false,
  allowExternalLinks: false,
  allowSubdomains: false,
  ignoreRobotsTxt: false,
  robotsUserAgent: 'bot',
  delay: 1,
  maxConcurrency: 2,
  webhook: { url: 'https://hooks.example.com/x', headers: {}, metadata: {}, events: ['completed'] },
  scrapeOptions: { ...nestedScrapeOptions, minAge: undefined },
  regexOnFullURL: false,
  zeroDataRetention: false,
  integration: 'n8n',
  origin: 'js-sdk@4.42.0',
} satisfies Required<CrawlOptions>;

/** `idempotencyKey` goes in a header; `options` are spread into the body (see the SDK's batch.ts). */
const batchOptions = {
  options: nestedScrapeOptions,
  webhook: 'https://hooks.example.com/x',
  appendToId: '00000000-0000-4000-8000-000000000000',
  ignoreInvalidURLs: true,
  maxConcurrency: 2,
  zeroDataRetention: false,
  idempotencyKey: 'k',
  integration: 'n8n',
  origin: 'js-sdk@4.42.0',
} satisfies Required<BatchScrapeOptions>;

const mapOptions = {
  search: 'docs',
  sitemap: 'include',
  includeSubdomains: true,
  ignoreQueryParameters: true,
  limit: 10,
  timeout: 10_000,
  integration: 'n8n',
  origin: 'js-sdk@4.42.0',
  location: { country: 'DE' },
  threatProtection: { mode: 'off' },
  auditMetadata: { username: 'u' },
} satisfies Required<MapOptions>;

const parseOptions = {
  formats: ['markdown', { type: 'attributes', selectors: [{ selector: 'a', attribute: 'href' }] }],
  headers: {},
  includeTags: [],
  excludeTags: [],
  onlyMainContent: true,
  timeout: 30_000,
  parsers: [{ type: 'pdf', pages: true }],
  skipTlsVerification: true,
  removeBase64Images: true,
  fastMode: true,
  useMock: 'm',
  blockAds: true,
  proxy: 'auto',
  redactPII: false,
  auditMetadata: { username: 'u' },
  profile: { name: 'p' },
  integration: 'n8n',
  origin: 'js-sdk@4.42.0',
  domainTools: false,
} satisfies Required<Omit<ParseOptions, 'profile'>> & Pick<ParseOptions, 'profile'>;

type ExtractArgs = Parameters<FirecrawlClient['startExtract']>[0];
const extractArgs = {
  urls: ['https://example.com/'],
  prompt: 'p',
  schema: { type: 'object' },
  systemPrompt: 's',
  allowExternalLinks: false,
  enableWebSearch: false,
  showSources: false,
  scrapeOptions: { ...nestedScrapeOptions, minAge: undefined },
  ignoreInvalidURLs: true,
  integration: 'n8n',
  origin: 'js-sdk@4.42.0',
  webhook: 'https://hooks.example.com/x',
  threatProtection: { mode: 'off' },
} satisfies Omit<Required<ExtractArgs>, 'agent'>;

function issuesOf(fn: () => unknown): unknown {
  try {
    fn();
    return [];
  } catch (err) {
    return (err as { details?: { issues?: unknown } }).details?.issues ?? err;
  }
}

describe('options the 4.x SDK sends', () => {
  it('refuses none on scrape, crawl, batch, map, parse and extract', () => {
    const { idempotencyKey: _key, options, ...batchRest } = batchOptions;
    const parse = { ...parseOptions } as Record<string, unknown>;
    delete parse.profile; // parse takes no browser profile: the SDK type allows it, the server says why it refuses it
    expect({
      scrape: issuesOf(() => parseBodyOrThrow(scrapeRequestSchema, 'scrape', { url: 'https://example.com/', ...scrapeOptions })),
      crawl: issuesOf(() => parseBodyOrThrow(crawlRequestSchema, 'crawl', { url: 'https://example.com/', ...crawlOptions })),
      batch: issuesOf(() => parseBodyOrThrow(batchScrapeRequestSchema, 'batch', { urls: ['https://example.com/'], ...options, ...batchRest })),
      map: issuesOf(() => parseBodyOrThrow(mapRequestSchema, 'map', { url: 'https://example.com/', ...mapOptions })),
      parse: issuesOf(() => parseBodyOrThrow(parseRequestSchema, 'parse', parse)),
      extract: issuesOf(() => parseBodyOrThrow(extractRequestSchema, 'extract', extractArgs)),
    }).toEqual({ scrape: [], crawl: [], batch: [], map: [], parse: [], extract: [] });
  });

  it('accepts __experimental_* keys, map useIndex/ignoreCache, and names every ignored option in the warning', () => {
    const scrape = parseBodyOrThrow(scrapeRequestSchema, 'scrape', {
      url: 'https://example.com/', fastMode: true, useMock: 'x', __experimental_cache: true,
      parsers: [{ type: 'pdf', blocks: true }],
    });
    expect(scrape.warning).toContain('fastMode');
    expect(scrape.warning).toContain('useMock');
    expect(scrape.warning).toContain('__experimental_cache');
    expect(scrape.warning).toContain('parsers[0].blocks');
    expect(scrape.data).not.toHaveProperty('__experimental_cache');

    const map = parseBodyOrThrow(mapRequestSchema, 'map', { url: 'https://example.com/', useIndex: false, ignoreCache: true, __experimental_x: 1 });
    expect(map.warning).toMatch(/useIndex.*ignoreCache|ignoreCache.*useIndex/);
    expect(map.warning).toContain('__experimental_x');

    const crawl = parseBodyOrThrow(crawlRequestSchema, 'crawl', {
      url: 'https://example.com/', __experimental_a: 1, scrapeOptions: { fastMode: false, __experimental_b: 2 },
    });
    expect(crawl.warning).toContain('__experimental_a');
    expect(crawl.warning).toContain('scrapeOptions.__experimental_b');
    expect(crawl.warning).toContain('scrapeOptions.fastMode');
  });

  it('gives no warning when nothing was ignored, and still refuses other unknown keys', () => {
    expect(parseBodyOrThrow(scrapeRequestSchema, 'scrape', { url: 'https://example.com/', formats: ['markdown'] }).warning).toBeUndefined();
    expect(issuesOf(() => parseBodyOrThrow(scrapeRequestSchema, 'scrape', { url: 'https://example.com/', experimental_x: 1 })))
      .toEqual([expect.objectContaining({ code: 'unrecognized_keys', path: 'experimental_x' })]);
  });

  it('reads proxy "stealth" as enhanced wherever scrape options are parsed', () => {
    expect(parseBodyOrThrow(scrapeRequestSchema, 'scrape', { url: 'https://example.com/', proxy: 'stealth' }).data.proxy).toBe('enhanced');
    expect(parseBodyOrThrow(batchScrapeRequestSchema, 'batch', { urls: ['https://example.com/'], proxy: 'stealth' }).data.proxy).toBe('enhanced');
    expect(parseBodyOrThrow(crawlRequestSchema, 'crawl', { url: 'https://example.com/', scrapeOptions: { proxy: 'stealth' } }).data.scrapeOptions.proxy).toBe('enhanced');
    const monitor = createMonitorRequestSchema.parse({
      name: 'm', schedule: { cron: '*/30 * * * *' }, targets: [{ type: 'scrape', urls: ['https://example.com/'], scrapeOptions: { proxy: 'stealth' } }],
    });
    expect(monitor.targets[0]).toMatchObject({ scrapeOptions: { proxy: 'enhanced' } });
  });
});
