import { z } from 'zod';
import { joinBranchIssues } from './validation-issues.js';

/** Format names accepted in string form (v2). v1 spellings (`screenshot@fullPage`, `extract`) are rejected. */
export const FORMAT_NAMES = [
  'markdown',
  'html',
  'rawHtml',
  'links',
  'summary',
  'images',
  'audio',
  'branding',
  'changeTracking',
  'menu',
  'product',
  'video',
  'screenshot',
  'rawBase64',
] as const;

/** A format given as a plain string. */
export type FormatName = (typeof FORMAT_NAMES)[number];

/** Formats whose object form carries nothing but `type`. */
type SimpleFormatType =
  'markdown' | 'html' | 'rawHtml' | 'links' | 'summary' | 'images' | 'audio' | 'branding' | 'menu' | 'product' | 'video' | 'rawBase64';

/** Formats that only exist in object form because they need parameters (`query` is the SDK's deprecated one). */
const OBJECT_ONLY_TYPES = ['json', 'question', 'highlights', 'attributes', 'query'] as const;

/** Every format `type`, string and object forms together. */
export const FORMAT_TYPES = [...FORMAT_NAMES, ...OBJECT_ONLY_TYPES] as const;

/** The `type` of a normalized format object. */
export type FormatType = (typeof FORMAT_TYPES)[number];

function simpleFormat<T extends SimpleFormatType>(type: T) {
  return z.strictObject({ type: z.literal(type) });
}

/** Written out one by one so each keeps its literal `type` (a mapped array would widen it). */
const simpleFormatSchemas = [
  simpleFormat('markdown'),
  simpleFormat('html'),
  simpleFormat('rawHtml'),
  simpleFormat('links'),
  simpleFormat('summary'),
  simpleFormat('images'),
  simpleFormat('audio'),
  simpleFormat('branding'),
  simpleFormat('menu'),
  simpleFormat('product'),
  simpleFormat('video'),
  simpleFormat('rawBase64'),
] as const;

const jsonSchemaObject = z
  .record(z.string(), z.unknown())
  .meta({ description: 'A JSON Schema object describing the wanted output.' });

const viewportSchema = z
  .strictObject({
    /** Viewport width in CSS pixels, 1..10000. */
    width: z.number().int().min(1).max(10000),
    /** Viewport height in CSS pixels, 1..10000. */
    height: z.number().int().min(1).max(10000),
  })
  .meta({ id: 'Viewport', description: 'Browser viewport in CSS pixels; both sides required.' });

/** `{type:'json', prompt?, schema?}`: LLM extraction; result in `Document.json`. */
const jsonFormatSchema = z.strictObject({
  type: z.literal('json'),
  prompt: z.string().max(10000).optional(),
  schema: jsonSchemaObject.optional(),
  /** Sent by the SDK; accepted and ignored (the prompt is never followed as instructions about the service). */
  checkPromptInjection: z.boolean().optional(),
});

/** `{type:'screenshot', fullPage (default false), quality? 1..100, viewport?}`; URL in `Document.screenshot`. */
const screenshotFormatSchema = z.strictObject({
  type: z.literal('screenshot'),
  fullPage: z.boolean().default(false),
  quality: z.number().int().min(1).max(100).optional(),
  viewport: viewportSchema.optional(),
});

/** `{type:'changeTracking', modes?, schema?, prompt?, tag?}`; result in `Document.changeTracking`. */
const changeTrackingFormatSchema = z.strictObject({
  type: z.literal('changeTracking'),
  modes: z.array(z.enum(['git-diff', 'json'])).optional(),
  schema: jsonSchemaObject.optional(),
  prompt: z.string().max(10000).optional(),
  tag: z.string().max(256).nullable().optional(),
});

/** `{type:'question', question}`; answer in `Document.answer`. */
const questionFormatSchema = z.strictObject({
  type: z.literal('question'),
  question: z.string().min(1).max(10000),
});

/** `{type:'highlights', query?}`; text in `Document.highlights`. */
const highlightsFormatSchema = z.strictObject({
  type: z.literal('highlights'),
  query: z.string().max(10000).optional(),
});

/**
 * `{type:'attributes', selectors:[{selector, attribute}]}`: for each entry, the values of `attribute` on
 * the elements matching the CSS `selector`; result in `Document.attributes`.
 */
