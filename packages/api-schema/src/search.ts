import { z } from 'zod';
import { formatListSchema } from './formats.js';
import { checkScrapeOptions, finalizeScrapeOptions, scrapeOptionsObjectSchema, threatProtectionSchema } from './scrape-options.js';
import { clientTagFields } from './scrape-request.js';
import { HOSTED_ONLY_SEARCH_SOURCES, searchSourceTypeOf } from './ignored-options.js';

/** Most results per source of one search. */
export const MAX_SEARCH_LIMIT = 100;
/** Credits of a search per started block of {@link SEARCH_CREDIT_BLOCK} results of each source. */
export const SEARCH_CREDITS_PER_BLOCK = 2;
export const SEARCH_CREDIT_BLOCK = 10;

/** Search result lists. */
export const searchSourceTypeSchema = z.enum(['web', 'news', 'images']);
export type SearchSourceType = z.output<typeof searchSourceTypeSchema>;

/** A source as a string or an object; web may carry its own `tbs`, `location`, `country`, `lang`. */
export const searchSourceSchema = z.union([
  searchSourceTypeSchema,
  z.strictObject({
    type: z.literal('web'),
    tbs: z.string().max(256).optional(),
    location: z.string().max(256).optional(),
    country: z.string().max(8).optional(),
    lang: z.string().max(16).optional(),
  }),
  z.strictObject({ type: z.literal('news') }),
  z.strictObject({ type: z.literal('images') }),
]);

/** Web result categories (`developer` is hosted-only: refused). */
export const searchCategorySchema = z.union([
  z.enum(['github', 'research', 'pdf']),
  z.strictObject({ type: z.enum(['github', 'research', 'pdf']) }),
]);

/** A hostname filter entry (`example.com`; a URL or `*.` prefix is reduced to its hostname). */
const domainSchema = z.string().min(1).max(253).transform((d) => normalizeDomain(d));

/** Reduces a domain filter entry to a lower-case hostname without `www.` (`https://www.a.com/x` -> `a.com`). */
export function normalizeDomain(d: string): string {
  let s = d.trim().toLowerCase();
  try {
    if (s.includes('://')) s = new URL(s).hostname;
  } catch {
    // not a URL: taken as a hostname
  }
  return s.replace(/^\*\./, '').replace(/^www\./, '').replace(/\/.*$/, '').replace(/\.$/, '');
}

/**
 * Scrape options of the results: the scrape options with `formats` defaulting to `[]` (no scraping).
 */
export const searchScrapeOptionsSchema = scrapeOptionsObjectSchema
  .extend({ formats: formatListSchema.default(() => []) })
  .superRefine(checkScrapeOptions)
  .transform(finalizeScrapeOptions);

/** `sources` without the hosted-only ones (named in the warning); `["web"]` when only those were asked. */
function withoutHostedOnlySources(sources: unknown): unknown {
  if (!Array.isArray(sources)) return sources;
  const kept = sources.filter((entry) => !HOSTED_ONLY_SEARCH_SOURCES.has(searchSourceTypeOf(entry) ?? ''));
  return kept.length === 0 && sources.length > 0 ? ['web'] : kept;
}

