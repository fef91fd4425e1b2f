import { z } from 'zod';
import { metadataSchema } from './bounded-json.js';
import { documentSchema } from './document.js';
import { requestHeadersSchema } from './request-headers.js';
import { checkScrapeOptions, finalizeScrapeOptions, scrapeOptionsObjectSchema, scrapeOptionsSchema } from './scrape-options.js';
import { checkChangeTrackingRetention, checkCleanContentRetention, clientTagFields, httpUrlSchema } from './scrape-request.js';
import { pathPatternListSchema } from './path-pattern.js';
import { webhookConfigSchema } from './webhook.js';

/** Largest `limit` of a crawl. */
export const MAX_CRAWL_LIMIT = 100_000;
/** Default `limit` of a crawl. */
export const DEFAULT_CRAWL_LIMIT = 10_000;
/** Most URLs one batch scrape request may carry. */
export const MAX_BATCH_URLS = 10_000;
/** Longest crawl `delay`, seconds. */
export const MAX_CRAWL_DELAY_SEC = 3_600;


/** `sitemap` option of crawl and map: use it with link discovery, ignore it, or use only it. */
export const sitemapModeSchema = z.enum(['include', 'skip', 'only']);

/** The fields of a crawl request before {@link normalizeCrawlFields} (monitor crawl targets reuse them). */
export const crawlRequestObjectSchema = z.strictObject({
    /** Seed URL. */
    url: httpUrlSchema,
    /** Natural-language description of what to crawl (needs the LLM layer). */
    prompt: z.string().min(1).max(10_000).optional(),
    /** Regular expressions (RE2 syntax); only URLs whose path (or full URL) matches one are scraped. */
    includePaths: pathPatternListSchema.default([]),
    /** Regular expressions (RE2 syntax); URLs whose path (or full URL) matches one are skipped. */
    excludePaths: pathPatternListSchema.default([]),
    /** Match include/exclude patterns against the full URL instead of the path. Default false. */
    regexOnFullURL: z.boolean().default(false),
    /** Discovery hops from the seed (the seed and sitemap URLs are depth 0). */
    maxDiscoveryDepth: z.number().int().min(0).max(1_000).optional(),
    /** Most pages to scrape. Default 10000. */
    limit: z.number().int().min(1).max(MAX_CRAWL_LIMIT).default(DEFAULT_CRAWL_LIMIT),
    /** Follow links outside the seed's path (siblings, parents). Default false. */
    crawlEntireDomain: z.boolean().optional().meta({ default: false }),
    /** Follow links to other sites. Default false. */
    allowExternalLinks: z.boolean().default(false),
    /** Follow links to subdomains of the seed's domain. Default false. */
    allowSubdomains: z.boolean().default(false),
    /** Ignore robots.txt rules and Crawl-delay. Default false. */
    ignoreRobotsTxt: z.boolean().default(false),
    /** User agent whose robots.txt group applies; default the crawler's own token. */
    robotsUserAgent: z.string().min(1).max(256).optional(),
    /** Sitemap use: include (default), skip, only. */
    sitemap: sitemapModeSchema.optional().meta({ default: 'include' }),
    /** Treat www/non-www, http/https, trailing slashes and index pages as one page. Default true. */
    deduplicateSimilarURLs: z.boolean().default(true),
    /** Drop query strings (URLs differing only by query are one page). Default false. */
    ignoreQueryParameters: z.boolean().default(false),
    /** Seconds between two page starts of this crawl. */
    delay: z.number().min(0).max(MAX_CRAWL_DELAY_SEC).optional(),
    /** Most pages of this crawl in flight at once (the team's concurrency still applies). */
    maxConcurrency: z.number().int().min(1).max(1_000).optional(),
    /** Options of every page's scrape. */
    scrapeOptions: scrapeOptionsSchema.default(() => scrapeOptionsSchema.parse({})),
    /** Where to send crawl events. */
    webhook: webhookConfigSchema.optional(),
    /** Zero data retention for the whole crawl. Default false. */
    zeroDataRetention: z.boolean().default(false),
    /** v1 name of `maxDiscoveryDepth`. */
    maxDepth: z.number().int().min(0).max(1_000).optional(),
    /** v1 name of `crawlEntireDomain`. */
    allowBackwardCrawling: z.boolean().optional(),
    /** v1: `true` means `sitemap: skip`. */
    ignoreSitemap: z.boolean().optional(),
    ...clientTagFields,
});

