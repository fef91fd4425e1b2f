import { z } from 'zod';
import { scrapeOptionsObjectSchema, scrapeOptionsSchema } from './scrape-options.js';
import { checkChangeTrackingRetention, clientTagFields } from './scrape-request.js';
import { webhookConfigSchema } from './webhook.js';

/** Most URLs one extract request may carry (each `/*` one still expands to at most the page cap). */
export const MAX_EXTRACT_URLS = 1_000;
/** A URL ending in this means the whole site (or the path below it): the worker expands it with a map. */
export const EXTRACT_WILDCARD_SUFFIX = '/*';

/**
 * `POST /v2/extract` body (the SDK's `prepareExtractPayload`): structured data from one or more pages.
 * URLs are checked one by one by the service (`ignoreInvalidURLs`), so here they are only strings.
 * `urls` or `prompt` is required.
 */
export const extractRequestSchema = z
  .strictObject({
    /** Pages to read; a trailing `/*` means every page of the site below that path (found with a map). */
    urls: z.array(z.string().max(8_192)).max(MAX_EXTRACT_URLS).optional(),
    /** What to extract, in natural language. */
    prompt: z.string().min(1).max(10_000).optional(),
    /** JSON Schema object the merged result follows. */
    schema: z.record(z.string(), z.unknown()).optional().meta({ description: 'A JSON Schema object describing the wanted output.' }),
    /** Extra instructions placed before the extraction rules. */
    systemPrompt: z.string().max(10_000).optional(),
    /** A `/*` URL's expansion may include other hosts (subdomains). Default false. */
    allowExternalLinks: z.boolean().default(false),
    /** Find pages with web search (not served yet: 400 UNSUPPORTED_OPTION). Default false. */
    enableWebSearch: z.boolean().default(false),
    /** Answer with `sources`: which URLs supplied each field. Default false. */
    showSources: z.boolean().default(false),
    /** Drop invalid URLs (listed in `invalidURLs`) instead of failing the request. Default true. */
    ignoreInvalidURLs: z.boolean().default(true),
    /** Options of every page's scrape (markdown is always produced). */
    scrapeOptions: scrapeOptionsSchema.optional(),
    /** Where to send `extract.started`, `extract.completed`, `extract.failed`. */
    webhook: webhookConfigSchema.optional(),
    /** Zero data retention: no content logged, results kept an hour at most. Default false. */
    zeroDataRetention: z.boolean().default(false),
    threatProtection: scrapeOptionsObjectSchema.shape.threatProtection,
    ...clientTagFields,
  })
  .superRefine((body, ctx) => {
    if ((body.urls === undefined || body.urls.length === 0) && body.prompt === undefined) {
      ctx.addIssue({ code: 'custom', path: ['urls'], message: 'Either urls or prompt is required' });
    }
    if (body.scrapeOptions) checkChangeTrackingRetention({ ...body.scrapeOptions, zeroDataRetention: body.zeroDataRetention }, ctx, ['scrapeOptions']);
  })
  .meta({ id: 'ExtractRequest' });

export type ExtractRequestInput = z.input<typeof extractRequestSchema>;
export type ExtractRequest = z.output<typeof extractRequestSchema>;

/** Status of an extract job. */
export const EXTRACT_STATUSES = ['processing', 'completed', 'failed', 'cancelled'] as const;
export type ExtractStatus = (typeof EXTRACT_STATUSES)[number];

/** `POST /v2/extract` answer. */
export const extractStartResponseSchema = z
  .strictObject({ success: z.literal(true), id: z.uuid(), invalidURLs: z.array(z.string()).optional() })
  .meta({ id: 'ExtractStartResponse' });

/** `GET /v2/extract/:id` answer. */
export const extractStatusResponseSchema = z
  .strictObject({
    success: z.boolean(),
    status: z.enum(EXTRACT_STATUSES),
    /** The merged extraction (null until completed). */
    data: z.unknown(),
    error: z.string().optional(),
    /** Fixed: creation + retention while it runs, end + retention after. */
    expiresAt: z.string(),
    /** With `showSources`: each top-level field (and `field[i]` of arrays) -> the URLs that supplied it. */
    sources: z.record(z.string(), z.array(z.string())).optional(),
    tokensUsed: z.number().int().nonnegative().optional(),
    creditsUsed: z.number().int().nonnegative().optional(),
    /** Pages skipped (failed scrapes, invalid answers), the page cap, a field conflict. */
    warning: z.string().optional(),
  })
  .meta({ id: 'ExtractStatusResponse' });
