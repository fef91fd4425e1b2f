import type { Block, TableCell } from './blocks.js';
import { renderBlocks } from './blocks.js';
import { escapeHtml } from './html-text.js';
import { InlineBuilder, type RunFormat } from './inline-builder.js';
import type { OdfStyles } from './odf-styles.js';
import type { ParseGuard } from './parse-guard.js';
import { type CellBudget, SheetGrid } from './sheet-grid.js';
import { attr, type XmlHandler, type XmlTag } from './xml-stream.js';

/** Which office:body child is being read. */
export type OdfMode = 'text' | 'spreadsheet' | 'presentation';

interface ParagraphState {
  inline: InlineBuilder;
  heading?: number;
  role?: 'title' | 'code';
  list?: { ordered: boolean; level: number };
  after: Block[];
}

interface TableState {
  rows: TableCell[][];
  row?: TableCell[];
  rowRepeat: number;
  header: boolean;
  cell?: TableCell & { repeat: number; date?: string };
  /** Spreadsheets: the sheet's grid, its name, and the position of the current cell. */
  grid?: SheetGrid;
  name?: string;
  hidden?: boolean;
  r: number;
  c: number;
  rowCells: { col: number; html: string }[];
}

/** Elements whose subtree is not content. */
const SKIPPED = new Set(['annotation', 'tracked-changes', 'note-citation', 'title', 'desc', 'notes', 'sequence-decls', 'forms', 'scripts',
  'font-face-decls', 'table-columns', 'table-column', 'calculation-settings', 'named-expressions', 'database-ranges', 'content-validations']);
/** Presentation frames that repeat on every slide. */
const BOILERPLATE_CLASSES = new Set(['page-number', 'footer', 'date-time', 'header']);
/** Repeated table cells or rows with content are expanded at most this often (empty ones just move the cursor). */
const MAX_REPEAT = 1000;

/** Options of {@link OdfBodyBuilder}. */
export interface OdfBodyOptions {
  mode: OdfMode;
  styles: OdfStyles;
  budget: CellBudget;
  guard: ParseGuard;
  /** Sheets or slides read at most. */
  maxPages: number;
  warnings: string[];
}

/**
 * Streams an ODF `content.xml` into HTML: automatic styles first (fed to {@link OdfStyles}), then the
 * body. Text documents become blocks (headings by outline level, nested lists, tables, notes after the
 * body); spreadsheets a `<h2>` and a table per sheet (through {@link SheetGrid}); presentations a
 * `<h2>Slide N: title</h2>` and the text of the frames per page.
 */
export class OdfBodyBuilder implements XmlHandler {
  readonly blocks: Block[] = [];
  /** Sheets or slides in the file, and those read. */
  pages = 0;
  pagesRead = 0;
  /** True when `maxPages` stopped the reading of sheets or slides. */
  truncated = false;
  readonly #notes: Block[][] = [];
  #containers: Block[][] = [this.blocks];
  #paragraphs: ParagraphState[] = [];
  #formats: RunFormat[] = [];
  #lists: { style?: string }[] = [];
  #tables: TableState[] = [];
  #slide?: { titles: string[]; blocks: Block[] };
  #frames: string[] = [];
  #depth = 0;
  #skipDepth = -1;
  #inBody = false;

  constructor(private readonly opts: OdfBodyOptions) {}

