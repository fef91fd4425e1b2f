/** An estimate of a text's tokens without a tokenizer (the model is unknown): conservative for prose, code and CJK. TODO(helper llm-pure). */
export function estimateTokens(text: string): number {
  void text;
  throw new Error('not implemented');
}
