import type { JsonSchema } from './types.js';

/** The merge of per-chunk (or per-page) extractions. */
export interface MergeResult {
  value: unknown;
  /** JSON paths of scalar fields on which the parts disagreed (first non-empty value kept). */
  conflicts: string[];
}

/**
 * Merges extractions of parts of one document (or of several pages): arrays concatenated and
 * de-duplicated (deep equality), objects merged field by field, scalars from the first part that has a
 * non-empty value. A top-level array schema works. Nulls and empty parts are skipped. TODO(helper llm-pure).
 */
export function mergeExtractions(parts: readonly unknown[], schema?: JsonSchema): MergeResult {
  void parts; void schema;
  throw new Error('not implemented');
}
