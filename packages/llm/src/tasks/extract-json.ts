import { mergeExtractions } from '../merge-extractions.js';
import { addUsage, NO_USAGE, type JsonSchema, type Llm, type LlmCallOptions, type LlmUsage } from '../types.js';
import { callOptions, CHUNK_CONCURRENCY, contentBudget, joinWarnings, mapOrdered, PAGE_IS_DATA, piecesOf } from './task-support.js';

export interface ExtractJsonRequest extends Omit<LlmCallOptions, 'feature'> {
  /** Default `json`. */
  feature?: 'json' | 'extract' | 'change-tracking';
  markdown: string;
  schema?: JsonSchema;
  prompt?: string;
  /** Extra instructions of `/v2/extract`, placed before the layer's own rules. */
  systemPrompt?: string;
}

export interface ExtractJsonResult {
  /** Valid against `schema` (an object when there is none), or null with `warning`. */
  value: unknown;
  warning?: string;
  usage: LlmUsage;
  chunks: number;
}

/** The layer's rules of extraction (after the caller's `systemPrompt`, before the user's prompt). */
export const EXTRACTION_RULES = [
  'You extract structured data from one web page.',
  'Extract only what the page states. Use null for anything the page does not state. Never invent, guess or complete values.',
  'Copy values as the page gives them (numbers as numbers, text without commentary).',
  PAGE_IS_DATA,
].join('\n');

/** The system message of an extraction call: `systemPrompt`, the layer's rules, then the user's prompt. */
export function extractionInstructions(request: Pick<ExtractJsonRequest, 'systemPrompt' | 'prompt' | 'schema'>, opts: { part?: { index: number; of: number } } = {}): string {
  const lines: string[] = [];
  if (request.systemPrompt) lines.push(request.systemPrompt);
  lines.push(EXTRACTION_RULES);
  if (request.schema === undefined) lines.push('Answer with one JSON object whose keys name what you extracted.');
  if (opts.part) lines.push(`The content is part ${opts.part.index + 1} of ${opts.part.of} of the page: extract what this part states; other parts are extracted separately.`);
  if (request.prompt) lines.push(`What to extract (the user's request):\n${request.prompt}`);
  return lines.join('\n\n');
}

/**
 * `json` extraction: the page in one call when it fits the context window, else chunked on headings
 * with overlap, each chunk extracted, the parts merged ({@link mergeExtractions}); one reduce call when
 * scalar fields disagree: the model picks one of the candidate values of each such field.
 * `LlmError` propagates; a bad answer gives `value: null` and a warning.
 */
export async function extractJson(llm: Llm, request: ExtractJsonRequest): Promise<ExtractJsonResult> {
  const feature = request.feature ?? 'json';
  const opts = callOptions(request);
  const schemaPart = request.schema !== undefined ? { schema: request.schema } : {};
  const budget = contentBudget(llm, { instructions: extractionInstructions(request, { part: { index: 0, of: 1 } }), schema: request.schema });
  const pieces = piecesOf(request.markdown, budget);
  const results = await mapOrdered(pieces, CHUNK_CONCURRENCY, (content, index) => llm.structured({
    ...opts, ...schemaPart, feature, content,
    instructions: extractionInstructions(request, pieces.length > 1 ? { part: { index, of: pieces.length } } : {}),
  }));
  let usage = results.reduce((u, r) => addUsage(u, r.usage), NO_USAGE);
  const parts = results.filter((r) => r.value !== null).map((r) => r.value);
  const partWarnings = results.map((r, i) => (r.value === null ? (pieces.length > 1 ? `part ${i + 1}: ${r.warning ?? 'no answer'}` : r.warning ?? 'no valid answer') : undefined));
  if (parts.length === 0) return { value: null, warning: `json extraction failed: ${joinWarnings(partWarnings) ?? 'no valid answer'}`, usage, chunks: pieces.length };
  if (parts.length === 1) return withWarning({ value: parts[0], usage, chunks: pieces.length }, partWarnings);

  const merged = mergeExtractions(parts, request.schema);
  if (merged.conflicts.length === 0) return withWarning({ value: merged.value, usage, chunks: pieces.length }, partWarnings);
  const reduced = await resolveConflicts(llm, request, { ...opts, feature }, merged.value, merged.conflicts, parts);
  usage = addUsage(usage, reduced.usage);
  return withWarning({ value: reduced.value, usage, chunks: pieces.length }, [...partWarnings, reduced.warning]);
}

