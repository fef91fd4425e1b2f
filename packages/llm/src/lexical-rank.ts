/**
 * Ranks texts against a query with BM25 (Unicode word tokens, case-folded, light stemming); returns
 * the indices of the best `limit` texts with a score above zero, best first. TODO(helper llm-pure).
 */
export function rankByQuery(texts: readonly string[], query: string, limit: number): number[] {
  void texts; void query; void limit;
  throw new Error('not implemented');
}