/** The crawl fields that have v1 names, as {@link normalizeCrawlFields} reads them. */
interface CrawlNameFields {
  maxDepth?: number | undefined;
  allowBackwardCrawling?: boolean | undefined;
  ignoreSitemap?: boolean | undefined;
  crawlEntireDomain?: boolean | undefined;
  sitemap?: z.output<typeof sitemapModeSchema> | undefined;
  maxDiscoveryDepth?: number | undefined;
}

/**
 * Maps the v1 names of crawl options to v2 (a v2 name given as well wins) and applies the defaults of
 * `crawlEntireDomain` and `sitemap`. Shared by crawl requests and monitor crawl targets.
 */
export function normalizeCrawlFields<T extends CrawlNameFields>(fields: T) {
  const { maxDepth, allowBackwardCrawling, ignoreSitemap, crawlEntireDomain, sitemap, maxDiscoveryDepth, ...body } = fields;
  const depth = maxDiscoveryDepth ?? maxDepth;
  return {
    ...body,
    ...(depth !== undefined ? { maxDiscoveryDepth: depth } : {}),
    crawlEntireDomain: crawlEntireDomain ?? allowBackwardCrawling ?? false,
    sitemap: sitemap ?? (ignoreSitemap === true ? ('skip' as const) : ('include' as const)),
  };
}

/**
 * `POST /v2/crawl` body. The v1 names are accepted and mapped as the spec's v1 -> v2 table says:
 * `maxDepth` -> `maxDiscoveryDepth`, `allowBackwardCrawling` -> `crawlEntireDomain`,
 * `ignoreSitemap` -> `sitemap: skip`; a v2 name given as well wins.
 */
export const crawlRequestSchema = crawlRequestObjectSchema
  .superRefine((body, ctx) => {
    checkCleanContentRetention({ ...body.scrapeOptions, zeroDataRetention: body.zeroDataRetention }, ctx, ['scrapeOptions']);
    checkChangeTrackingRetention({ ...body.scrapeOptions, zeroDataRetention: body.zeroDataRetention }, ctx, ['scrapeOptions']);
    // A crawl reads robots.txt, sitemaps and pages to discover links: it cannot run from the cache alone.
    for (const option of ['lockdown', 'minAge'] as const) {
      if (body.scrapeOptions[option] !== undefined && body.scrapeOptions[option] !== false) {
        ctx.addIssue({
          code: 'custom',
          path: ['scrapeOptions', option],
          message: `${option} is cache-only, but a crawl must contact the site to discover pages; use a batch scrape of known URLs instead`,
        });
      }
    }
  })
  .transform(normalizeCrawlFields)
  .meta({ id: 'CrawlRequest' });

export type CrawlRequestInput = z.input<typeof crawlRequestSchema>;
export type CrawlRequest = z.output<typeof crawlRequestSchema>;

/**
 * `POST /v2/batch/scrape` body: scrape options at the top level plus `urls`. URLs are checked one by
 * one by the service (`ignoreInvalidURLs`), so here they are only strings.
 */
export const batchScrapeRequestSchema = scrapeOptionsObjectSchema
  .extend({
    urls: z.array(z.string().max(8_192)).min(1).max(MAX_BATCH_URLS),
    webhook: webhookConfigSchema.optional(),
    maxConcurrency: z.number().int().min(1).max(1_000).optional(),
    /** Drop invalid URLs (listed in `invalidURLs`) instead of failing the request. Default true. */
    ignoreInvalidURLs: z.boolean().default(true),
    /** Add the URLs to this existing batch instead of starting one. */
    appendToId: z.uuid().optional(),
    zeroDataRetention: z.boolean().default(false),
    ...clientTagFields,
  })
  .superRefine((body, ctx) => {
    checkScrapeOptions(body, ctx);
    checkCleanContentRetention(body, ctx);
    checkChangeTrackingRetention(body, ctx);
  })
  .transform((body) => {
    const finalized = finalizeScrapeOptions(body);
    // Lockdown runs in zero-data-retention mode, as for a single scrape (no URL logged, short retention).
    const zeroDataRetention = body.zeroDataRetention || body.lockdown;
    return { ...finalized, zeroDataRetention, storeInCache: zeroDataRetention ? false : finalized.storeInCache };
  })
  .meta({ id: 'BatchScrapeRequest' });

