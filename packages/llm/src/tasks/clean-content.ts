import type { Llm, LlmCallOptions, LlmUsage } from '../types.js';

/**
 * `onlyCleanContent`: the model returns the line ranges that are not content; those lines are
 * removed and nothing is rewritten. Chunk by chunk for long pages. TODO(helper llm-features).
 */
export async function cleanContent(llm: Llm, request: Omit<LlmCallOptions, 'feature'> & { markdown: string }): Promise<{ markdown: string; removedLines: number; usage: LlmUsage; warning?: string }> {
  void llm; void request;
  throw new Error('not implemented');
}
