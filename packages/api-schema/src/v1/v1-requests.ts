import { z } from 'zod';
import { batchScrapeRequestSchema, mapRequestSchema, type MapRequestInput } from '../crawl.js';
import { extractRequestSchema, type ExtractRequestInput } from '../extract.js';
import { scrapeRequestSchema, type ScrapeRequestInput } from '../scrape-request.js';
import { checkV1ScrapeOptions, v1ScrapeOptionsObjectSchema, v1ScrapeOptionsShape, v1ScrapeOptionsToV2 } from './v1-scrape-options.js';

/**
 * v1 request bodies as schemas that parse to the v2 request: the v1 shape is checked (strict: an
 * unknown key is a 400 naming it), translated, then piped into the v2 schema, whose output is what
 * the routes hand to the v2 services.
 */

/** A field the v2 schema validates after translation; typed as its v2 input. */
function v2Field<T>() {
  return z.custom<T>(() => true).optional();
}

type BatchInput = z.input<typeof batchScrapeRequestSchema>;

/** `POST /v1/scrape` body -> the parsed v2 scrape request. */
export const v1ScrapeRequestSchema = z
  .strictObject({
    ...v1ScrapeOptionsShape,
    url: v2Field<ScrapeRequestInput['url']>(),
    zeroDataRetention: v2Field<ScrapeRequestInput['zeroDataRetention']>(),
    origin: v2Field<ScrapeRequestInput['origin']>(),
    integration: v2Field<ScrapeRequestInput['integration']>(),
  })
  .superRefine((body, ctx) => checkV1ScrapeOptions(body, ctx))
  .transform((body): ScrapeRequestInput => {
    const { url, zeroDataRetention, origin, integration, ...options } = body;
    return { ...v1ScrapeOptionsToV2(options), url, zeroDataRetention, origin, integration };
  })
  .pipe(scrapeRequestSchema);

/** `POST /v1/batch/scrape` body -> the parsed v2 batch request. */
export const v1BatchScrapeRequestSchema = z
  .strictObject({
    ...v1ScrapeOptionsShape,
    urls: v2Field<BatchInput['urls']>(),
    webhook: v2Field<BatchInput['webhook']>(),
    maxConcurrency: v2Field<BatchInput['maxConcurrency']>(),
    ignoreInvalidURLs: v2Field<BatchInput['ignoreInvalidURLs']>(),
    appendToId: v2Field<BatchInput['appendToId']>(),
    zeroDataRetention: v2Field<BatchInput['zeroDataRetention']>(),
    origin: v2Field<BatchInput['origin']>(),
    integration: v2Field<BatchInput['integration']>(),
  })
  .superRefine((body, ctx) => checkV1ScrapeOptions(body, ctx))
  .transform((body): BatchInput => {
    const { urls, webhook, maxConcurrency, ignoreInvalidURLs, appendToId, zeroDataRetention, origin, integration, ...options } = body;
    // The SDK sends `webhook: undefined` and friends as absent keys; only what is set goes on.
    return {
      ...v1ScrapeOptionsToV2(options),
      urls: urls ?? [],
      ...definedOnly({ webhook, maxConcurrency, ignoreInvalidURLs, appendToId, zeroDataRetention, origin, integration }),
    };
  })
  .pipe(batchScrapeRequestSchema);

/**
 * `POST /v1/map` body -> the parsed v2 map request. `sitemapOnly` -> `sitemap: "only"`,
 * `ignoreSitemap` -> `"skip"`, else `"include"`; `useIndex` is accepted and has no effect (no index here).
 */
export const v1MapRequestSchema = z
  .strictObject({
    url: v2Field<MapRequestInput['url']>(),
    search: v2Field<MapRequestInput['search']>(),
    ignoreSitemap: z.boolean().optional(),
    sitemapOnly: z.boolean().optional(),
    includeSubdomains: v2Field<MapRequestInput['includeSubdomains']>(),
    limit: v2Field<MapRequestInput['limit']>(),
    timeout: v2Field<MapRequestInput['timeout']>(),
    useIndex: z.boolean().optional(),
    location: v2Field<MapRequestInput['location']>(),
    headers: v2Field<MapRequestInput['headers']>(),
    auditMetadata: v2Field<MapRequestInput['auditMetadata']>(),
    origin: v2Field<MapRequestInput['origin']>(),
    integration: v2Field<MapRequestInput['integration']>(),
  })
  .transform((body): MapRequestInput => {
    const { ignoreSitemap, sitemapOnly, useIndex: _useIndex, url, ...rest } = body;
    return {
      ...definedOnly(rest),
      url,
      sitemap: sitemapOnly === true ? 'only' : ignoreSitemap === true ? 'skip' : 'include',
    };
  })
  .pipe(mapRequestSchema);

/**
 * `POST /v1/extract` body -> the parsed v2 extract request. `scrapeOptions` are v1 options;
 * `includeSubdomains` is v2's `allowExternalLinks` (a `/*` expansion may reach subdomains).
 */
export const v1ExtractRequestSchema = z
  .strictObject({
    urls: v2Field<ExtractRequestInput['urls']>(),
    prompt: v2Field<ExtractRequestInput['prompt']>(),
    schema: v2Field<ExtractRequestInput['schema']>(),
    systemPrompt: v2Field<ExtractRequestInput['systemPrompt']>(),
    allowExternalLinks: v2Field<ExtractRequestInput['allowExternalLinks']>(),
    includeSubdomains: z.boolean().optional(),
    enableWebSearch: v2Field<ExtractRequestInput['enableWebSearch']>(),
    showSources: v2Field<ExtractRequestInput['showSources']>(),
    ignoreInvalidURLs: v2Field<ExtractRequestInput['ignoreInvalidURLs']>(),
    scrapeOptions: v1ScrapeOptionsObjectSchema.optional(),
    webhook: v2Field<ExtractRequestInput['webhook']>(),
    zeroDataRetention: v2Field<ExtractRequestInput['zeroDataRetention']>(),
    threatProtection: v2Field<ExtractRequestInput['threatProtection']>(),
    origin: v2Field<ExtractRequestInput['origin']>(),
    integration: v2Field<ExtractRequestInput['integration']>(),
  })
  .transform((body): ExtractRequestInput => {
    const { includeSubdomains, scrapeOptions, allowExternalLinks, ...rest } = body;
    const external = allowExternalLinks ?? includeSubdomains;
    return {
      ...definedOnly(rest),
      ...(external !== undefined ? { allowExternalLinks: external } : {}),
      ...(scrapeOptions !== undefined ? { scrapeOptions: v1ScrapeOptionsToV2(scrapeOptions) } : {}),
    };
  })
  .pipe(extractRequestSchema);

/** The object without its undefined members (so v2 defaults apply to them). */
function definedOnly<T extends Record<string, unknown>>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<T>;
}
