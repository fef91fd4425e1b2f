/** A unit of markdown that can be quoted verbatim: a sentence of a paragraph, a list item, a heading, a table row. */
export interface TextUnit {
  /** The unit's text, verbatim from the markdown. */
  text: string;
  /** 0-based index of the markdown line it starts on. */
  line: number;
}

/** Splits markdown into quotable units (sentences of prose; list items, headings, table rows and code lines whole). TODO(helper llm-pure). */
export function splitUnits(markdown: string): TextUnit[] {
  void markdown;
  throw new Error('not implemented');
}
