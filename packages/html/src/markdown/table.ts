import type { CellRef, ConversionContext, MirrorRule, TableLayout } from './context.js';
import type { MirrorElement } from './mirror-node.js';

/** Spans above this are treated as 1: real tables never need more, hostile ones would blow up the grid. */
const MAX_SPAN = 64;


function span(value: string | undefined): number {
  if (value === undefined) return 1;
  const n = Number.parseInt(value, 10);
  return Number.isFinite(n) && n >= 1 && n <= MAX_SPAN ? n : 1;
}

function childElements(el: MirrorElement): MirrorElement[] {
  const out: MirrorElement[] = [];
  for (const c of el.childNodes) if (c.nodeType === 1) out.push(c);
  return out;
}

/**
 * Rows of this table (not of nested tables): direct `tr`s and those of thead/tbody/tfoot, in the order
 * browsers show them: thead first, tfoot last (wherever they stand in the source).
 */
function collectRows(table: MirrorElement): CellRef[][] {
  const head: MirrorElement[] = [];
  const body: MirrorElement[] = [];
  const foot: MirrorElement[] = [];
  for (const child of childElements(table)) {
    if (child.tag === 'tr') body.push(child);
    else if (child.tag === 'thead') head.push(...childElements(child).filter((r) => r.tag === 'tr'));
    else if (child.tag === 'tbody') body.push(...childElements(child).filter((r) => r.tag === 'tr'));
    else if (child.tag === 'tfoot') foot.push(...childElements(child).filter((r) => r.tag === 'tr'));
  }
  const rows: CellRef[][] = [];
  for (const tr of [...head, ...body, ...foot]) {
    const cells = childElements(tr)
      .filter((c) => c.tag === 'td' || c.tag === 'th')
      .map((el) => ({ el, colspan: span(el.attribs.colspan), rowspan: span(el.attribs.rowspan) }));
    if (cells.length > 0) rows.push(cells);
  }
  return rows;
}

/** Lays cells out on a grid honouring colspan and rowspan; spanned slots hold `null`. */
function layout(rows: readonly CellRef[][]): Omit<TableLayout, 'rows' | 'layoutOnly'> {
  const grid: (MirrorElement | null)[][] = rows.map(() => []);
  let width = 0;
  rows.forEach((cells, r) => {
    const line = grid[r] as (MirrorElement | null)[];
    let col = 0;
    for (const cell of cells) {
      while (line[col] !== undefined) col++;
      for (let dr = 0; dr < cell.rowspan && r + dr < rows.length; dr++) {
        const target = grid[r + dr] as (MirrorElement | null)[];
        for (let dc = 0; dc < cell.colspan; dc++) target[col + dc] = dr === 0 && dc === 0 ? cell.el : null;
      }
      col += cell.colspan;
    }
    width = Math.max(width, line.length);
  });
  return { grid, width };
}

function tableOf(cell: MirrorElement): MirrorElement | null {
  for (let p = cell.parentNode; p !== null; p = p.parentNode) if (p.tag === 'table') return p;
  return null;
}