export type BatchScrapeRequest = z.output<typeof batchScrapeRequestSchema>;

/** `POST /v2/map` body. */
export const mapRequestSchema = z
  .strictObject({
    url: httpUrlSchema,
    /** Rank the links for this query. */
    search: z.string().max(1_000).optional(),
    sitemap: sitemapModeSchema.default('include'),
    /** Include links to subdomains of the site. Default true. */
    includeSubdomains: z.boolean().default(true),
    /** URLs differing only by query are one link. Default true. */
    ignoreQueryParameters: z.boolean().default(true),
    /** Most links returned. Default 5000, max 100000. */
    limit: z.number().int().min(1).max(100_000).default(5_000),
    /** Deadline of the whole map, ms: any positive number (the server's default when absent). */
    timeout: z.number().positive().optional(),
    location: scrapeOptionsObjectSchema.shape.location,
    headers: requestHeadersSchema.optional(),
    threatProtection: scrapeOptionsObjectSchema.shape.threatProtection,
    auditMetadata: metadataSchema.optional(),
    /** SDK option, accepted and ignored (warning): there is no separate URL index here. */
    useIndex: z.boolean().optional(),
    /** SDK option, accepted and ignored (warning): map results are not cached here. */
    ignoreCache: z.boolean().optional(),
    ...clientTagFields,
  })
  .meta({ id: 'MapRequest' });

export type MapRequestInput = z.input<typeof mapRequestSchema>;
export type MapRequest = z.output<typeof mapRequestSchema>;

/** Query of `GET /v2/crawl/:id` and `GET /v2/batch/scrape/:id`. */
export const crawlStatusQuerySchema = z.object({
  skip: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(100).optional(),
});

/**
 * The crawl options a natural-language `prompt` may derive: the fields of the spec's params-preview
 * table without `url`, each optional, with the bounds of the crawl request. Also what a worker's
 * params job answers (checked again at the gateway: it crossed the queue).
 */
export const crawlPromptOptionsSchema = z
  .strictObject({
    includePaths: pathPatternListSchema.optional(),
    excludePaths: pathPatternListSchema.optional(),
    maxDepth: z.number().int().min(0).max(1_000).optional(),
    maxDiscoveryDepth: z.number().int().min(0).max(1_000).optional(),
    crawlEntireDomain: z.boolean().optional(),
    allowExternalLinks: z.boolean().optional(),
    allowSubdomains: z.boolean().optional(),
    sitemap: sitemapModeSchema.optional(),
    ignoreQueryParameters: z.boolean().optional(),
    deduplicateSimilarURLs: z.boolean().optional(),
    ignoreRobotsTxt: z.boolean().optional(),
    robotsUserAgent: z.string().min(1).max(256).optional(),
    delay: z.number().min(0).max(MAX_CRAWL_DELAY_SEC).optional(),
    limit: z.number().int().min(1).max(MAX_CRAWL_LIMIT).optional(),
  })
  .meta({ id: 'CrawlPromptOptions' });

export type CrawlPromptOptions = z.output<typeof crawlPromptOptionsSchema>;

/** Options with a v1 name for the same thing: a user who set one of a group set the others too. */
const PROMPT_OPTION_GROUPS: ReadonlyArray<readonly string[]> = [
  ['maxDiscoveryDepth', 'maxDepth'],
  ['crawlEntireDomain', 'allowBackwardCrawling'],
  ['sitemap', 'ignoreSitemap'],
];

/**
 * The body of a crawl with `prompt` after the derived options are filled in: only options the user
 * did not set (a key absent from the raw body, v1 aliases counted) are taken from `derived`; the body
 * itself is not changed. The result is a new request input, to be validated with
 * {@link crawlRequestSchema} again. With `regexOnFullURL: true` the derived path patterns would be
 * matched against whole URLs: they are left out, with a warning.
 */
export function applyPromptOptions(body: Readonly<Record<string, unknown>>, derived: CrawlPromptOptions): { input: Record<string, unknown>; warnings: string[] } {
  const userSet = (key: string) => {
    const group = PROMPT_OPTION_GROUPS.find((g) => g.includes(key)) ?? [key];
    return group.some((k) => body[k] !== undefined && body[k] !== null);
  };
  const fill: Record<string, unknown> = {};
  const warnings: string[] = [];
  for (const [key, value] of Object.entries(derived)) {
    if (value === undefined || userSet(key)) continue;
    if ((key === 'includePaths' || key === 'excludePaths') && body.regexOnFullURL === true) {
      warnings.push(`The derived ${key} were not applied: they match URL paths, and regexOnFullURL is true`);
      continue;
    }
    fill[key] = value;
  }
  return { input: { ...body, ...fill }, warnings };
}

