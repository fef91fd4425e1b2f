import { z } from 'zod';
import { MAX_TOTAL_WAIT_MS, actionListSchema, totalActionWaitMs, type Action } from './actions.js';
import { metadataSchema } from './bounded-json.js';
import { formatListSchema } from './formats.js';
import { requestHeadersSchema } from './request-headers.js';
import { joinBranchIssues } from './validation-issues.js';

/** Default `maxAge`: 2 days, in ms. */
export const DEFAULT_MAX_AGE_MS = 172_800_000;
/** Default `maxAge` when `lockdown` is true: two years (730 days), in ms, so cached pages stay eligible. */
export const LOCKDOWN_MAX_AGE_MS = 63_072_000_000;
/** Country used when `location` is absent or has no `country`. */
export const DEFAULT_COUNTRY = 'US';

/** `location`: `country` ISO 3166-1 alpha-2 (default US), `languages` in priority order (Accept-Language values). */
export const locationSchema = z
  .strictObject({
    country: z
      .string()
      .regex(/^[A-Z]{2}$/, { error: 'country must be two uppercase letters (ISO 3166-1 alpha-2)' })
      .default(DEFAULT_COUNTRY),
    languages: z.array(z.string().min(1).max(35)).max(20).optional(),
  })
  .meta({ id: 'Location' });

/** `profile`: persistent browser storage by `name` (1..128 chars); `saveChanges` default true. */
export const profileSchema = z
  .strictObject({
    name: z.string().min(1).max(128),
    saveChanges: z.boolean().default(true),
  })
  .meta({ id: 'Profile' });

/**
 * One `parsers` entry in object form: `mode` fast|auto|ocr (default auto), `maxPages` 1..10000, `pages`
 * (per-page markdown in `Document.pages`; `pageMarkdown` is its older name). `blocks` and `pageMarkers`
 * are accepted and ignored with a warning.
 */
const pdfParserSchema = z.strictObject({
  type: z.literal('pdf'),
  mode: z.enum(['fast', 'auto', 'ocr']).default('auto'),
  maxPages: z.number().int().min(1).max(10000).optional(),
  /** Add the markdown of each converted page as `Document.pages`. Default false. */
  pages: z.boolean().optional(),
  /** Older name of `pages`. */
  pageMarkdown: z.boolean().optional(),
  /** Accepted and ignored (warning): layout blocks are not produced here. */
  blocks: z.boolean().optional(),
  /** Accepted and ignored (warning): no page markers in the markdown. */
  pageMarkers: z.boolean().optional(),
});

/** A PDF parser after parsing: always an object; `pages` true when `pages` or `pageMarkdown` asked for it. */
export interface PdfParser {
  type: 'pdf';
  mode: 'fast' | 'auto' | 'ocr';
  maxPages?: number | undefined;
  pages?: boolean | undefined;
}


/** Names what is wrong with a parser item; zod's union message alone ("Invalid input") would not. */
function parserItemError(input: unknown, objectIssues: readonly z.core.$ZodIssue[] | undefined): string {
  if (typeof input === 'object' && input !== null && objectIssues !== undefined && objectIssues.length > 0) {
    return joinBranchIssues(objectIssues);
  }
  return 'A parser is "pdf", "image" or {"type":"pdf", "mode"?: "fast"|"auto"|"ocr", "maxPages"?: 1..10000, "pages"?: boolean}';
}

/** One `parsers` item as sent, normalized: a pdf parser object, or null for the ignored `image` parser. */
const parserItemSchema = z
  .union(
    [
      z.literal('pdf'),
      pdfParserSchema,
      // The SDK's image parser (OCR of raster images as one-page documents): accepted and ignored with a warning.
      z.literal('image'),
      z.strictObject({ type: z.literal('image') }),
    ],
    { error: (issue) => (issue.code === 'invalid_union' ? parserItemError(issue.input, issue.errors[1]) : undefined) },
  )
  .transform((item): PdfParser | null => {
    if (item === 'pdf') return { type: 'pdf', mode: 'auto' };
    if (item === 'image' || item.type === 'image') return null;
    const { type, mode, maxPages, pages, pageMarkdown } = item;
    return { type, mode, ...(maxPages !== undefined ? { maxPages } : {}), ...(pages === true || pageMarkdown === true ? { pages: true } : {}) };
  });

/**
 * `parsers`: `'pdf'` or `{type:'pdf', ...}` items, normalized to objects; default `[{type:'pdf', mode:'auto'}]`.
 * An empty array (or one without a pdf parser) returns PDFs base64-encoded. `image` entries are dropped.
 */
export const parserListSchema = z
  .array(parserItemSchema)
  .max(2)
  .superRefine((items, ctx) => {
    if (items.filter((p) => p !== null).length > 1) ctx.addIssue({ code: 'custom', message: 'parsers takes at most one pdf parser' });
  })
  .transform((items): PdfParser[] => items.filter((p): p is PdfParser => p !== null))
  .default(() => [{ type: 'pdf' as const, mode: 'auto' as const }]);

