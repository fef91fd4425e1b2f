import type { JsonSchema, Llm, LlmCallOptions, LlmUsage } from '../types.js';

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

/**
 * `json` extraction: the page in one call when it fits the context window, else chunked on headings
 * with overlap, each chunk extracted, the parts merged ({@link mergeExtractions}); one reduce call when
 * scalar fields disagree. TODO(helper llm-features).
 */
export async function extractJson(llm: Llm, request: ExtractJsonRequest): Promise<ExtractJsonResult> {
  void llm; void request;
  throw new Error('not implemented');
}
