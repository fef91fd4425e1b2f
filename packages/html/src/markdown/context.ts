import type { MirrorElement } from './mirror-node.js';

/** A table cell with its spans. */
export interface CellRef {
  readonly el: MirrorElement;
  readonly colspan: number;
  readonly rowspan: number;
}

/** A table's cells on a grid (colspan and rowspan applied). */
export interface TableLayout {
  readonly rows: readonly CellRef[][];
  /** Rows of cells; spanned slots hold `null`. */
  readonly grid: readonly (readonly (MirrorElement | null)[])[];
  readonly width: number;
  /**
   * A layout table: one row without header cells, or a cell holding block content (a list, quote, heading, or several
   * paragraphs). Rendered as its cells' blocks, not as a GFM table.
   */
  readonly layoutOnly: boolean;
}

/** State of one conversion, shared by its rules. */
export interface ConversionContext {
  /** Base for resolving relative links and images; `null` keeps them as written. */
  readonly base: URL | null;
  /** Markdown of table cells and captions, kept by their rules for the table rule. */
  readonly cells: Map<MirrorElement, string>;
  /** Layout of each table met, computed once. */
  readonly tables: Map<MirrorElement, TableLayout>;
  /** Whether an element is inside a cell of a table rendered as a GFM table (cached per cell). */
  readonly cellModes: Map<MirrorElement, boolean>;
  /** Whether the markdown holds placeholders to resolve (see emphasis.ts). */
  placeholders: boolean;
}

/**
 * A turndown rule over the mirror DOM (turndown's own typings name the DOM's HTMLElement, which this
 * package does not load; the mirror implements the part of it that turndown uses).
 */
export interface MirrorRule {
  readonly filter: (node: MirrorElement) => boolean;
  readonly replacement: (content: string, node: MirrorElement) => string;
}
