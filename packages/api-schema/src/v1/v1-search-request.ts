import { z } from 'zod';
import { searchRequestSchema, type SearchRequestInput } from '../search.js';
import { v1ScrapeOptionsObjectSchema, v1ScrapeOptionsToV2 } from './v1-scrape-options.js';

/** Default `limit` of a v1 search. */
export const V1_SEARCH_DEFAULT_LIMIT = 5;

function v2Field<T>() {
  return z.custom<T>(() => true).optional();
}

/**
 * `POST /v1/search` body -> the parsed v2 search request: web results only, `limit` 5 by default,
 * `scrapeOptions` are v1 options (formats default none: no scraping).
 */
export const v1SearchRequestSchema = z
  .strictObject({
    query: v2Field<SearchRequestInput['query']>(),
    limit: v2Field<SearchRequestInput['limit']>(),
    tbs: v2Field<SearchRequestInput['tbs']>(),
    lang: v2Field<SearchRequestInput['lang']>(),
    country: v2Field<SearchRequestInput['country']>(),
    location: v2Field<SearchRequestInput['location']>(),
    timeout: v2Field<SearchRequestInput['timeout']>(),
    ignoreInvalidURLs: v2Field<SearchRequestInput['ignoreInvalidURLs']>(),
    scrapeOptions: v1ScrapeOptionsObjectSchema.optional(),
    origin: v2Field<SearchRequestInput['origin']>(),
    integration: v2Field<SearchRequestInput['integration']>(),
  })
  .transform((body): SearchRequestInput => {
    const { scrapeOptions, limit, query, ...rest } = body;
    const defined = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
    return {
      ...defined,
      query: query as string,
      limit: limit ?? V1_SEARCH_DEFAULT_LIMIT,
      sources: ['web'],
      ...(scrapeOptions !== undefined ? { scrapeOptions: v1ScrapeOptionsToV2(scrapeOptions) } : {}),
    };
  })
  .pipe(searchRequestSchema);

/** A v1 search item: the web result with the (v1) Document fields merged in when it was scraped. */
export function v1SearchItem(item: Record<string, unknown>, toV1: (doc: Record<string, unknown>) => Record<string, unknown>): Record<string, unknown> {
  const { url, title, description, position: _position, category: _category, ...doc } = item;
  const scraped = Object.keys(doc).length > 0 ? toV1(doc) : {};
  return { ...scraped, url, title: title ?? '', description: description ?? '' };
}