/** `redactPII` object form. Its fields are not in the spec; these are accepted and passed on as is. */
export const redactPIIOptionsSchema = z
  .strictObject({
    mode: z.string().min(1).max(64).optional(),
    entities: z.array(z.string().min(1).max(64)).max(100).optional(),
    replacement: z.string().max(64).optional(),
    /** The SDK's name for the replacement style (tag | mask | remove). */
    replaceStyle: z.string().min(1).max(64).optional(),
  })
  .meta({ id: 'RedactPIIOptions' });

/** `threatProtection` override (fields as in the v1 record). */
export const threatProtectionSchema = z
  .strictObject({
    riskScoreThreshold: z.number().int().min(0).optional(),
    blacklist: z.array(z.string()).optional(),
    whitelist: z.array(z.string()).optional(),
    blockedTlds: z.array(z.string()).optional(),
    /** Accepted and ignored (warning): no scanning provider here. */
    mode: z.enum(['off', 'manual-only', 'normal', 'zscaler']).optional(),
    /** Accepted and ignored (warning). */
    failurePolicy: z.enum(['open', 'closed']).optional(),
  })
  .meta({ id: 'ThreatProtection' });

/** `proxy`: basic | enhanced | auto, default auto; `stealth` (what older clients and n8n send) is read as `enhanced`. */
export const proxyTierSchema = z
  .enum(['basic', 'enhanced', 'auto', 'stealth'])
  .default('auto')
  .transform((tier): 'basic' | 'enhanced' | 'auto' => (tier === 'stealth' ? 'enhanced' : tier));

/**
 * Every scrape option without `url`, no cross-field rules: the base to `.extend()` for crawl and batch
 * bodies. Apply {@link checkScrapeOptions} and {@link finalizeScrapeOptions} to whatever extends it, or
 * use {@link scrapeOptionsSchema} when the options are a nested object (crawl `scrapeOptions`).
 */
export const scrapeOptionsObjectSchema = z.strictObject({
  /** Output formats; default `[{type:'markdown'}]`. */
  formats: formatListSchema.default(() => [{ type: 'markdown' as const }]),
  /** Headers sent with the request (cookies, user-agent...). Non-empty forces `storeInCache` false. */
  headers: requestHeadersSchema.optional(),
  /** Tags/selectors to keep. */
  includeTags: z.array(z.string()).optional(),
  /** Tags/selectors to drop. */
  excludeTags: z.array(z.string()).optional(),
  /** Drop headers, navigation, footers before markdown. Default true. */
  onlyMainContent: z.boolean().default(true),
  /** Extra LLM cleaning pass over the markdown. Default false. */
  onlyCleanContent: z.boolean().default(false),
  /** Deadline of the whole scrape, ms, 1000..300000. Default 60000. */
  timeout: z.number().int().min(1000).max(300000).default(60000),
  /** Extra delay before capture, ms, >= 0, at most half of `timeout`. Default 0. */
  waitFor: z.number().int().min(0).default(0),
  /** Emulate a mobile device. Default false. */
  mobile: z.boolean().default(false),
  /** Skip TLS certificate checks. Default true. */
  skipTlsVerification: z.boolean().default(true),
  /** Replace base64 images in markdown by a placeholder. Default true. */
  removeBase64Images: z.boolean().default(true),
  /** Block ads and cookie pop-ups. Default true. */
  blockAds: z.boolean().default(true),
  /** Proxy tier: basic | enhanced | auto (`stealth` is the older name of `enhanced`). Default auto. */
  proxy: proxyTierSchema,
  /** Geolocation emulation; absent means country US without explicit emulation. */
  location: locationSchema.optional(),
  /** Accept a cached copy newer than this, ms, >= 0. Default 172800000 (2 days), two years with lockdown. */
  maxAge: z
    .number()
    .int()
    .min(0)
    .optional()
    .meta({ default: DEFAULT_MAX_AGE_MS, description: 'ms; default 2 days, or two years when lockdown is true' }),
  /** Cache-only mode: return cached data at least this old, ms, >= 1. */
  minAge: z.number().int().min(1).optional(),
  /** Serve only from cache, never contact the target. Default false. */
  lockdown: z.boolean().default(false),
  /** Store the page in the cache. Default true; forced false by actions, headers or zero data retention. */
  storeInCache: z.boolean().default(true),
  /** Document parsers; see {@link parserListSchema}. */
  parsers: parserListSchema,
  /** Browser actions before capture. */
  actions: actionListSchema.optional(),
  /** Persistent browser profile. */
  profile: profileSchema.optional(),
  /** Mask personal data in the markdown: true for defaults, or an options object. Default false. */
  redactPII: z.union([z.boolean(), redactPIIOptionsSchema]).default(false),
  /** Opaque caller metadata, recorded with the job. */
  auditMetadata: metadataSchema.optional(),
  /** Threat protection override. */
  threatProtection: threatProtectionSchema.optional(),
  /** Caller identification; the SDK repeats it inside nested `scrapeOptions`. Recorded only at the top level. */
  origin: z.string().max(256).optional(),
  /** Integration name; the SDK repeats it inside nested `scrapeOptions`. */
  integration: z.string().max(256).optional(),
  /** SDK option, accepted and ignored (warning): every scrape here runs the same pipeline. */
  fastMode: z.boolean().optional(),
  /** SDK test option, accepted and ignored (warning): no recorded responses are replayed. */
  useMock: z.string().max(256).optional(),
  /** SDK option, accepted and ignored (warning): no domain tools here. */
  domainTools: z.boolean().optional(),
  /** SDK option, accepted and ignored (warning): no domain tools here. */
  toolDetail: z.enum(['compact', 'summary', 'full']).optional(),
});