  open(tag: XmlTag): void {
    this.#depth++;
    if (this.#skipDepth >= 0) return;
    if (!this.#inBody) {
      if (tag.local === 'body') this.#inBody = true;
      else this.opts.styles.open(tag);
      return;
    }
    if (SKIPPED.has(tag.local)) {
      this.#skipDepth = this.#depth;
      return;
    }
    const p = this.#paragraphs.at(-1);
    switch (tag.local) {
      case 'h': this.#startParagraph({ heading: Math.min(6, Math.max(1, Number(attr(tag, 'outline-level') ?? 1) || 1)) }); return;
      case 'p': this.#startParagraph({ role: this.opts.styles.paragraphRole(attr(tag, 'style-name')) }); return;
      case 'span': this.#formats.push(this.opts.styles.format(attr(tag, 'style-name'))); return;
      case 'a': this.#formats.push({ href: attr(tag, 'href') }); return;
      case 's': p?.inline.text(' '.repeat(Math.min(8, Number(attr(tag, 'c') ?? 1) || 1)), this.#format()); return;
      case 'tab': p?.inline.text(' ', this.#format()); return;
      case 'line-break': p?.inline.lineBreak(); return;
      case 'list': this.#lists.push({ style: attr(tag, 'style-name') ?? this.#lists.at(-1)?.style }); return;
      case 'note': this.#startNote(p); return;
      case 'note-body': return;
      case 'text-box': this.#containers.push([]); return;
      case 'frame': this.#startFrame(tag); return;
      case 'page': this.#startSlide(); return;
      case 'table': this.#startTable(tag); return;
      case 'table-header-rows': { const t = this.#tables.at(-1); if (t) t.header = true; return; }
      case 'table-row': this.#startRow(tag); return;
      case 'table-cell': this.#startCell(tag); return;
      case 'covered-table-cell': this.#coveredCell(tag); return;
    }
  }

  text(text: string): void {
    if (this.#skipDepth < 0 && this.#inBody) this.#paragraphs.at(-1)?.inline.text(text, this.#format());
  }

  close(tag: XmlTag): void {
    this.#depth--;
    if (this.#skipDepth >= 0) {
      if (this.#depth < this.#skipDepth) this.#skipDepth = -1;
      return;
    }
    if (!this.#inBody) {
      this.opts.styles.close(tag);
      return;
    }
    switch (tag.local) {
      case 'h': case 'p': this.#endParagraph(); return;
      case 'span': case 'a': this.#formats.pop(); return;
      case 'list': this.#lists.pop(); return;
      case 'note': this.#containers.pop(); return;
      case 'text-box': this.#endTextBox(); return;
      case 'frame': this.#frames.pop(); return;
      case 'page': this.#endSlide(); return;
      case 'table': this.#endTable(); return;
      case 'table-header-rows': { const t = this.#tables.at(-1); if (t) t.header = false; return; }
      case 'table-row': this.#endRow(); return;
      case 'table-cell': this.#endCell(); return;
      case 'body': this.#inBody = false; return;
    }
  }

  /** The body HTML and the notes after it. */
  html(): string {
    const notes = this.#notes.map((blocks, i) => ({
      kind: 'paragraph' as const,
      html: `[${i + 1}] ${blocks.map((b) => (b.kind === 'paragraph' ? b.html : '')).filter((h) => h !== '').join(' ')}`,
    }));
    return renderBlocks(notes.length ? [...this.blocks, { kind: 'html', html: '<hr>' }, ...notes] : this.blocks);
  }

  #format(): RunFormat {
    const f: RunFormat = {};
    for (const x of this.#formats) {
      if (x.bold !== undefined) f.bold = x.bold;
      if (x.italic !== undefined) f.italic = x.italic;
      if (x.href !== undefined) f.href = x.href;
    }
    return f;
  }

  #startParagraph(props: Omit<ParagraphState, 'inline' | 'after'>): void {
    this.opts.guard.tick();
    const list = this.#lists.length && !props.heading
      ? { ordered: this.opts.styles.ordered(this.#lists.at(-1)?.style, this.#lists.length), level: this.#lists.length - 1 }
      : undefined;
    this.#paragraphs.push({ ...props, inline: new InlineBuilder(), list, after: [] });
  }

  #endParagraph(): void {
    const p = this.#paragraphs.pop();
    if (!p) return;
    if (this.#slide && this.#frames.at(-1) === 'title') {
      this.#slide.titles.push(p.inline.plainText());
      return;
    }
    const container = this.#containers.at(-1) ?? this.blocks;
    if (p.role === 'code') container.push({ kind: 'paragraph', html: escapeHtml(p.inline.plainText()), code: true });
    else container.push({ kind: 'paragraph', html: p.inline.finish(), heading: p.heading ?? (p.role === 'title' ? 1 : undefined), list: p.list });
    container.push(...p.after);
  }

  #startNote(p: ParagraphState | undefined): void {
    const blocks: Block[] = [];
    this.#notes.push(blocks);
    p?.inline.raw(`<sup>[${this.#notes.length}]</sup>`, `[${this.#notes.length}]`);
    this.#containers.push(blocks);
  }

  #endTextBox(): void {
    const blocks = this.#containers.pop() ?? [];
    const p = this.#paragraphs.at(-1);
    if (p) p.after.push(...blocks);
    else (this.#containers.at(-1) ?? this.blocks).push(...blocks);
  }

  #startFrame(tag: XmlTag): void {
    const cls = attr(tag, 'class') ?? '';
    this.#frames.push(cls);
    if (BOILERPLATE_CLASSES.has(cls)) {
      this.#frames.pop();
      this.#skipDepth = this.#depth;
    }
  }

  #startSlide(): void {
    this.pages++;
    this.opts.guard.check();
    if (this.pagesRead >= this.opts.maxPages) {
      this.truncated = true;
      this.#skipDepth = this.#depth;
      return;
    }
    this.pagesRead++;
    this.#slide = { titles: [], blocks: [] };
    this.#containers.push(this.#slide.blocks);
  }