/** `POST /v2/crawl/params-preview` body. */
export const crawlParamsPreviewRequestSchema = z
  .strictObject({
    /** The site the crawl would start from (it is mapped, up to about 100 URLs, so the model sees its real paths). */
    url: httpUrlSchema,
    /** Natural-language description of what to crawl. */
    prompt: z.string().trim().min(1).max(10_000),
    ...clientTagFields,
  })
  .meta({ id: 'CrawlParamsPreviewRequest' });

export type CrawlParamsPreviewRequest = z.output<typeof crawlParamsPreviewRequestSchema>;

/** `POST /v2/crawl/params-preview` answer: the options a crawl with this prompt would get; `warning` names dropped ones. */
export const crawlParamsPreviewResponseSchema = z
  .strictObject({
    success: z.literal(true),
    data: crawlPromptOptionsSchema.extend({ url: z.string() }),
    warning: z.string().optional(),
  })
  .meta({ id: 'CrawlParamsPreviewResponse' });

/** `POST /v2/crawl` answer; `promptGeneratedOptions` (and `warning` for dropped ones) when `prompt` was given. */
export const crawlStartResponseSchema = z
  .strictObject({
    success: z.literal(true), id: z.uuid(), url: z.string(),
    promptGeneratedOptions: crawlPromptOptionsSchema.optional(),
    warning: z.string().optional(),
  })
  .meta({ id: 'CrawlStartResponse' });

/** `POST /v2/batch/scrape` answer. */
export const batchStartResponseSchema = z
  .strictObject({ success: z.literal(true), id: z.uuid(), url: z.string(), invalidURLs: z.array(z.string()).optional(), warning: z.string().optional() })
  .meta({ id: 'BatchScrapeStartResponse' });

/** `GET /v2/crawl/:id` and `GET /v2/batch/scrape/:id` answer; `next` only when more documents are stored now. */
export const crawlStatusResponseSchema = z
  .strictObject({
    success: z.literal(true),
    status: z.enum(['scraping', 'completed', 'failed', 'cancelled']),
    completed: z.number().int().min(0),
    total: z.number().int().min(0),
    creditsUsed: z.number().min(0),
    expiresAt: z.string(),
    next: z.string().optional(),
    data: z.array(documentSchema),
    createdAt: z.string(),
    completedAt: z.string().optional(),
    /** Seconds from creation to the end (with the end only). */
    duration: z.number().optional(),
    error: z.string().optional(),
  })
  .meta({ id: 'CrawlStatusResponse' });

/** `GET /v2/crawl/:id/errors` answer. */
export const crawlErrorsResponseSchema = z
  .strictObject({
    errors: z.array(z.strictObject({ id: z.string(), timestamp: z.string(), url: z.string(), code: z.string(), error: z.string() })),
    robotsBlocked: z.array(z.string()),
  })
  .meta({ id: 'CrawlErrorsResponse' });

/** `DELETE /v2/crawl/:id` answer. */
export const cancelResponseSchema = z.strictObject({ status: z.literal('cancelled') }).meta({ id: 'CancelResponse' });

/** `GET /v2/crawl/active` answer (the v1 route gives scrape options v1 names). */
export const activeCrawlsResponseSchema = z
  .strictObject({
    success: z.literal(true),
    crawls: z.array(z.strictObject({
      id: z.uuid(), teamId: z.string(), url: z.string(),
      /** Start of the crawl, ISO 8601 with milliseconds. */
      created_at: z.string(),
      options: z.record(z.string(), z.unknown()),
    })),
  })
  .meta({ id: 'ActiveCrawlsResponse' });

/** `POST /v2/map` answer. */
export const mapResponseSchema = z
  .strictObject({
    success: z.literal(true),
    id: z.uuid().optional(),
    links: z.array(z.strictObject({ url: z.string(), title: z.string().optional(), description: z.string().optional() })),
    /** Set when the map timed out with some links found, or a deep path found at most one; also names options accepted and ignored. */
    warning: z.string().optional(),
  })
  .meta({ id: 'MapResponse' });
