import type { JsonSchema, Llm, LlmCallOptions, LlmUsage } from '../types.js';

/**
 * `changeTracking` mode `json`: extracts the previous and the current version (with `schema`/`prompt`)
 * and reports `{field: {previous, current}}` for the fields that changed; without either, a short
 * structured account of what changed. TODO(helper llm-features).
 */
export async function compareVersions(
  llm: Llm,
  request: Omit<LlmCallOptions, 'feature'> & { previous: string; current: string; schema?: JsonSchema; prompt?: string },
): Promise<{ json: Record<string, unknown> | null; warning?: string; usage: LlmUsage }> {
  void llm; void request;
  throw new Error('not implemented');
}
