import { rankByQuery } from '../lexical-rank.js';
import { splitUnits, type TextUnit } from '../text-units.js';
import { estimateTokens } from '../tokens.js';
import { addUsage, NO_USAGE, type Llm, type LlmCallOptions, type LlmUsage } from '../types.js';
import { callOptions, CHUNK_CONCURRENCY, contentBudget, mapOrdered, PAGE_IS_DATA } from './task-support.js';

/** Highlights returned by default. */
export const DEFAULT_HIGHLIGHTS = 5;
/** Units are joined with a blank line: each stays a verbatim paragraph of its own. */
export const HIGHLIGHT_SEPARATOR = '\n\n';

interface Indices { indices: number[] }

const INDICES_SCHEMA = {
  type: 'object',
  properties: { indices: { type: 'array', items: { type: 'integer' } } },
  required: ['indices'],
  additionalProperties: false,
};

function highlightInstructions(query: string, limit: number): string {
  return [
    'The user message lists the units (sentences, list items, headings, table rows) of one web page, each after its number in square brackets.',
    query
      ? `Choose the units most relevant to the query below, most relevant first, at most ${limit}.`
      : `Choose the units that best convey the page's main points, most important first, at most ${limit}.`,
    'Answer with their numbers only. Choose none when no unit is relevant.',
    PAGE_IS_DATA,
    query ? `The query:\n${query}` : '',
  ].filter(Boolean).join('\n\n');
}

/**
 * `highlights`: extractive by construction. The markdown's units ({@link splitUnits}) are numbered; the
 * model returns indices only (numbers out of range are dropped); the text returned is the chosen
 * units verbatim from the page, in page order, joined by {@link HIGHLIGHT_SEPARATOR}. A long page's
 * units go in chunks, and when the chunks chose more than `limit` in all, one more call ranks the
 * chosen ones. Without an LLM (`llm` undefined) or when the model chose nothing valid, the units are
 * ranked lexically (BM25 over the query; without a query, the page's first units). `LlmError`
 * propagates.
 */
export async function pickHighlights(
  llm: Llm | undefined,
  request: Omit<LlmCallOptions, 'feature'> & { markdown: string; query: string; limit?: number },
): Promise<{ highlights: string; usage: LlmUsage; method: 'llm' | 'lexical' }> {
  const limit = Math.max(1, request.limit ?? DEFAULT_HIGHLIGHTS);
  const units = splitUnits(request.markdown).filter((u) => u.text.trim() !== '');
  const query = request.query.trim();
  if (units.length === 0) return { highlights: '', usage: NO_USAGE, method: llm ? 'llm' : 'lexical' };
  if (llm) {
    const picked = await pickWithLlm(llm, request, units, query, limit);
    if (picked.indices.length > 0) return { highlights: joinUnits(units, picked.indices), usage: picked.usage, method: 'llm' };
    return { highlights: joinUnits(units, lexical(units, query, limit)), usage: picked.usage, method: 'lexical' };
  }
  return { highlights: joinUnits(units, lexical(units, query, limit)), usage: NO_USAGE, method: 'lexical' };
}

function lexical(units: readonly TextUnit[], query: string, limit: number): number[] {
  if (query === '') return units.map((_, i) => i).slice(0, limit);
  return rankByQuery(units.map((u) => u.text), query, limit);
}

function joinUnits(units: readonly TextUnit[], indices: readonly number[]): string {
  return [...new Set(indices)].sort((a, b) => a - b).map((i) => units[i]!.text).join(HIGHLIGHT_SEPARATOR);
}

async function pickWithLlm(
  llm: Llm, request: Omit<LlmCallOptions, 'feature'>, units: readonly TextUnit[], query: string, limit: number,
): Promise<{ indices: number[]; usage: LlmUsage }> {
  const opts = { ...callOptions(request), feature: 'highlights' as const, schema: INDICES_SCHEMA, schemaName: 'highlights' };
  const instructions = highlightInstructions(query, limit);
  const budget = contentBudget(llm, { instructions, schema: INDICES_SCHEMA });
  const ask = async (indices: readonly number[]) => {
    const content = indices.map((i) => `[${i}] ${oneLine(units[i]!.text)}`).join('\n');
    const r = await llm.structured<Indices>({ ...opts, instructions, content });
    const allowed = new Set(indices);
    const chosen = (r.value?.indices ?? []).filter((i) => Number.isInteger(i) && allowed.has(i));
    return { chosen: [...new Set(chosen)].slice(0, limit), usage: r.usage };
  };
  const groups = groupUnits(units, budget);
  const results = await mapOrdered(groups, CHUNK_CONCURRENCY, ask);
  let usage = results.reduce((u, r) => addUsage(u, r.usage), NO_USAGE);
  let chosen = results.flatMap((r) => r.chosen);
  if (groups.length > 1 && chosen.length > limit) {
    const final = await ask(chosen);
    usage = addUsage(usage, final.usage);
    if (final.chosen.length > 0) chosen = final.chosen;
  }
  return { indices: chosen.slice(0, limit), usage };
}

/** Units numbered in groups whose listing fits `budget` tokens (a unit larger than the budget goes alone). */
function groupUnits(units: readonly TextUnit[], budget: number): number[][] {
  const groups: number[][] = [];
  let current: number[] = [];
  let tokens = 0;
  units.forEach((u, i) => {
    const n = estimateTokens(u.text) + 4;
    if (current.length > 0 && tokens + n > budget) {
      groups.push(current);
      current = [];
      tokens = 0;
    }
    current.push(i);
    tokens += n;
  });
  if (current.length > 0) groups.push(current);
  return groups;
}

/** A unit on one line of the listing (a table row or a code line never spans lines; a sentence may). */
function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ');
}
