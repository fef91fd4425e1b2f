/** Options of {@link chunkMarkdown}. */
export interface ChunkOptions {
  /** Most tokens per chunk (estimated). */
  maxTokens: number;
  /** Tokens repeated from the end of one chunk at the start of the next. */
  overlapTokens: number;
}

/**
 * Splits markdown into chunks of at most `maxTokens`, on headings first (a chunk starts at a heading
 * when it can), then paragraphs, then lines, then hard cuts; never inside a fenced code block or a
 * table row unless one alone is larger than a chunk. One chunk when it fits. TODO(helper llm-pure).
 */
export function chunkMarkdown(markdown: string, opts: ChunkOptions): string[] {
  void markdown; void opts;
  throw new Error('not implemented');
}
