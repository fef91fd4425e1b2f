import type { Llm, LlmCallOptions, LlmUsage } from '../types.js';

/** The answer when the page does not contain one. */
export const NOT_IN_PAGE_ANSWER = 'Not found in the page.';

/** `question` -> `answer`, from the page only. TODO(helper llm-features). */
export async function answerQuestion(llm: Llm, request: Omit<LlmCallOptions, 'feature'> & { markdown: string; question: string }): Promise<{ answer: string; usage: LlmUsage }> {
  void llm; void request;
  throw new Error('not implemented');
}
