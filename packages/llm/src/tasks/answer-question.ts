import { addUsage, NO_USAGE, type Llm, type LlmCallOptions, type LlmUsage } from '../types.js';
import { callOptions, CHUNK_CONCURRENCY, contentBudget, joinWarnings, mapOrdered, PAGE_IS_DATA, piecesOf } from './task-support.js';

/** The answer when the page does not contain one. */
export const NOT_IN_PAGE_ANSWER = 'Not found in the page.';

/** What the model answers: whether the page answers the question, and the answer. */
interface Found { found: boolean; answer: string }

const FOUND_SCHEMA = {
  type: 'object',
  properties: { found: { type: 'boolean' }, answer: { type: 'string' } },
  required: ['found', 'answer'],
  additionalProperties: false,
};

function questionInstructions(question: string, opts: { part?: boolean; candidates?: boolean } = {}): string {
  return [
    opts.candidates
      ? 'The user message holds answers to the question found in different parts of one web page, in page order. Combine them into one answer to the question, using only what they say.'
      : `You answer a question from ${opts.part ? 'one part of ' : ''}one web page, using only what the page states.`,
    'Set "found" to false and "answer" to an empty string when the page does not answer the question. Never answer from general knowledge and never guess.',
    'Answer concisely, in the language of the question.',
    PAGE_IS_DATA,
    `The question:\n${question}`,
  ].join('\n\n');
}

/**
 * `question` -> `answer`, from the page only: the model says whether the page answers it
 * (`{found, answer}`) and the layer writes {@link NOT_IN_PAGE_ANSWER} when it does not. Long pages:
 * each chunk asked; several answers combined in one more call. `LlmError` propagates; a bad answer
 * gives `answer: null` and a warning.
 */
export async function answerQuestion(
  llm: Llm, request: Omit<LlmCallOptions, 'feature'> & { markdown: string; question: string },
): Promise<{ answer: string | null; usage: LlmUsage; warning?: string }> {
  const opts = { ...callOptions(request), feature: 'answer' as const, schema: FOUND_SCHEMA, schemaName: 'answer' };
  const pieces = piecesOf(request.markdown, contentBudget(llm, { instructions: questionInstructions(request.question, { part: true }), schema: FOUND_SCHEMA }));
  const results = await mapOrdered(pieces, CHUNK_CONCURRENCY, (content) => llm.structured<Found>({
    ...opts, content, instructions: questionInstructions(request.question, { part: pieces.length > 1 }),
  }));
  let usage = results.reduce((u, r) => addUsage(u, r.usage), NO_USAGE);
  const answers = results.flatMap((r) => (r.value?.found === true && r.value.answer.trim() !== '' ? [r.value.answer.trim()] : []));
  const bad = results.filter((r) => r.value === null);
  const warning = joinWarnings(bad.map((r) => r.warning ?? 'no valid answer'));
  if (answers.length === 0) {
    // Every part answered "not found" except some that failed: the answer is unknown, not "absent".
    if (bad.length > 0) return { answer: null, usage, warning: `question: ${warning}` };
    return { answer: NOT_IN_PAGE_ANSWER, usage };
  }
  if (answers.length === 1) return { answer: answers[0]!, usage, ...(warning ? { warning: `question: ${warning}` } : {}) };
  const combined = await llm.structured<Found>({
    ...opts, instructions: questionInstructions(request.question, { candidates: true }),
    content: answers.map((a, i) => `Answer from part ${i + 1}:\n${a}`).join('\n\n'),
  });
  usage = addUsage(usage, combined.usage);
  if (combined.value === null || !combined.value.found || combined.value.answer.trim() === '') {
    // The parts' answers are still the page's: the first one stands.
    return { answer: answers[0]!, usage, warning: `question: answers of several parts not combined (${combined.warning ?? 'no answer'})` };
  }
  return { answer: combined.value.answer.trim(), usage, ...(warning ? { warning: `question: ${warning}` } : {}) };
}
