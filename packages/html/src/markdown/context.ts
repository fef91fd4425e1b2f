import type { Element, Text } from 'domhandler';

/** State shared by one conversion (and its table-cell sub-conversions). */
export interface ConvertContext {
  /** Base for resolving relative links and images; `null` keeps them as written. */
  readonly base: URL | null;
  /** Collapsed text of every text node (see collapseWhitespace). */
  readonly ws: Map<Text, string>;
  /** Inside a GFM table cell: everything must stay on one line; nested tables are flattened. */
  readonly cellMode: boolean;
  /** How many layout tables (rendered as blocks) enclose this conversion; bounds recursion. */
  readonly tableDepth: number;
}

/** Converts the children of `el` to markdown under `ctx` (injected to avoid an import cycle). */
export type ConvertChildren = (el: Element, ctx: ConvertContext) => string;
