import { z } from 'zod';
import type { ScrapeOptionsInput } from '../scrape-options.js';

/**
 * The v1 scrape options (FirecrawlAppV1 `CrawlScrapeOptions`/`ScrapeParams` of the 1.x and 4.x SDKs)
 * and their translation to v2. Only what v1 spells differently is checked here (format strings,
 * `jsonOptions`/`extract`, `changeTrackingOptions`, `parsePDF`, `proxy: "stealth"`); every other field
 * passes through untouched and the v2 schema checks it after the translation, so each v2 rule applies
 * once and the answer to a bad value is the v2 one.
 */

/** v1 format names. `content` is the v0 name of markdown; `screenshot@fullPage` a full-page screenshot. */
export const V1_FORMAT_NAMES = [
  'markdown', 'html', 'rawHtml', 'content', 'links', 'screenshot', 'screenshot@fullPage', 'extract', 'json', 'changeTracking',
] as const;
export type V1FormatName = (typeof V1_FORMAT_NAMES)[number];

/** `jsonOptions` / `extract`: the LLM extraction of v1 (`systemPrompt` is folded into the v2 `prompt`). */
const v1JsonOptionsSchema = z.strictObject({
  prompt: z.string().optional(),
  schema: z.record(z.string(), z.unknown()).optional(),
  systemPrompt: z.string().optional(),
  /** 4.x SDK's v1 client; accepted, the prompt is always treated as untrusted page input here. */
  checkPromptInjection: z.boolean().optional(),
});
export type V1JsonOptions = z.output<typeof v1JsonOptionsSchema>;

/** `changeTrackingOptions` of v1: the fields of the v2 changeTracking format object. */
const v1ChangeTrackingOptionsSchema = z.strictObject({
  modes: z.array(z.string()).optional(),
  schema: z.record(z.string(), z.unknown()).optional(),
  prompt: z.string().optional(),
  tag: z.string().nullable().optional(),
});

/** A field v2 validates: typed as the v2 input, checked only by the v2 schema after translation. */
function passThrough<K extends keyof ScrapeOptionsInput>() {
  return z.custom<ScrapeOptionsInput[K]>(() => true).optional();
}

/** The v1 scrape option fields (top level of `/v1/scrape` and `/v1/batch/scrape`, crawl `scrapeOptions`). */
export const v1ScrapeOptionsShape = {
  formats: z.array(z.enum(V1_FORMAT_NAMES, { error: (i) => `Unknown v1 format ${JSON.stringify(i.input)}; expected one of ${V1_FORMAT_NAMES.join(', ')}` })).optional(),
  jsonOptions: v1JsonOptionsSchema.optional(),
  extract: v1JsonOptionsSchema.optional(),
  changeTrackingOptions: v1ChangeTrackingOptionsSchema.optional(),
  /** Parse PDFs to text (v2 `parsers: ["pdf"]`); false returns them base64 (v2 `parsers: []`). Default true. */
  parsePDF: z.boolean().optional(),
  /** basic | stealth (v2 `enhanced`) | enhanced | auto. */
  proxy: z.enum(['basic', 'stealth', 'enhanced', 'auto']).optional(),
  /** v1 default 0: always fetch fresh unless the client asks for the cache. */
  maxAge: passThrough<'maxAge'>(),
  headers: passThrough<'headers'>(),
  includeTags: passThrough<'includeTags'>(),
  excludeTags: passThrough<'excludeTags'>(),
  onlyMainContent: passThrough<'onlyMainContent'>(),
  waitFor: passThrough<'waitFor'>(),
  timeout: passThrough<'timeout'>(),
  location: passThrough<'location'>(),
  mobile: passThrough<'mobile'>(),
  skipTlsVerification: passThrough<'skipTlsVerification'>(),
  removeBase64Images: passThrough<'removeBase64Images'>(),
  blockAds: passThrough<'blockAds'>(),
  storeInCache: passThrough<'storeInCache'>(),
  actions: passThrough<'actions'>(),
  auditMetadata: passThrough<'auditMetadata'>(),
  threatProtection: passThrough<'threatProtection'>(),
};

/** v1 scrape options as a nested object (crawl and extract `scrapeOptions`), before translation. */
export const v1ScrapeOptionsObjectSchema = z.strictObject(v1ScrapeOptionsShape).superRefine(checkV1ScrapeOptions);
export type V1ScrapeOptions = z.output<typeof v1ScrapeOptionsObjectSchema>;

/** The v1 fields {@link checkV1ScrapeOptions} and {@link v1ScrapeOptionsToV2} read. */
type V1Fields = { [K in keyof typeof v1ScrapeOptionsShape]?: z.output<(typeof v1ScrapeOptionsShape)[K]> };

/**
 * v1's own rule: a format that needs options and its options come together ("extract" with
 * `extract`, "json" with `jsonOptions`), as the v1 API answered.
 */