const attributesFormatSchema = z.strictObject({
  type: z.literal('attributes'),
  selectors: z
    .array(z.strictObject({ selector: z.string().min(1).max(1000), attribute: z.string().min(1).max(256) }))
    .min(1)
    .max(100),
});

/** `{type:'query', prompt, mode?}`: the SDK's deprecated form of `question`; not served (400 UNSUPPORTED_OPTION). */
const queryFormatSchema = z.strictObject({
  type: z.literal('query'),
  prompt: z.string().min(1).max(10000),
  mode: z.enum(['freeform', 'directQuote']).optional(),
});

/** Every object form of a format, discriminated by `type`. */
export const formatObjectSchema = z
  .discriminatedUnion('type', [
    ...simpleFormatSchemas,
    jsonFormatSchema,
    screenshotFormatSchema,
    changeTrackingFormatSchema,
    questionFormatSchema,
    highlightsFormatSchema,
    attributesFormatSchema,
    queryFormatSchema,
  ])
  .meta({ id: 'FormatObject' });

/** A format after parsing: always an object, string forms expanded with their defaults. */
export type FormatObject = z.output<typeof formatObjectSchema>;

/** The normalized format object of one `type`. */
export type FormatOf<T extends FormatType> = Extract<FormatObject, { type: T }>;

function expandName(name: FormatName): FormatObject {
  if (name === 'screenshot') return { type: 'screenshot', fullPage: false };
  return { type: name };
}

/** Explains why a format item matched nothing; zod's own union message ("Invalid input") says too little. */
function formatItemError(input: unknown, objectIssues: readonly z.core.$ZodIssue[] | undefined): string {
  if (typeof input === 'string') {
    if (input.startsWith('screenshot@')) {
      return `Format "${input}" is v1 syntax; use {"type":"screenshot","fullPage":true}`;
    }
    if (input === 'extract') return 'Format "extract" was renamed in v2; use {"type":"json","prompt":...,"schema":...}';
    if ((OBJECT_ONLY_TYPES as readonly string[]).includes(input)) {
      return `Format "${input}" needs its object form {"type":"${input}", ...}`;
    }
    return `Unknown format "${input}"; expected one of ${FORMAT_NAMES.join(', ')} or a format object (${OBJECT_ONLY_TYPES.join(', ')})`;
  }
  if (typeof input === 'object' && input !== null && 'type' in input) {
    const known = (FORMAT_TYPES as readonly unknown[]).includes((input as { type: unknown }).type);
    if (known && objectIssues !== undefined && objectIssues.length > 0) return joinBranchIssues(objectIssues);
    return `Unknown format type ${JSON.stringify((input as { type: unknown }).type)}; expected one of ${FORMAT_TYPES.join(', ')}`;
  }
  return 'A format is a format name string or an object with a "type"';
}

/** One element of `formats`: a name or an object, normalized to an object. */
export const formatSchema = z.union(
  [z.enum(FORMAT_NAMES).transform(expandName), formatObjectSchema],
  { error: (issue) => (issue.code === 'invalid_union' ? formatItemError(issue.input, issue.errors[1]) : undefined) },
);

/** `formats`: at most one entry per format type; strings normalize to objects. */
export const formatListSchema = z
  .array(formatSchema)
  .max(FORMAT_TYPES.length)
  .superRefine((formats, ctx) => {
    const seen = new Set<string>();
    formats.forEach((format, index) => {
      if (seen.has(format.type)) {
        ctx.addIssue({ code: 'custom', path: [index], message: `Duplicate format "${format.type}"` });
      }
      seen.add(format.type);
    });
    const raw = formats.findIndex((f) => f.type === 'rawBase64');
    if (raw >= 0 && formats.length > 1) {
      ctx.addIssue({ code: 'custom', path: [raw], message: 'The rawBase64 format must be the only format: it returns the response body as it is' });
    }
  })
  .meta({ description: 'Output formats. Each format type may appear once. Default ["markdown"].' });

/** The format of `type` in a parsed format list, or undefined. */
export function findFormat<T extends FormatType>(
  formats: readonly FormatObject[] | undefined,
  type: T,
): FormatOf<T> | undefined {
  return formats?.find((f): f is FormatOf<T> => f.type === type);
}
