import type { Llm, LlmCallOptions, LlmUsage } from '../types.js';

/**
 * `highlights`: extractive by construction. The markdown's units are numbered; the model returns
 * indices only; the text returned is verbatim from the page. Without an LLM (`llm` undefined), the
 * same units ranked lexically (BM25). TODO(helper llm-features).
 */
export async function pickHighlights(
  llm: Llm | undefined,
  request: Omit<LlmCallOptions, 'feature'> & { markdown: string; query: string; limit?: number },
): Promise<{ highlights: string; usage: LlmUsage; method: 'llm' | 'lexical' }> {
  void llm; void request;
  throw new Error('not implemented');
}
