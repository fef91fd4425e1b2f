import { estimateTokens } from '../tokens.js';
import { addUsage, NO_USAGE, type Llm, type LlmCallOptions, type LlmUsage } from '../types.js';
import { callOptions, CHUNK_CONCURRENCY, contentBudget, mapOrdered, PAGE_IS_DATA, piecesOf } from './task-support.js';

const SUMMARY_RULES = [
  'You summarize one web page in a few sentences of plain prose: what it is about and its main points.',
  'Use only what the page states; do not add facts, opinions or advice.',
  PAGE_IS_DATA,
].join('\n');

const PART_RULES = [
  'You summarize one part of a longer web page in a few sentences of plain prose: its main points.',
  'Use only what the text states; do not add facts, opinions or advice.',
  PAGE_IS_DATA,
].join('\n');

const REDUCE_RULES = [
  'The user message holds summaries of consecutive parts of one web page, in page order.',
  'Write one summary of the whole page in a few sentences of plain prose, from these summaries only; do not add facts.',
  PAGE_IS_DATA,
].join('\n');

/** Most rounds of reducing summaries (each round shrinks the text many times over). */
const MAX_REDUCE_ROUNDS = 4;

/**
 * `summary`: one call when the page fits, else map-reduce: each chunk summarized, then the summaries
 * summarized (in groups that fit, again, until one is left). `LlmError` propagates; an empty answer
 * gives `summary: null` and a warning.
 */
export async function summarize(
  llm: Llm, request: Omit<LlmCallOptions, 'feature'> & { markdown: string },
): Promise<{ summary: string | null; usage: LlmUsage; chunks: number; warning?: string }> {
  const opts = { ...callOptions(request), feature: 'summary' as const };
  const pieces = piecesOf(request.markdown, contentBudget(llm, { instructions: PART_RULES }));
  let usage = NO_USAGE;
  const call = async (instructions: string, content: string): Promise<string> => {
    const r = await llm.text({ ...opts, instructions, content });
    usage = addUsage(usage, r.usage);
    return r.text.trim();
  };
  let texts = pieces.length === 1
    ? [await call(SUMMARY_RULES, pieces[0]!)]
    : await mapOrdered(pieces, CHUNK_CONCURRENCY, (p) => call(PART_RULES, p));
  const reduceBudget = contentBudget(llm, { instructions: REDUCE_RULES });
  for (let round = 0; texts.length > 1 && round < MAX_REDUCE_ROUNDS; round++) {
    const groups = groupToBudget(texts.filter((t) => t !== ''), reduceBudget);
    texts = await mapOrdered(groups, CHUNK_CONCURRENCY, (g) => call(REDUCE_RULES, g.map((t, i) => `Part ${i + 1}:\n${t}`).join('\n\n')));
  }
  const summary = texts.filter((t) => t !== '').join('\n\n');
  if (summary === '') return { summary: null, usage, chunks: pieces.length, warning: 'summary: the model answered nothing' };
  return { summary, usage, chunks: pieces.length };
}

/** Consecutive texts grouped so each group fits `budget` tokens (a group has at least one text; at least two groups merge per round). */
function groupToBudget(texts: readonly string[], budget: number): string[][] {
  const groups: string[][] = [];
  let current: string[] = [];
  let tokens = 0;
  for (const t of texts) {
    const n = estimateTokens(t) + 8;
    if (current.length >= 2 && tokens + n > budget) {
      groups.push(current);
      current = [];
      tokens = 0;
    }
    current.push(t);
    tokens += n;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}