/** Scrape options as parsed by {@link scrapeOptionsObjectSchema}, before {@link finalizeScrapeOptions}. */
export type ScrapeOptionsBase = z.output<typeof scrapeOptionsObjectSchema>;

/** The fields {@link checkScrapeOptions} reads. */
interface WaitFields {
  timeout: number;
  waitFor: number;
  actions?: readonly Action[] | undefined;
  lockdown?: boolean;
  minAge?: number | undefined;
}

/**
 * Cross-field rules: `waitFor` at most half of `timeout`; `waitFor` plus wait actions at most
 * {@link MAX_TOTAL_WAIT_MS}; no `actions` in the cache-only modes (a cached page has run none).
 * Written defensively: zod may run it after other fields failed.
 */
export function checkScrapeOptions(options: WaitFields, ctx: z.RefinementCtx): void {
  const { timeout, waitFor } = options;
  if (typeof timeout !== 'number' || typeof waitFor !== 'number') return;
  if (waitFor > timeout / 2) {
    ctx.addIssue({
      code: 'custom',
      path: ['waitFor'],
      // The hosted service's exact text: clients and test suites match on it.
      message: 'waitFor must not exceed half of timeout',
    });
  }
  const actions = Array.isArray(options.actions) ? options.actions : undefined;
  const total = waitFor + totalActionWaitMs(actions);
  if (total > MAX_TOTAL_WAIT_MS) {
    ctx.addIssue({
      code: 'custom',
      path: [actions?.some((a) => a.type === 'wait') ? 'actions' : 'waitFor'],
      message: `waitFor plus wait actions total ${total} ms; at most ${MAX_TOTAL_WAIT_MS} ms is allowed`,
    });
  }
  if (actions && actions.length > 0 && (options.lockdown === true || options.minAge !== undefined)) {
    ctx.addIssue({
      code: 'custom',
      path: ['actions'],
      message: `actions cannot be combined with ${options.lockdown === true ? 'lockdown' : 'minAge'}: cached pages are served as they were fetched`,
    });
  }
}

/** The fields {@link finalizeScrapeOptions} derives from. */
interface FinalizeFields {
  maxAge?: number | undefined;
  lockdown: boolean;
  storeInCache: boolean;
  headers?: Record<string, string> | undefined;
  actions?: readonly Action[] | undefined;
  profile?: unknown;
}

/**
 * Applies the defaults that depend on other fields: `maxAge` (2 days, two years with `lockdown`) and
 * `storeInCache` forced false when `actions`, `headers` or a `profile` are used (sensitive scrape: the
 * page may be one user's view, which must never be served to anyone else from the cache).
 */
export function finalizeScrapeOptions<T extends FinalizeFields>(options: T): T & { maxAge: number } {
  const maxAge = options.maxAge ?? (options.lockdown ? LOCKDOWN_MAX_AGE_MS : DEFAULT_MAX_AGE_MS);
  const sensitive =
    (options.actions !== undefined && options.actions.length > 0) ||
    (options.headers !== undefined && Object.keys(options.headers).length > 0) ||
    options.profile !== undefined;
  return { ...options, maxAge, storeInCache: sensitive ? false : options.storeInCache };
}

/** Scrape options as a nested object (crawl `scrapeOptions`): all rules and derived defaults applied. */
export const scrapeOptionsSchema = scrapeOptionsObjectSchema
  .superRefine(checkScrapeOptions)
  .transform(finalizeScrapeOptions)
  .meta({ id: 'ScrapeOptions' });

/** Scrape options as sent by the client. */
export type ScrapeOptionsInput = z.input<typeof scrapeOptionsSchema>;
/** Scrape options after parsing: defaults applied, `formats` and `parsers` normalized to objects. */
export type ScrapeOptions = z.output<typeof scrapeOptionsSchema>;