function withWarning(result: ExtractJsonResult, warnings: ReadonlyArray<string | undefined>): ExtractJsonResult {
  const warning = joinWarnings(warnings);
  return warning ? { ...result, warning: `json extraction: ${warning}` } : result;
}

/** The answer of the reduce call: for each field, the index of the candidate the page supports. */
interface Choices { choices: Array<{ field: string; candidate: number }> }

const CHOICES_SCHEMA = {
  type: 'object',
  properties: {
    choices: {
      type: 'array',
      items: {
        type: 'object',
        properties: { field: { type: 'string' }, candidate: { type: 'integer' } },
        required: ['field', 'candidate'],
        additionalProperties: false,
      },
    },
  },
  required: ['choices'],
  additionalProperties: false,
};

/**
 * One call for every scalar field the parts disagree on: the model is given the candidate values (in
 * page order) and answers with an index per field, so the final value is always one the page gave.
 * A bad answer keeps the merge's choice (the first part's value) with a warning.
 */
async function resolveConflicts(
  llm: Llm, request: ExtractJsonRequest, opts: Omit<LlmCallOptions, 'feature'> & { feature: LlmCallOptions['feature'] },
  merged: unknown, conflicts: readonly string[], parts: readonly unknown[],
): Promise<{ value: unknown; usage: LlmUsage; warning?: string }> {
  const fields = conflicts.map((path) => {
    const keys = pathKeys(path);
    const candidates: unknown[] = [];
    for (const part of parts) {
      const v = getAt(part, keys);
      if (v !== undefined && v !== null && v !== '' && !candidates.some((c) => JSON.stringify(c) === JSON.stringify(v))) candidates.push(v);
    }
    return { field: path, keys, candidates };
  }).filter((f) => f.keys.length > 0 && f.candidates.length > 1);
  if (fields.length === 0) return { value: merged, usage: NO_USAGE };
  const instructions = [
    request.systemPrompt,
    'Parts of one web page were extracted separately and disagree on some fields. For each field, choose the candidate value that the page as a whole supports (e.g. the main item rather than a related one).',
    'Answer with the field name as given and the 0-based index of the chosen candidate.',
    PAGE_IS_DATA,
    request.prompt ? `The user's request was:\n${request.prompt}` : undefined,
  ].filter(Boolean).join('\n\n');
  const content = JSON.stringify({ fields: fields.map((f) => ({ field: f.field, candidates: f.candidates })) }, null, 1);
  const answer = await llm.structured<Choices>({ ...opts, instructions, content, schema: CHOICES_SCHEMA, schemaName: 'choices' });
  if (answer.value === null) return { value: merged, usage: answer.usage, warning: `conflicting values kept from the first part (${answer.warning ?? 'no valid answer'})` };
  let value = merged;
  for (const choice of answer.value.choices) {
    const field = fields.find((f) => f.field === choice.field);
    const chosen = field?.candidates[choice.candidate];
    if (field && chosen !== undefined) value = setAt(value, field.keys, chosen);
  }
  return { value, usage: answer.usage };
}

/** The keys of a JSON path in any usual spelling: `$.a.b[0]`, `a.b.0`, `/a/b/0`, `a["b"]`. */
export function pathKeys(path: string): Array<string | number> {
  const keys: Array<string | number> = [];
  for (const m of path.matchAll(/\[\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|(\d+))\s*\]|([^.[\]/]+)/g)) {
    const key = m[1] ?? m[2] ?? m[3] ?? m[4];
    if (key === undefined || (key === '$' && keys.length === 0 && m[4] !== undefined)) continue;
    keys.push(m[3] !== undefined || /^\d+$/.test(key) ? Number(key) : key);
  }
  return keys;
}

function getAt(value: unknown, keys: ReadonlyArray<string | number>): unknown {
  let cur = value;
  for (const k of keys) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[k];
  }
  return cur;
}

/** A copy of `value` with `keys` set to `v` (containers on the way copied, never created). */
function setAt(value: unknown, keys: ReadonlyArray<string | number>, v: unknown): unknown {
  if (keys.length === 0) return v;
  if (value === null || typeof value !== 'object') return value;
  const [head, ...rest] = keys as [string | number, ...Array<string | number>];
  if (Array.isArray(value)) {
    if (typeof head !== 'number' || head >= value.length) return value;
    const copy = [...value];
    copy[head] = setAt(copy[head], rest, v);
    return copy;
  }
  const copy = { ...value as Record<string, unknown> };
  if (!Object.hasOwn(copy, head)) return value;
  copy[head] = setAt(copy[head], rest, v);
  return copy;
}