const BLOCK_CONTENT = new Set(['ul', 'ol', 'dl', 'blockquote', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
const PARAGRAPHS = new Set(['p', 'div', 'section', 'article']);

/** Whether a cell holds block content: a list, quote or heading, or two paragraphs or more. */
function holdsBlocks(cell: MirrorElement): boolean {
  let paragraphs = 0;
  const stack: MirrorElement[] = [cell];
  while (stack.length > 0) {
    const el = stack.pop() as MirrorElement;
    for (const c of el.childNodes) {
      if (c.nodeType !== 1) continue;
      if (BLOCK_CONTENT.has(c.tag)) return true;
      if (PARAGRAPHS.has(c.tag) && ++paragraphs >= 2) return true;
      stack.push(c);
    }
  }
  return false;
}

/** Layout of a table, computed once per conversion. */
function tableLayout(table: MirrorElement, ctx: ConversionContext): TableLayout {
  let found = ctx.tables.get(table);
  if (found === undefined) {
    const rows = collectRows(table);
    // A single row of header cells is a (header-only) data table; a single row of plain cells is layout.
    const oneRow = rows.length === 1 && !(rows[0] as CellRef[]).some((c) => c.el.tag === 'th');
    const layoutOnly = oneRow || rows.some((cells) => cells.some((c) => holdsBlocks(c.el)));
    found = { rows, ...layout(rows), layoutOnly };
    ctx.tables.set(table, found);
  }
  return found;
}

/**
 * Whether `node` is inside a cell of a table rendered as a GFM table, where everything must stay on one
 * line (headings, breaks and code blocks render inline; nested tables are flattened).
 */
export function inTableCell(node: MirrorElement, ctx: ConversionContext): boolean {
  for (let p = node.parentNode; p !== null; p = p.parentNode) {
    if (p.tag !== 'td' && p.tag !== 'th') continue;
    let gfm = ctx.cellModes.get(p);
    if (gfm === undefined) {
      const table = tableOf(p);
      const found = table === null ? null : tableLayout(table, ctx);
      gfm = found !== null && found.width >= 2 && !found.layoutOnly;
      ctx.cellModes.set(p, gfm);
    }
    if (gfm) return true;
  }
  return false;
}

/** One line per cell; a pipe would end the cell early (GFM requires escaping it even in code spans). */
function cellLine(markdown: string): string {
  return markdown.replace(/\s*\n\s*/g, ' ').trim().replace(/(?<!\\)\|/g, '\\|');
}

/**
 * Renders a `<table>` from the markdown its cell rules kept. The first row is the header (GFM has no
 * header-less tables); colspan leaves empty cells after the content, rowspan leaves empty cells below it,
 * short rows are padded. Layout tables (one column, one row, or cells holding blocks: see holdsBlocks) and
 * tables inside cells are rendered as their cells' blocks instead. Never throws on malformed structure.
 */
function renderTable(table: MirrorElement, ctx: ConversionContext): string {
  const { rows, grid, width, layoutOnly } = tableLayout(table, ctx);
  const cell = (el: MirrorElement): string => ctx.cells.get(el) ?? '';
  const captionEl = childElements(table).find((c) => c.tag === 'caption');
  const cellMode = inTableCell(table, ctx);
  // The caption stands above the table, not in a row: it keeps its blocks (a heading stays apart from the
  // paragraph after it) unless the whole table is flattened into a cell.
  const captionText = captionEl ? cell(captionEl).trim() : '';
  const caption = cellMode ? cellLine(captionText) : captionText.replace(/\n{3,}/g, '\n\n');
  if (width === 0) return caption ? `\n\n${caption}\n\n` : '';
  if (width === 1 || layoutOnly || cellMode) {
    // Layout table: keep the cells' block structure (or flatten when already inside a cell).
    const parts = rows.flatMap((cells) => cells.map((c) => cell(c.el).trim())).filter((s) => s !== '');
    const sep = cellMode ? ' ' : '\n\n';
    return `\n\n${caption ? caption + sep : ''}${parts.join(sep)}\n\n`;
  }
  const lines: string[] = [];
  grid.forEach((line, r) => {
    const cells: string[] = [];
    for (let c = 0; c < width; c++) {
      const el = line[c];
      cells.push(el ? cellLine(cell(el)) : '');
    }
    lines.push(`| ${cells.join(' | ')} |`);
    if (r === 0) lines.push(`|${' --- |'.repeat(width)}`);
  });
  return `\n\n${caption ? caption + '\n\n' : ''}${lines.join('\n')}\n\n`;
}

/**
 * GFM table rules. Turndown converts children before their parent, so cells and captions keep their
 * markdown in the context and the table rule lays them out (a row's own output is not used). This is
 * what allows rowspan, colspan, ragged rows and `<thead>` after `<tbody>`.
 */
export function tableRules(ctx: ConversionContext): Record<string, MirrorRule> {
  return {
    tableCell: {
      filter: (node) => node.tag === 'td' || node.tag === 'th' || node.tag === 'caption',
      replacement: (content, node) => {
        ctx.cells.set(node, content);
        return `\n\n${content}\n\n`;
      },
    },
    table: {
      filter: (node) => node.tag === 'table',
      replacement: (_content, node) => renderTable(node, ctx),
    },
  };
}
