import { z } from 'zod';
import { brandingSchema } from './branding.js';
import { menuSchema, productSchema } from './menu.js';

const stringOrList = z.union([z.string(), z.array(z.string())]);

/** `Document.metadata`. Known members are typed; any other page metadata is a string or string list. */
export const documentMetadataSchema = z
  .object({
    title: stringOrList.optional(),
    description: stringOrList.optional(),
    keywords: stringOrList.optional(),
    language: stringOrList.nullable().optional(),
    /** URL originally requested. */
    sourceURL: z.string(),
    /** Final URL after redirects. */
    url: z.string().optional(),
    /** HTTP status of the page (4xx/5xx pages are still successful scrapes). */
    statusCode: z.number().int(),
    /** MIME type, e.g. text/html, application/pdf. */
    contentType: z.string().optional(),
    /** Error message about the page. */
    error: z.string().nullable().optional(),
    ogLocaleAlternate: z.array(z.string()).optional(),
    favicon: z.string().optional(),
    /** PDFs: pages processed (limited by `maxPages`). */
    numPages: z.number().int().optional(),
    /** PDFs: real page count before `maxPages`; omitted when unknown. */
    totalPages: z.number().int().optional(),
    /** True when the team's concurrency limit delayed the scrape. */
    concurrencyLimited: z.boolean().optional(),
    /** Time in the concurrency queue, ms; only when `concurrencyLimited`. */
    concurrencyQueueDurationMs: z.number().optional(),
    /** Id of the scrape job (`GET /v2/scrape/{id}`). */
    scrapeId: z.string().optional(),
    proxyUsed: z.enum(['basic', 'enhanced']).optional(),
    cacheState: z.enum(['hit', 'miss']).optional(),
    /** ISO 8601 time the cached copy was taken. */
    cachedAt: z.string().optional(),
    creditsUsed: z.number().optional(),
    /** IANA time zone emulated or detected. */
    timezone: z.string().optional(),
  })
  .catchall(stringOrList)
  .meta({ id: 'DocumentMetadata' });

/** `Document.actions`: results of actions, each list in the order of its action type. */
export const actionResultsSchema = z
  .strictObject({
    screenshots: z.array(z.string()),
    scrapes: z.array(z.strictObject({ url: z.string(), html: z.string() })),
    javascriptReturns: z.array(z.strictObject({ type: z.string(), value: z.unknown() })),
    pdfs: z.array(z.string()),
  })
  .meta({ id: 'ActionResults' });

/** `Document.changeTracking`: comparison with the previous scrape of the URL. */
export const changeTrackingResultSchema = z
  .strictObject({
    changeStatus: z.enum(['new', 'same', 'changed', 'removed']),
    visibility: z.enum(['visible', 'hidden']),
    /** ISO 8601 time of the previous scrape; null when none. */
    previousScrapeAt: z.string().nullable(),
    /** Only in mode git-diff. */
    diff: z.string().nullable().optional(),
    /** Only in mode json: `{previous, current}` comparison. */
    json: z.record(z.string(), z.unknown()).nullable().optional(),
  })
  .meta({ id: 'ChangeTrackingResult' });

/** A scraped page. Only the members of requested formats are present. */
export const documentSchema = z
  .strictObject({
    markdown: z.string().optional(),
    html: z.string().nullable().optional(),
    rawHtml: z.string().optional(),
    links: z.array(z.string()).optional(),
    images: z.array(z.string()).optional(),
    /** Screenshot URL. */
    screenshot: z.string().optional(),
    /** LLM extraction result (shape given by the requested schema). */
    json: z.unknown().optional(),
    summary: z.string().nullable().optional(),
    answer: z.string().nullable().optional(),
    highlights: z.string().nullable().optional(),
    branding: brandingSchema.nullable().optional(),
    product: productSchema.nullable().optional(),
    menu: menuSchema.nullable().optional(),
    /** Signed MP3 URL, valid one hour. */
    audio: z.string().nullable().optional(),
    actions: actionResultsSchema.nullable().optional(),
    /** `attributes` format: per requested selector, the attribute's values in document order. */
    attributes: z
      .array(z.strictObject({ selector: z.string(), attribute: z.string(), values: z.array(z.string()) }))
      .optional(),
    /** `rawBase64` format: the response body, base64-encoded. */
    rawBase64: z.string().optional(),
    /** PDFs with `parsers: [{type:'pdf', pages: true}]`: the markdown of each converted page. */
    pages: z.array(z.strictObject({ pageNumber: z.number().int(), markdown: z.string() })).optional(),
    changeTracking: changeTrackingResultSchema.nullable().optional(),
    /** Non-fatal problem, e.g. onlyCleanContent skipped. */
    warning: z.string().optional(),
    metadata: documentMetadataSchema,
  })
  .meta({ id: 'Document' });

/** A scraped page as returned to clients. */
export type Document = z.output<typeof documentSchema>;
/** `Document.metadata`. */
export type DocumentMetadata = z.output<typeof documentMetadataSchema>;

/** `POST /v2/scrape` and `GET /v2/scrape/{id}` success body. */
export const scrapeResponseSchema = z
  .strictObject({ success: z.literal(true), data: documentSchema })
  .meta({ id: 'ScrapeResponse' });

/** Scrape success body. */
export type ScrapeResponse = z.output<typeof scrapeResponseSchema>;
