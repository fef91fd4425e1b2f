import { z } from 'zod';
import { crawlRequestObjectSchema, crawlRequestSchema, type CrawlRequestInput } from '../crawl.js';
import { clientTagFields } from '../scrape-request.js';
import { v1ScrapeOptionsObjectSchema, v1ScrapeOptionsToV2 } from './v1-scrape-options.js';

/** Default `maxDepth` of a v1 crawl. */
export const V1_DEFAULT_MAX_DEPTH = 10;

const v2 = crawlRequestObjectSchema.shape;

/**
 * `POST /v1/crawl` body (the `CrawlParams` of the 1.x SDK and of the 4.x SDK's `FirecrawlAppV1`).
 * Only the v1 spellings are checked here; the result is a v2 crawl request input, parsed by
 * {@link crawlRequestSchema} (so every v2 rule applies once, with the v2 answer).
 */
const v1CrawlBodySchema = z.strictObject({
  url: v2.url,
  includePaths: v2.includePaths,
  excludePaths: v2.excludePaths,
  regexOnFullURL: v2.regexOnFullURL,
  /**
   * v1 depth limit, default 10. The spec's v1 -> v2 table replaces it with `maxDiscoveryDepth` (link
   * hops from the seed); a `maxDiscoveryDepth` given as well wins.
   */
  maxDepth: z.number().int().min(0).max(1_000).default(V1_DEFAULT_MAX_DEPTH),
  maxDiscoveryDepth: v2.maxDiscoveryDepth,
  limit: v2.limit,
  /** v1 name of `crawlEntireDomain` (which wins when both are given). */
  allowBackwardLinks: z.boolean().optional(),
  crawlEntireDomain: z.boolean().optional(),
  allowExternalLinks: v2.allowExternalLinks,
  allowSubdomains: v2.allowSubdomains,
  ignoreRobotsTxt: v2.ignoreRobotsTxt,
  /** `true` means v2 `sitemap: "skip"`. */
  ignoreSitemap: z.boolean().optional(),
  deduplicateSimilarURLs: v2.deduplicateSimilarURLs,
  ignoreQueryParameters: v2.ignoreQueryParameters,
  delay: v2.delay,
  maxConcurrency: v2.maxConcurrency,
  /** v1 scrape options of every page (v1 defaults: `maxAge` 0). */
  scrapeOptions: v1ScrapeOptionsObjectSchema.optional(),
  webhook: v2.webhook,
  zeroDataRetention: v2.zeroDataRetention,
  ...clientTagFields,
});

export type V1CrawlRequestInput = z.input<typeof v1CrawlBodySchema>;

/** A parsed v1 crawl body as the input of the v2 crawl request. */
export function v1CrawlBodyToV2(body: z.output<typeof v1CrawlBodySchema>): CrawlRequestInput {
  const { maxDepth, maxDiscoveryDepth, allowBackwardLinks, crawlEntireDomain, ignoreSitemap, scrapeOptions, ...rest } = body;
  const entireDomain = crawlEntireDomain ?? allowBackwardLinks;
  return {
    ...rest,
    maxDiscoveryDepth: maxDiscoveryDepth ?? maxDepth,
    ...(entireDomain !== undefined ? { crawlEntireDomain: entireDomain } : {}),
    sitemap: ignoreSitemap === true ? 'skip' : 'include',
    // v1 defaults apply to the pages even when the body has no scrapeOptions (maxAge 0).
    scrapeOptions: v1ScrapeOptionsToV2(scrapeOptions ?? {}),
  };
}

/** `POST /v1/crawl` body, translated: the result is the v2 crawl request the crawl service runs. */
export const v1CrawlRequestSchema = v1CrawlBodySchema.transform(v1CrawlBodyToV2).pipe(crawlRequestSchema);

/** `POST /v1/crawl` answer. */
export const v1CrawlStartResponseSchema = z.strictObject({ success: z.literal(true), id: z.uuid(), url: z.string() });

/**
 * `GET /v1/crawl/:id` answer: the v1 status (no `createdAt`/`completedAt`/`duration`); `next` is an
 * absolute `/v1/crawl/:id?skip=` URL, absent when nothing further is stored.
 */
export const v1CrawlStatusResponseSchema = z.strictObject({
  success: z.literal(true),
  status: z.enum(['scraping', 'completed', 'failed', 'cancelled']),
  completed: z.number().int().min(0),
  total: z.number().int().min(0),
  creditsUsed: z.number().min(0),
  expiresAt: z.string(),
  next: z.string().optional(),
  /** v1 documents. */
  data: z.array(z.record(z.string(), z.unknown())),
  error: z.string().optional(),
});
