import type { Llm, LlmCallOptions, LlmUsage } from '../types.js';

/** `summary`: one call when the page fits, else map-reduce over chunks. TODO(helper llm-features). */
export async function summarize(llm: Llm, request: Omit<LlmCallOptions, 'feature'> & { markdown: string }): Promise<{ summary: string; usage: LlmUsage; chunks: number }> {
  void llm; void request;
  throw new Error('not implemented');
}
