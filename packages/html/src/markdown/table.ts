import type { Element } from 'domhandler';
import type { ConvertChildren, ConvertContext } from './context.js';

/** Spans above this are treated as 1: real tables never need more, hostile ones would blow up the grid. */
const MAX_SPAN = 64;
/** Tables nested deeper than this are converted as plain blocks by the caller, without recursion. */
export const MAX_TABLE_DEPTH = 32;

interface CellRef {
  readonly el: Element;
  readonly colspan: number;
  readonly rowspan: number;
}

function span(value: string | undefined): number {
  if (value === undefined) return 1;
  const n = Number.parseInt(value, 10);
  return Number.isFinite(n) && n >= 1 && n <= MAX_SPAN ? n : 1;
}

function childElements(el: Element): Element[] {
  const out: Element[] = [];
  for (const c of el.children) if (c.type === 'tag') out.push(c);
  return out;
}

/** Rows of this table (not of nested tables): direct `tr`s and those of thead/tbody/tfoot, thead first. */
function collectRows(table: Element): CellRef[][] {
  const head: Element[] = [];
  const body: Element[] = [];
  for (const child of childElements(table)) {
    if (child.name === 'tr') body.push(child);
    else if (child.name === 'thead') head.push(...childElements(child).filter((r) => r.name === 'tr'));
    else if (child.name === 'tbody' || child.name === 'tfoot') {
      body.push(...childElements(child).filter((r) => r.name === 'tr'));
    }
  }
  const rows: CellRef[][] = [];
  for (const tr of [...head, ...body]) {
    const cells = childElements(tr)
      .filter((c) => c.name === 'td' || c.name === 'th')
      .map((el) => ({ el, colspan: span(el.attribs.colspan), rowspan: span(el.attribs.rowspan) }));
    if (cells.length > 0) rows.push(cells);
  }
  return rows;
}

/** Lays cells out on a grid honouring colspan and rowspan; spanned slots hold `null`. */
function layout(rows: CellRef[][]): { grid: (Element | null)[][]; width: number } {
  const grid: (Element | null)[][] = rows.map(() => []);
  let width = 0;
  rows.forEach((cells, r) => {
    const line = grid[r] as (Element | null)[];
    let col = 0;
    for (const cell of cells) {
      while (line[col] !== undefined) col++;
      for (let dr = 0; dr < cell.rowspan && r + dr < rows.length; dr++) {
        const target = grid[r + dr] as (Element | null)[];
        for (let dc = 0; dc < cell.colspan; dc++) target[col + dc] = dr === 0 && dc === 0 ? cell.el : null;
      }
      col += cell.colspan;
    }
    width = Math.max(width, line.length);
  });
  return { grid, width };
}

function cellText(el: Element, ctx: ConvertContext, convert: ConvertChildren): string {
  const md = convert(el, { ...ctx, cellMode: true, tableDepth: ctx.tableDepth + 1 });
  // One line per cell; a pipe would end the cell early (GFM requires escaping it even in code spans).
  return md.replace(/\s*\n\s*/g, ' ').trim().replace(/(?<!\\)\|/g, '\\|');
}

/**
 * Renders a `<table>` as a GFM table. The first row is the header (GFM has no header-less tables);
 * colspan leaves empty cells after the content, rowspan leaves empty cells below it, short rows are
 * padded. Single-column tables (almost always layout) and tables inside cells are rendered as plain
 * blocks instead. Never throws on malformed structure.
 */
export function renderTable(table: Element, ctx: ConvertContext, convert: ConvertChildren): string {
  const rows = collectRows(table);
  const { grid, width } = layout(rows);
  const captionEl = childElements(table).find((c) => c.name === 'caption');
  const caption = captionEl ? cellText(captionEl, ctx, convert) : '';
  if (width === 0) return caption ? `\n\n${caption}\n\n` : '';
  if (width === 1 || ctx.cellMode) {
    // Layout table: keep the cells' block structure (or flatten when already inside a cell).
    const inner: ConvertContext = { ...ctx, tableDepth: ctx.tableDepth + 1 };
    const parts = rows.flatMap((cells) => cells.map((c) => convert(c.el, inner).trim())).filter((s) => s !== '');
    const sep = ctx.cellMode ? ' ' : '\n\n';
    return `\n\n${caption ? caption + sep : ''}${parts.join(sep)}\n\n`;
  }
  const lines: string[] = [];
  grid.forEach((line, r) => {
    const cells: string[] = [];
    for (let c = 0; c < width; c++) {
      const el = line[c];
      cells.push(el ? cellText(el, ctx, convert) : '');
    }
    lines.push(`| ${cells.join(' | ')} |`);
    if (r === 0) lines.push(`|${' --- |'.repeat(width)}`);
  });
  return `\n\n${caption ? caption + '\n\n' : ''}${lines.join('\n')}\n\n`;
}