  #endSlide(): void {
    const slide = this.#slide;
    this.#containers.pop();
    this.#slide = undefined;
    if (!slide) return;
    const title = slide.titles.join(' ').replace(/\s+/g, ' ').trim();
    const n = this.pagesRead;
    this.blocks.push({ kind: 'html', html: `<h2>${escapeHtml(title ? `Slide ${n}: ${title}` : `Slide ${n}`)}</h2>` }, ...slide.blocks);
  }

  #startTable(tag: XmlTag): void {
    const t: TableState = { rows: [], rowRepeat: 1, header: false, r: 0, c: 0, rowCells: [] };
    if (this.opts.mode === 'spreadsheet' && this.#tables.length === 0) {
      this.pages++;
      this.opts.guard.check();
      t.name = attr(tag, 'name') ?? `Sheet${this.pages}`;
      t.hidden = this.opts.styles.hidden(attr(tag, 'style-name'));
      if (t.hidden) this.opts.warnings.push(`Sheet "${t.name}" is hidden and was skipped.`);
      else if (this.pagesRead >= this.opts.maxPages) t.hidden = this.truncated = true;
      // A skipped sheet is not pushed: its subtree, closing tag included, is skipped.
      if (t.hidden) {
        this.#skipDepth = this.#depth;
        return;
      }
      this.pagesRead++;
      t.grid = new SheetGrid(this.opts.budget);
    }
    this.#tables.push(t);
  }

  #startRow(tag: XmlTag): void {
    const t = this.#tables.at(-1);
    if (!t) return;
    t.row = [];
    t.rowCells = [];
    t.c = 0;
    t.rowRepeat = Math.max(1, Number(attr(tag, 'number-rows-repeated') ?? 1) || 1);
  }

  #startCell(tag: XmlTag): void {
    const t = this.#tables.at(-1);
    if (!t) return;
    const colSpan = Number(attr(tag, 'number-columns-spanned') ?? 1) || 1;
    const rowSpan = Number(attr(tag, 'number-rows-spanned') ?? 1) || 1;
    t.cell = { blocks: [], repeat: Math.max(1, Number(attr(tag, 'number-columns-repeated') ?? 1) || 1), header: t.header || undefined };
    if (colSpan > 1) t.cell.colSpan = Math.min(1000, colSpan);
    if (rowSpan > 1) t.cell.rowSpan = Math.min(1000, rowSpan);
    if (attr(tag, 'value-type') === 'date') t.cell.date = attr(tag, 'date-value')?.replace(/T00:00:00$/, '');
    this.#containers.push(t.cell.blocks);
  }

  #coveredCell(tag: XmlTag): void {
    const t = this.#tables.at(-1);
    if (t) t.c += Math.max(1, Number(attr(tag, 'number-columns-repeated') ?? 1) || 1);
    this.#skipDepth = this.#depth;
  }

  #endCell(): void {
    const t = this.#tables.at(-1);
    const cell = t?.cell;
    this.#containers.pop();
    if (!t || !cell) return;
    t.cell = undefined;
    const empty = cell.blocks.every((b) => b.kind === 'paragraph' && b.html === '');
    const repeat = empty ? cell.repeat : Math.min(cell.repeat, MAX_REPEAT);
    if (t.grid) {
      if (!empty) {
        const html = cell.date !== undefined ? escapeHtml(cell.date) : cell.blocks.map((b) => (b.kind === 'paragraph' ? b.html : '')).filter((h) => h !== '').join('<br>');
        for (let k = 0; k < repeat; k++) {
          t.rowCells.push({ col: t.c + k, html });
          if ((cell.colSpan ?? 1) > 1 || (cell.rowSpan ?? 1) > 1) t.grid.merge(t.r, t.c + k, t.r + (cell.rowSpan ?? 1) - 1, t.c + k + (cell.colSpan ?? 1) - 1);
        }
      }
    } else {
      delete cell.date;
      for (let k = 0; k < Math.min(repeat, 64); k++) t.row?.push(k === 0 ? cell : { ...cell });
    }
    t.c += cell.repeat;
  }

  #endRow(): void {
    const t = this.#tables.at(-1);
    if (!t) return;
    if (t.grid) {
      const copies = t.rowCells.length ? Math.min(t.rowRepeat, MAX_REPEAT) : 0;
      for (let k = 0; k < copies; k++) for (const cell of t.rowCells) t.grid.set(t.r + k, cell.col, cell.html);
      t.r += t.rowRepeat;
    } else if (t.row) {
      t.rows.push(t.row);
    }
    t.row = undefined;
  }

  #endTable(): void {
    const t = this.#tables.pop();
    if (!t) return;
    const container = this.#containers.at(-1) ?? this.blocks;
    if (t.name !== undefined) {
      const table = t.grid?.toHtml() ?? '';
      container.push({ kind: 'html', html: `<h2>${escapeHtml(t.name)}</h2>${table ? `\n${table}` : ''}` });
      return;
    }
    if (!t.rows.some((r) => r.some((c) => c.header)) && t.rows.length > 1) for (const c of t.rows[0] ?? []) c.header = true;
    container.push({ kind: 'table', rows: t.rows });
  }
}
