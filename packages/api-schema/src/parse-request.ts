import { z } from 'zod';
import { checkCleanContentRetention, clientTagFields } from './scrape-request.js';
import { checkScrapeOptions, scrapeOptionsObjectSchema } from './scrape-options.js';

/** Formats a parse cannot produce: they need a live page (screenshot, branding, audio) or a URL history. */
const PAGE_ONLY_FORMATS = new Set(['screenshot', 'changeTracking', 'branding', 'audio', 'video']);

/** Largest file `POST /v2/parse` accepts, bytes (50 MiB). */
export const MAX_PARSE_FILE_BYTES = 50 * 1024 * 1024;

/**
 * The `options` part of `POST /v2/parse` (multipart: `options` JSON, then `file`): scrape options
 * without what needs a live page (waitFor, mobile, actions, location, cache modes, profiles). After
 * parsing, the page-only fields hold their neutral values so the job is a scrape request without a URL.
 */
export const parseRequestSchema = scrapeOptionsObjectSchema
  .omit({
    waitFor: true, mobile: true, actions: true, location: true, maxAge: true, minAge: true, storeInCache: true,
    lockdown: true, profile: true, threatProtection: true, proxy: true,
  })
  .extend({
    /** Accepted for compatibility: a parse fetches nothing, so the tier changes nothing. */
    proxy: z.enum(['basic', 'auto']).default('auto'),
    /** Full zero data retention for this parse. Default false. */
    zeroDataRetention: z.boolean().default(false),
    ...clientTagFields,
  })
  .superRefine((body, ctx) => {
    checkScrapeOptions({ timeout: body.timeout, waitFor: 0 }, ctx);
    checkCleanContentRetention(body, ctx);
    body.formats?.forEach((f, i) => {
      if (PAGE_ONLY_FORMATS.has(f.type)) {
        ctx.addIssue({ code: 'custom', path: ['formats', i], message: `The ${f.type} format needs a live page; parse does not support it` });
      }
    });
  })
  .transform((body) => ({
    ...body,
    waitFor: 0,
    mobile: false,
    lockdown: false,
    storeInCache: false,
    maxAge: 0,
  }))
  .meta({ id: 'ParseOptions' });

/** Scrape options a parse refuses with `PARSE_UNSUPPORTED_OPTIONS`: they need a live page or a URL. */
const PAGE_ONLY_OPTIONS = ['waitFor', 'mobile', 'actions', 'location', 'maxAge', 'minAge', 'storeInCache', 'lockdown', 'profile', 'threatProtection'] as const;

/**
 * Names of the options of a raw parse body that a parse cannot honour (page-only options, a proxy
 * other than `basic`/`auto`, page-only formats as `formats[i]:<type>`); empty when there are none.
 * Checked before the schema so the client learns which options to drop, by their names.
 */
export function parseUnsupportedOptions(raw: unknown): string[] {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return [];
  const body = raw as Record<string, unknown>;
  const out: string[] = PAGE_ONLY_OPTIONS.filter((k) => body[k] !== undefined);
  if (body.proxy !== undefined && body.proxy !== 'basic' && body.proxy !== 'auto') out.push('proxy');
  if (Array.isArray(body.formats)) {
    body.formats.forEach((f: unknown, i) => {
      const type = typeof f === 'string' ? f : typeof f === 'object' && f !== null ? (f as { type?: unknown }).type : undefined;
      if (typeof type === 'string' && PAGE_ONLY_FORMATS.has(type)) out.push(`formats[${i}]:${type}`);
    });
  }
  return out;
}

/** The parse options as sent by the client. */
export type ParseRequestInput = z.input<typeof parseRequestSchema>;
/** The parse options after parsing. */
export type ParseRequest = z.output<typeof parseRequestSchema>;

/** The URL a parse job carries for an uploaded file: a `file:` URL of its name (its `sourceURL` is the bare name). */
export function uploadSourceUrl(filename: string): string {
  return `file:///${encodeURIComponent(filename)}`;
}