/** `POST /v2/search` body. */
export const searchRequestSchema = z
  .strictObject({
    query: z.string().min(1).max(500),
    /** Results per source, 1..100. Default 10. */
    limit: z.number().int().min(1).max(MAX_SEARCH_LIMIT).default(10),
    /** Result lists; default `["web"]`. */
    sources: z.preprocess(
      withoutHostedOnlySources,
      z.array(searchSourceSchema).min(1).max(3).default(() => ['web' as const]),
    ),
    categories: z.array(searchCategorySchema).max(3).optional(),
    /** Hostnames whose results are kept (mutually exclusive with `excludeDomains`). */
    includeDomains: z.array(domainSchema).max(100).optional(),
    /** Hostnames whose results are dropped. */
    excludeDomains: z.array(domainSchema).max(100).optional(),
    /** Time filter: `qdr:h|d|w|m|y`, `cdr:1,cd_min:MM/DD/YYYY,cd_max:MM/DD/YYYY`, `sbd:1`. */
    tbs: z.string().max(256).optional(),
    /** Language. Default `en`. */
    lang: z.string().min(1).max(16).default('en'),
    /** Country, ISO 3166-1 alpha-2. Default `us`. */
    country: z.string().min(1).max(8).default('us'),
    /** Free-text location, e.g. `Berlin,Germany`. */
    location: z.string().max(256).optional(),
    /** Deadline of the whole search (provider and scrapes), ms. Default 60000. */
    timeout: z.number().int().min(1_000).max(300_000).default(60_000),
    /** Drop results whose URL is not a valid http(s) URL rather than failing. Default false. */
    ignoreInvalidURLs: z.boolean().default(false),
    /** Scrape each web/news result with these options (`formats` default `[]`: no scraping). */
    scrapeOptions: searchScrapeOptionsSchema.optional(),
    zeroDataRetention: z.boolean().default(false),
    threatProtection: threatProtectionSchema.optional(),
    /** SDK option, accepted and ignored (warning): highlights are not generated for search results. */
    highlights: z.boolean().optional(),
    /** SDK option, accepted and ignored (warning). */
    domainTools: z.boolean().optional(),
    /** SDK option, accepted and ignored (warning). */
    toolDetail: z.enum(['compact', 'summary', 'full']).optional(),
    ...clientTagFields,
  })
  .superRefine((body, ctx) => {
    if (body.includeDomains?.length && body.excludeDomains?.length) {
      ctx.addIssue({ code: 'custom', path: ['excludeDomains'], message: 'includeDomains and excludeDomains are mutually exclusive' });
    }
    const seen = new Set<string>();
    body.sources.forEach((s, i) => {
      const type = typeof s === 'string' ? s : s.type;
      if (seen.has(type)) ctx.addIssue({ code: 'custom', path: ['sources', i], message: `Duplicate source "${type}"` });
      seen.add(type);
    });
  })
  .meta({ id: 'SearchRequest' });

export type SearchRequestInput = z.input<typeof searchRequestSchema>;
export type SearchRequest = z.output<typeof searchRequestSchema>;

/** A web result; Document fields are merged in when it was scraped. */
export const searchWebResultSchema = z
  .looseObject({
    url: z.string(),
    title: z.string().optional(),
    description: z.string().optional(),
    position: z.number().int().optional(),
    category: z.string().optional(),
  })
  .meta({ id: 'SearchResultWeb' });
export const searchNewsResultSchema = z
  .looseObject({
    title: z.string().optional(),
    url: z.string().optional(),
    snippet: z.string().optional(),
    date: z.string().optional(),
    imageUrl: z.string().optional(),
    position: z.number().int().optional(),
  })
  .meta({ id: 'SearchResultNews' });
export const searchImageResultSchema = z
  .strictObject({
    title: z.string().optional(),
    imageUrl: z.string().optional(),
    imageWidth: z.number().int().optional(),
    imageHeight: z.number().int().optional(),
    url: z.string().optional(),
    position: z.number().int().optional(),
  })
  .meta({ id: 'SearchResultImages' });

/** What a search found, by source (only the asked sources are present). */
export const searchDataSchema = z.strictObject({
  web: z.array(searchWebResultSchema).optional(),
  news: z.array(searchNewsResultSchema).optional(),
  images: z.array(searchImageResultSchema).optional(),
});
export type SearchData = z.output<typeof searchDataSchema>;

/** `POST /v2/search` answer. */
export const searchResponseSchema = z
  .strictObject({
    success: z.literal(true),
    data: searchDataSchema,
    creditsUsed: z.number().int().min(0),
    id: z.string(),
    warning: z.string().optional(),
  })
  .meta({ id: 'SearchResponse' });

/** Credits of a search's result lists: 2 per started 10 results of each source (scrapes are added apart). */
export function searchResultCredits(countsPerSource: readonly number[]): number {
  return countsPerSource.reduce((sum, n) => sum + SEARCH_CREDITS_PER_BLOCK * Math.ceil(n / SEARCH_CREDIT_BLOCK), 0);
}

/** The type of a source entry. */
export function searchSourceType(s: SearchRequest['sources'][number]): SearchSourceType {
  return typeof s === 'string' ? s : s.type;
}
