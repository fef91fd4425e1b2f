import { TrawlError } from '@trawl/api-schema';
import { escapeHtml } from './html-text.js';

/** The cells a parse may still read, shared by all sheets of a workbook (`limits.maxCells`). */
export class CellBudget {
  #used = 0;

  constructor(readonly max: number) {}

  /** Takes `n` cells from the budget; throws DOCUMENT_TOO_LARGE `{limit: 'cells'}` once it is exceeded. */
  take(n: number): void {
    this.#used += n;
    if (this.#used > this.max) {
      throw new TrawlError('DOCUMENT_TOO_LARGE', `The spreadsheet has more than ${this.max} cells.`, { details: { limit: 'cells', maxCells: this.max } });
    }
  }
}

/** Cell text as HTML: escaped, line breaks kept. */
export function cellTextHtml(text: string): string {
  return escapeHtml(text.trim()).replace(/\r?\n/g, '<br>');
}

/**
 * A sparse sheet: cells arrive in any order (streamed from XML), only non-empty ones are stored.
 * Rendering keeps the rows and columns that hold a value, so a stray cell in column XFD or row
 * 1,048,576 costs one cell rather than a billion, and merged ranges are re-measured over the kept
 * rows and columns.
 */
export class SheetGrid {
  readonly #rows = new Map<number, Map<number, string>>();
  readonly #merges: { r0: number; c0: number; r1: number; c1: number }[] = [];

  constructor(private readonly budget: CellBudget) {}

  /** Stores a cell's inline HTML (0-based row and column); empty values are ignored. */
  set(row: number, col: number, html: string): void {
    if (html === '') return;
    let cells = this.#rows.get(row);
    if (!cells) this.#rows.set(row, (cells = new Map()));
    if (!cells.has(col)) this.budget.take(1);
    cells.set(col, html);
  }

  get(row: number, col: number): string | undefined {
    return this.#rows.get(row)?.get(col);
  }

  /** A merged range (inclusive, 0-based). */
  merge(r0: number, c0: number, r1: number, c1: number): void {
    if (r1 >= r0 && c1 >= c0 && (r1 > r0 || c1 > c0)) this.#merges.push({ r0, c0, r1, c1 });
  }

  /** The table: first kept row as header cells; '' when the sheet has no value. */
  toHtml(): string {
    if (this.#rows.size === 0) return '';
    const rows = [...this.#rows.keys()].sort((a, b) => a - b);
    const colSet = new Set<number>();
    for (const cells of this.#rows.values()) for (const c of cells.keys()) colSet.add(c);
    const cols = [...colSet].sort((a, b) => a - b);
    // The rendered table is dense: its empty slots count too, so a sparse sheet cannot blow up the output.
    this.budget.take(rows.length * cols.length - this.#countValues());
    const spans = new Map<string, { rowSpan: number; colSpan: number }>();
    const covered = new Set<string>();
    for (const m of this.#merges) {
      if (this.get(m.r0, m.c0) === undefined) continue;
      const keptRows = rows.filter((r) => r >= m.r0 && r <= m.r1);
      const keptCols = cols.filter((c) => c >= m.c0 && c <= m.c1);
      spans.set(`${m.r0},${m.c0}`, { rowSpan: keptRows.length, colSpan: keptCols.length });
      for (const r of keptRows) for (const c of keptCols) if (r !== m.r0 || c !== m.c0) covered.add(`${r},${c}`);
    }
    const out: string[] = [];
    rows.forEach((r, i) => {
      const tag = i === 0 ? 'th' : 'td';
      const cells: string[] = [];
      for (const c of cols) {
        const key = `${r},${c}`;
        if (covered.has(key)) continue;
        const span = spans.get(key);
        const attrs = `${span && span.colSpan > 1 ? ` colspan="${span.colSpan}"` : ''}${span && span.rowSpan > 1 ? ` rowspan="${span.rowSpan}"` : ''}`;
        cells.push(`<${tag}${attrs}>${this.get(r, c) ?? ''}</${tag}>`);
      }
      out.push(`<tr>${cells.join('')}</tr>`);
    });
    return `<table>\n${out.join('\n')}\n</table>`;
  }

  #countValues(): number {
    let n = 0;
    for (const cells of this.#rows.values()) n += cells.size;
    return n;
  }
}

/** `B12` -> {row: 11, col: 1}; undefined when malformed. */
export function parseCellRef(ref: string): { row: number; col: number } | undefined {
  const m = /^\$?([A-Za-z]{1,3})\$?(\d{1,7})$/.exec(ref);
  if (!m || !m[1] || !m[2]) return undefined;
  let col = 0;
  for (const ch of m[1].toUpperCase()) col = col * 26 + (ch.charCodeAt(0) - 64);
  return { row: Number(m[2]) - 1, col: col - 1 };
}

