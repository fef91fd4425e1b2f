import type { TextRun } from '../types.js';

/**
 * The intermediate shapes of the layout step. A fragment is a piece of one text line (runs chained on
 * the same baseline with word-sized gaps); a line is what a region's band of fragments reads as; the
 * flow is the page's content in reading order.
 */

/** A run after sanitizing, with the link it lies under. */
export interface LayoutRun extends TextRun {
  href?: string;
  mono: boolean;
}

export interface Fragment {
  runs: LayoutRun[];
  x0: number;
  x1: number;
  y0: number;
  y1: number;
  /** Font size of the fragment's largest run (superscripts do not lower it). */
  fontSize: number;
}

/** A piece of inline content with its formatting. */
export interface Segment {
  text: string;
  href?: string;
  bold: boolean;
  italic: boolean;
}

export interface Line {
  segments: Segment[];
  /** Plain text of the segments. */
  text: string;
  x0: number;
  x1: number;
  y0: number;
  y1: number;
  /** Font size of most of the line's characters. */
  fontSize: number;
  bold: boolean;
  mono: boolean;
  rtl: boolean;
  /** The leaf region (column) the line belongs to; unique in the document. */
  region: number;
  /** Horizontal extent of the region. */
  regionX0: number;
  regionX1: number;
  page: number;
}

export interface TableItem {
  kind: 'table';
  /** rows -> cells -> inline content. */
  rows: Segment[][][];
  rtl: boolean;
  page: number;
}

export type FlowItem = { kind: 'line'; line: Line } | TableItem;