export function checkV1ScrapeOptions(options: V1Fields, ctx: z.RefinementCtx, path: Array<string | number> = []): void {
  const formats = options.formats ?? [];
  for (const [format, key] of [['extract', 'extract'], ['json', 'jsonOptions']] as const) {
    const hasFormat = formats.includes(format);
    const hasOptions = options[key] !== undefined;
    if (hasFormat && !hasOptions && !(format === 'json' && options.extract !== undefined)) {
      ctx.addIssue({ code: 'custom', path: [...path, key], message: `The "${format}" format needs ${key} options ({prompt?, schema?, systemPrompt?})` });
    }
    if (hasOptions && !hasFormat && !(key === 'extract' && formats.includes('json'))) {
      ctx.addIssue({ code: 'custom', path: [...path, 'formats'], message: `${key} is given but formats lacks "${format}"` });
    }
  }
}

/** The v2 `prompt` of a v1 extraction: v2 has no separate system prompt, so it leads the prompt. */
function v2Prompt(options: V1JsonOptions): string | undefined {
  const parts = [options.systemPrompt, options.prompt].filter((p): p is string => p !== undefined && p.length > 0);
  return parts.length > 0 ? parts.join('\n\n') : undefined;
}

/** v1 format strings and their option objects as v2 format objects (duplicates are left for v2 to reject). */
function v2Formats(options: V1Fields): NonNullable<ScrapeOptionsInput['formats']> | undefined {
  if (options.formats === undefined) return undefined;
  const out: NonNullable<ScrapeOptionsInput['formats']> = [];
  let jsonAdded = false;
  for (const name of options.formats) {
    if (name === 'content') out.push('markdown');
    else if (name === 'screenshot' || name === 'screenshot@fullPage') out.push({ type: 'screenshot', fullPage: name === 'screenshot@fullPage' });
    else if (name === 'extract' || name === 'json') {
      // "extract" and "json" are one v2 format; asking for both answers both fields from one extraction.
      if (jsonAdded) continue;
      jsonAdded = true;
      const llm = (name === 'json' ? options.jsonOptions : options.extract) ?? options.jsonOptions ?? options.extract ?? {};
      const prompt = v2Prompt(llm);
      out.push({ type: 'json', ...(prompt !== undefined ? { prompt } : {}), ...(llm.schema !== undefined ? { schema: llm.schema } : {}) });
    } else if (name === 'changeTracking') {
      const ct = options.changeTrackingOptions ?? {};
      out.push({
        type: 'changeTracking',
        // Unknown modes reach the v2 schema, which names the allowed ones.
        ...(ct.modes !== undefined ? { modes: ct.modes as Array<'git-diff' | 'json'> } : {}),
        ...(ct.schema !== undefined ? { schema: ct.schema } : {}),
        ...(ct.prompt !== undefined ? { prompt: ct.prompt } : {}),
        ...(ct.tag !== undefined ? { tag: ct.tag } : {}),
      });
    } else out.push(name);
  }
  return out;
}

/**
 * v1 scrape options -> v2 scrape options input (to be parsed by a v2 schema). v1 defaults differ:
 * `maxAge` 0 (v2: 2 days); `blockAds` and `removeBase64Images` are true in both.
 */
export function v1ScrapeOptionsToV2(options: V1Fields): ScrapeOptionsInput {
  const {
    formats: _formats, jsonOptions: _json, extract: _extract, changeTrackingOptions: _ct, parsePDF, proxy, maxAge, location, ...rest
  } = options;
  const formats = v2Formats(options);
  return {
    ...rest,
    ...(formats !== undefined ? { formats } : {}),
    ...(parsePDF === false ? { parsers: [] } : {}),
    ...(proxy !== undefined ? { proxy: proxy === 'stealth' ? 'enhanced' : proxy } : {}),
    maxAge: maxAge ?? 0,
    // v1 accepted a lower-case country code and upper-cased it.
    ...(location !== undefined ? { location: upperCountry(location) } : {}),
  };
}

function upperCountry(location: ScrapeOptionsInput['location']): ScrapeOptionsInput['location'] {
  if (typeof location !== 'object' || location === null || typeof location.country !== 'string') return location;
  return { ...location, country: location.country.toUpperCase() };
}

/**
 * Which document fields carry the LLM extraction for a v1 client: `json` for the "json" format,
 * `extract` for "extract", both when unknown (a stored result read back without its request).
 */
export type V1JsonKeys = ReadonlyArray<'json' | 'extract'>;

/** The v1 document keys of a v1 `formats` list. */
export function v1JsonKeys(formats: readonly V1FormatName[] | undefined): V1JsonKeys {
  return (['json', 'extract'] as const).filter((k) => formats?.includes(k) === true);
}
