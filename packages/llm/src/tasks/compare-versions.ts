import { estimateTokens } from '../tokens.js';
import { addUsage, NO_USAGE, type JsonSchema, type Llm, type LlmCallOptions, type LlmUsage } from '../types.js';
import { extractJson } from './extract-json.js';
import { callOptions, contentBudget, PAGE_IS_DATA } from './task-support.js';

/**
 * The account of a change without a schema or prompt (`changeTracking.json` then):
 * `{summary: string, changes: [{kind: 'added' | 'removed' | 'changed', text: string}]}`: one sentence
 * or two on what changed, and the changes one by one in page order.
 */
export interface ChangeAccount {
  summary: string;
  changes: Array<{ kind: 'added' | 'removed' | 'changed'; text: string }>;
}

const ACCOUNT_SCHEMA = {
  type: 'object',
  properties: {
    summary: { type: 'string' },
    changes: {
      type: 'array',
      items: {
        type: 'object',
        properties: { kind: { type: 'string', enum: ['added', 'removed', 'changed'] }, text: { type: 'string' } },
        required: ['kind', 'text'],
        additionalProperties: false,
      },
    },
  },
  required: ['summary', 'changes'],
  additionalProperties: false,
};

const ACCOUNT_RULES = [
  'The user message holds two versions of one web page in markdown: the previous one and the current one (when they are long, only the lines around what differs, with the common lines left out).',
  'Say what changed from the previous version to the current one: a short summary, and each change (kind "added", "removed" or "changed") with a short description naming the values as the page gives them.',
  'Report only differences between the two versions; ignore formatting. An empty list of changes is right when nothing of substance changed.',
  PAGE_IS_DATA,
].join('\n\n');

const LEFT_OUT = '[... common lines left out ...]';
/** Lines of context kept around the differing middle of two versions. */
const CONTEXT_LINES = 3;

/**
 * `changeTracking` mode `json`. With `schema` or `prompt`: extracts the previous and the current
 * version ({@link extractJson}) and reports `{field: {previous, current}}` for the top-level fields whose
 * values differ (deep equality; a non-object extraction is compared whole under the field `value`);
 * `{}` when nothing changed. Without either: a {@link ChangeAccount} from one call. Equal versions cost
 * no call; an empty version (new page, removed page) is not extracted: its fields are null.
 * `LlmError` propagates; a bad answer gives `json: null` and a warning.
 */
export async function compareVersions(
  llm: Llm,
  request: Omit<LlmCallOptions, 'feature'> & { previous: string; current: string; schema?: JsonSchema; prompt?: string },
): Promise<{ json: Record<string, unknown> | null; warning?: string; usage: LlmUsage }> {
  const opts = callOptions(request);
  if (request.schema === undefined && request.prompt === undefined) {
    if (request.previous === request.current) return { json: { summary: 'No change.', changes: [] }, usage: NO_USAGE };
    return account(llm, { ...opts, previous: request.previous, current: request.current });
  }
  if (request.previous === request.current) return { json: {}, usage: NO_USAGE };
  const extract = async (markdown: string) => (markdown.trim() === ''
    ? { value: null, usage: NO_USAGE, empty: true }
    : { ...(await extractJson(llm, {
      ...opts, feature: 'change-tracking', markdown,
      ...(request.schema !== undefined ? { schema: request.schema } : {}), ...(request.prompt !== undefined ? { prompt: request.prompt } : {}),
    })), empty: false });
  const previous = await extract(request.previous);
  const current = await extract(request.current);
  const usage = addUsage(previous.usage, current.usage);
  const failed = [previous, current].find((r) => r.value === null && !r.empty);
  if (failed) return { json: null, usage, warning: `changeTracking json: ${'warning' in failed && failed.warning ? failed.warning : 'no valid answer'}` };
  return { json: changedFields(previous.value, current.value), usage };
}

/** `{field: {previous, current}}` for the top-level fields that differ. */
export function changedFields(previous: unknown, current: unknown): Record<string, { previous: unknown; current: unknown }> {
  const out: Record<string, { previous: unknown; current: unknown }> = {};
  if (!isRecord(previous) && !isRecord(current)) {
    if (!deepEqual(previous, current)) out.value = { previous: previous ?? null, current: current ?? null };
    return out;
  }
  const before = isRecord(previous) ? previous : {};
  const after = isRecord(current) ? current : {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const p = before[key] ?? null;
    const c = after[key] ?? null;
    if (!deepEqual(p, c)) out[key] = { previous: p, current: c };
  }
  return out;
}

async function account(
  llm: Llm, request: Omit<LlmCallOptions, 'feature'> & { previous: string; current: string },
): Promise<{ json: Record<string, unknown> | null; warning?: string; usage: LlmUsage }> {
  const budget = contentBudget(llm, { instructions: ACCOUNT_RULES, schema: ACCOUNT_SCHEMA });
  const { previous, current, trimmed } = differingMiddle(request.previous, request.current, budget);
  const content = `=== PREVIOUS VERSION ===\n${previous}\n\n=== CURRENT VERSION ===\n${current}`;
  const answer = await llm.structured<ChangeAccount>({
    ...callOptions(request), feature: 'change-tracking', instructions: ACCOUNT_RULES, content, schema: ACCOUNT_SCHEMA, schemaName: 'changes',
  });
  const warnings = [trimmed ? 'the versions were too long to compare whole; only their beginning around the first difference was compared' : undefined];
  if (answer.value === null) warnings.push(answer.warning ?? 'no valid answer');
  const warning = warnings.filter(Boolean).join('; ');
  return { json: answer.value === null ? null : { ...answer.value }, usage: answer.usage, ...(warning ? { warning: `changeTracking json: ${warning}` } : {}) };
}

/**
 * The two versions without their common leading and trailing lines (a few kept as context), cut to
 * `budget` tokens together when still too long: a cheap linear stand-in for a diff.
 */
function differingMiddle(previous: string, current: string, budget: number): { previous: string; current: string; trimmed: boolean } {
  if (estimateTokens(previous) + estimateTokens(current) <= budget) return { previous, current, trimmed: false };
  const a = previous.split('\n');
  const b = current.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const start = Math.max(0, head - CONTEXT_LINES);
  const keep = Math.max(0, tail - CONTEXT_LINES);
  const mid = (lines: string[]) => [
    ...(start > 0 ? [LEFT_OUT] : []), ...lines.slice(start, lines.length - keep), ...(keep > 0 ? [LEFT_OUT] : []),
  ].join('\n');
  const p = mid(a);
  const c = mid(b);
  if (estimateTokens(p) + estimateTokens(c) <= budget) return { previous: p, current: c, trimmed: false };
  // Still too long: each version cut to half the budget (characters from the token estimate's ratio).
  const cut = (text: string) => text.slice(0, Math.max(1, Math.floor(text.length * (budget / 2) / Math.max(1, estimateTokens(text)))));
  return { previous: cut(p), current: cut(c), trimmed: true };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Structural equality of JSON values (object key order does not matter). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((v, i) => deepEqual(v, (b as unknown[])[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
