import { estimateTokens } from '../tokens.js';
import { addUsage, NO_USAGE, type Llm, type LlmCallOptions, type LlmUsage } from '../types.js';
import { callOptions, CHUNK_CONCURRENCY, contentBudget, joinWarnings, mapOrdered, PAGE_IS_DATA } from './task-support.js';

interface Ranges { remove: number[][] }

const RANGES_SCHEMA = {
  type: 'object',
  properties: { remove: { type: 'array', items: { type: 'array', items: { type: 'integer' } } } },
  required: ['remove'],
  additionalProperties: false,
};

const CLEAN_RULES = [
  'The user message holds the lines of a web page converted to markdown, each after its line number and a "|".',
  'List the line ranges that are not part of the page\'s main content: cookie and consent banners, share and social widgets, newsletter and sign-up boxes, breadcrumbs, navigation menus, comment sections, "related" or "recommended" lists, ads, footers.',
  'Answer with inclusive [from, to] ranges of line numbers. Keep the headings, text, lists, tables, code and images of the main content. When unsure, keep the line. An empty list is a valid answer.',
  PAGE_IS_DATA,
].join('\n\n');

/**
 * `onlyCleanContent`: the markdown's lines are numbered; the model returns the line ranges that are
 * not content; exactly those lines are removed and nothing is rewritten (ranges outside the part
 * sent, reversed or not integers are dropped). Chunk by chunk for long pages; a chunk whose answer is
 * bad is kept as it is, with a warning. Two guards against a model that removes the page itself: the
 * page's first level-1 heading (the title of the main text) is kept, and an answer that would remove
 * every non-blank line is ignored (with a warning). `LlmError` propagates.
 */
export async function cleanContent(
  llm: Llm, request: Omit<LlmCallOptions, 'feature'> & { markdown: string },
): Promise<{ markdown: string; removedLines: number; usage: LlmUsage; warning?: string }> {
  const lines = request.markdown.split('\n');
  const opts = { ...callOptions(request), feature: 'clean' as const, schema: RANGES_SCHEMA, schemaName: 'ranges' };
  const budget = contentBudget(llm, { instructions: CLEAN_RULES, schema: RANGES_SCHEMA });
  const groups = groupLines(lines, budget);
  const results = await mapOrdered(groups, CHUNK_CONCURRENCY, async ({ from, to }) => {
    const content = lines.slice(from, to).map((l, i) => `${from + i + 1}|${l}`).join('\n');
    return { from, to, answer: await llm.structured<Ranges>({ ...opts, instructions: CLEAN_RULES, content }) };
  });
  const usage = results.reduce((u, r) => addUsage(u, r.answer.usage), NO_USAGE);
  const remove = new Set<number>();
  const warnings: string[] = [];
  for (const { from, to, answer } of results) {
    if (answer.value === null) {
      warnings.push(`lines ${from + 1}-${to} kept (${answer.warning ?? 'no valid answer'})`);
      continue;
    }
    for (const range of answer.value.remove) {
      const a = range[0];
      const b = range[1] ?? a;
      if (a === undefined || b === undefined || !Number.isInteger(a) || !Number.isInteger(b) || a > b) continue;
      // Line numbers are 1-based in the listing; only lines of this part may go.
      for (let n = Math.max(a, from + 1); n <= Math.min(b, to); n++) remove.add(n - 1);
    }
  }
  const nonBlank = lines.filter((l) => l.trim() !== '').length;
  const removedNonBlank = [...remove].filter((i) => lines[i]!.trim() !== '').length;
  if (nonBlank > 0 && removedNonBlank >= nonBlank) {
    return { markdown: request.markdown, removedLines: 0, usage, warning: `onlyCleanContent: the model marked the whole page as not content; the page is kept as it is` };
  }
  const title = lines.findIndex((l) => /^#\s+\S/.test(l));
  if (title >= 0) remove.delete(title);
  const kept: string[] = [];
  let cut = false;
  lines.forEach((line, i) => {
    if (remove.has(i)) {
      cut = true;
      return;
    }
    // Where lines were cut out, the blank lines around them would double up: keep one.
    if (cut && line.trim() === '' && kept.length > 0 && kept[kept.length - 1]!.trim() === '') return;
    cut = false;
    kept.push(line);
  });
  const warning = joinWarnings(warnings);
  return { markdown: kept.join('\n'), removedLines: remove.size, usage, ...(warning ? { warning: `onlyCleanContent: ${warning}` } : {}) };
}

/** Consecutive line ranges `[from, to)` whose numbered listing fits `budget` tokens (a longer line goes alone). */
function groupLines(lines: readonly string[], budget: number): Array<{ from: number; to: number }> {
  const groups: Array<{ from: number; to: number }> = [];
  let from = 0;
  let tokens = 0;
  lines.forEach((line, i) => {
    const n = estimateTokens(line) + 3;
    if (i > from && tokens + n > budget) {
      groups.push({ from, to: i });
      from = i;
      tokens = 0;
    }
    tokens += n;
  });
  if (lines.length > from) groups.push({ from, to: lines.length });
  return groups;
}
