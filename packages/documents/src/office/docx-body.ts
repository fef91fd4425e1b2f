import type { Block, TableCell } from './blocks.js';
import type { DocxNumbering, DocxStyles } from './docx-styles.js';
import { onOff } from './docx-styles.js';
import { escapeHtml } from './html-text.js';
import { hyperlinkFieldTarget } from './hyperlink-field.js';
import { InlineBuilder, type RunFormat } from './inline-builder.js';
import type { Relationship } from './opc-package.js';
import { attr, type XmlHandler, type XmlTag } from './xml-stream.js';

interface ParagraphState {
  inline: InlineBuilder;
  styleId?: string;
  numId?: string;
  ilvl?: number;
  outlineLevel?: number;
  /** Blocks of text boxes anchored in this paragraph, emitted after it. */
  after: Block[];
}

interface TableState {
  rows: TableCell[][];
  row?: TableCell[];
  col: number;
  headerRow: boolean;
  headerRows: number;
  cell?: TableCell & { merge?: 'restart' | 'continue' };
  /** The cell a vertical merge started in, by grid column. */
  mergeAnchors: Map<number, TableCell>;
}

interface FieldState {
  instr: string;
  inResult: boolean;
  href?: string;
}

/** Context shared by the builders of one document: styles, numbering, and note numbering. */
export interface DocxContext {
  styles: DocxStyles;
  numbering: DocxNumbering;
  /** Display number of each referenced footnote/endnote, keyed `footnote:3`, in order of first reference. */
  noteNumbers: Map<string, number>;
}

/** Elements whose whole subtree carries no text worth reading (or duplicates it: `mc:Fallback`). */
const SKIPPED = new Set(['Fallback', 'sectPr', 'sdtPr', 'sdtEndPr', 'tblPr', 'tblGrid', 'moveFrom', 'del', 'tblStylePr', 'rPrChange', 'pPrChange']);
const MONOSPACE = /courier|consolas|mono|menlo|lucida console|inconsolata|fira code/i;

/**
 * Streams the WordprocessingML of a story (`document.xml`, `footnotes.xml`) into blocks. Paragraph
 * and run properties are read as they come; tables keep a grid column so `gridSpan` and `vMerge`
 * become colspan/rowspan; `HYPERLINK` fields and `w:hyperlink` become links (relationship targets).
 */
export class DocxBodyBuilder implements XmlHandler {
  /** Blocks of the story (for notes parts: blocks of all notes, see `notes`). */
  readonly blocks: Block[] = [];
  /** Notes parts: blocks of each note by id. */
  readonly notes = new Map<string, Block[]>();

  #containers: Block[][] = [this.blocks];
  #paragraphs: ParagraphState[] = [];
  #tables: TableState[] = [];
  #fields: FieldState[] = [];
  #links: (string | undefined)[] = [];
  #run: RunFormat & { rStyle?: string; hidden?: boolean } = {};
  #in = { pPr: 0, rPr: 0, t: false, instr: false };
  #skipDepth = -1;
  #depth = 0;

  constructor(private readonly ctx: DocxContext, private readonly rels: Map<string, Relationship>) {}

  open(tag: XmlTag): void {
    this.#depth++;
    if (this.#skipDepth >= 0) return;
    if (SKIPPED.has(tag.local)) {
      this.#skipDepth = this.#depth;
      return;
    }
    const p = this.#paragraphs.at(-1);
    switch (tag.local) {
      case 'p': this.#paragraphs.push({ inline: new InlineBuilder(), after: [] }); return;
      case 'pPr': this.#in.pPr++; return;
      case 'rPr': this.#in.rPr++; return;
      case 'r': this.#run = {}; return;
      case 't': this.#in.t = true; return;
      case 'instrText': this.#in.instr = true; return;
      case 'tab': if (!this.#in.pPr) p?.inline.text(' ', this.#format()); return;
      case 'br': case 'cr': if (attr(tag, 'type') !== 'page' && attr(tag, 'type') !== 'column') p?.inline.lineBreak(); return;
      case 'noBreakHyphen': p?.inline.text('-', this.#format()); return;
      case 'hyperlink': this.#links.push(this.#hyperlinkTarget(tag)); return;
      case 'fldSimple': this.#fields.push({ instr: attr(tag, 'instr') ?? '', inResult: true, href: hyperlinkFieldTarget(attr(tag, 'instr') ?? '') }); return;
      case 'fldChar': this.#fieldChar(attr(tag, 'fldCharType')); return;
      case 'footnoteReference': case 'endnoteReference': this.#noteReference(tag); return;
      case 'footnote': case 'endnote': this.#startNote(tag); return;
      case 'txbxContent': this.#containers.push([]); return;
      case 'tbl': this.#tables.push({ rows: [], col: 0, headerRow: false, headerRows: 0, mergeAnchors: new Map() }); this.#containers.push([]); return;
      case 'tr': this.#startRow(); return;
      case 'tc': this.#startCell(); return;
    }
    if (this.#in.pPr && p) this.#paragraphProperty(p, tag);
    else if (this.#in.rPr) this.#runProperty(tag);
    else this.#tableProperty(tag);
  }

  text(text: string): void {
    if (this.#skipDepth >= 0) return;
    if (this.#in.instr) {
      const f = this.#fields.at(-1);
      if (f && !f.inResult) f.instr += text;
    } else if (this.#in.t && !this.#run.hidden) this.#paragraphs.at(-1)?.inline.text(text, this.#format());
  }

  close(tag: XmlTag): void {
    this.#depth--;
    if (this.#skipDepth >= 0) {
      if (this.#depth < this.#skipDepth) this.#skipDepth = -1;
      return;
    }
    switch (tag.local) {
      case 'p': this.#endParagraph(); break;
      case 'pPr': this.#in.pPr--; break;
      case 'rPr': this.#in.rPr--; break;
      case 't': this.#in.t = false; break;
      case 'instrText': this.#in.instr = false; break;
      case 'hyperlink': this.#links.pop(); break;
      case 'fldSimple': this.#fields.pop(); break;
      case 'footnote': case 'endnote': this.#containers = [this.blocks]; break;
      case 'txbxContent': this.#endTextBox(); break;
      case 'tc': this.#endCell(); break;
      case 'tr': this.#endRow(); break;
      case 'tbl': this.#endTable(); break;
    }
  }

  #format(): RunFormat {
    const style = this.ctx.styles.runFormat(this.#run.rStyle);
    let href: string | undefined;
    for (let i = this.#fields.length - 1; i >= 0 && href === undefined; i--) href = this.#fields[i]?.inResult ? this.#fields[i]?.href : undefined;
    return {
      bold: this.#run.bold ?? style.bold,
      italic: this.#run.italic ?? style.italic,
      code: this.#run.code,
      vertAlign: this.#run.vertAlign,
      href: href ?? this.#links.findLast((l) => l !== undefined),
    };
  }

  #hyperlinkTarget(tag: XmlTag): string | undefined {
    const id = attr(tag, 'id');
    const rel = id === undefined ? undefined : this.rels.get(id);
    return rel?.external ? rel.target : undefined;
  }

  #fieldChar(type: string | undefined): void {
    if (type === 'begin') this.#fields.push({ instr: '', inResult: false });
    else if (type === 'separate') {
      const f = this.#fields.at(-1);
      if (f) {
        f.inResult = true;
        f.href = hyperlinkFieldTarget(f.instr);
      }
    } else if (type === 'end') this.#fields.pop();
  }

  #noteReference(tag: XmlTag): void {
    const id = attr(tag, 'id');
    if (id === undefined) return;
    const key = `${tag.local === 'footnoteReference' ? 'footnote' : 'endnote'}:${id}`;
    let n = this.ctx.noteNumbers.get(key);
    if (n === undefined) this.ctx.noteNumbers.set(key, (n = this.ctx.noteNumbers.size + 1));
    this.#paragraphs.at(-1)?.inline.raw(`<sup>[${n}]</sup>`, `[${n}]`);
  }

  #startNote(tag: XmlTag): void {
    const blocks: Block[] = [];
    this.notes.set(`${tag.local}:${attr(tag, 'id') ?? ''}`, blocks);
    this.#containers = [blocks];
  }

  #paragraphProperty(p: ParagraphState, tag: XmlTag): void {
    const val = attr(tag, 'val');
    if (tag.local === 'pStyle') p.styleId = val;
    else if (tag.local === 'numId') p.numId = val;
    else if (tag.local === 'ilvl') p.ilvl = Number(val) || 0;
    else if (tag.local === 'outlineLvl' && val !== undefined && /^\d$/.test(val)) p.outlineLevel = Number(val);
  }

  #runProperty(tag: XmlTag): void {
    const val = attr(tag, 'val');
    switch (tag.local) {
      case 'rStyle': this.#run.rStyle = val; break;
      case 'b': this.#run.bold = onOff(tag); break;
      case 'i': this.#run.italic = onOff(tag); break;
      case 'vertAlign': this.#run.vertAlign = val === 'superscript' ? 'sup' : val === 'subscript' ? 'sub' : undefined; break;
      case 'vanish': case 'specVanish': this.#run.hidden = onOff(tag); break;
      case 'rFonts': if (MONOSPACE.test(attr(tag, 'ascii') ?? attr(tag, 'hAnsi') ?? '')) this.#run.code = true; break;
    }
  }

  #endParagraph(): void {
    const p = this.#paragraphs.pop();
    if (!p) return;
    const { styles, numbering } = this.ctx;
    const container = this.#containers.at(-1) ?? this.blocks;
    const direct = p.outlineLevel !== undefined && p.outlineLevel < 9 ? Math.min(6, p.outlineLevel + 1) : undefined;
    const heading = direct ?? styles.headingLevel(p.styleId);
    if (styles.isCode(p.styleId) && !heading) {
      container.push({ kind: 'paragraph', html: escapeHtml(p.inline.plainText()), code: true });
    } else {
      const num = p.numId !== undefined ? { numId: p.numId, ilvl: p.ilvl ?? 0 } : styles.numbering(p.styleId);
      const ordered = num ? numbering.ordered(num.numId, p.ilvl ?? num.ilvl) : undefined;
      const list = ordered === undefined || !num ? undefined : { ordered, level: Math.min(8, p.ilvl ?? num.ilvl) };
      container.push({ kind: 'paragraph', html: p.inline.finish(), heading, list });
    }
    container.push(...p.after);
  }

  #endTextBox(): void {
    const blocks = this.#containers.pop() ?? [];
    const p = this.#paragraphs.at(-1);
    if (p) p.after.push(...blocks);
    else (this.#containers.at(-1) ?? this.blocks).push(...blocks);
  }

  #startRow(): void {
    const t = this.#tables.at(-1);
    if (t) {
      t.row = [];
      t.col = 0;
      t.headerRow = false;
    }
  }

  #tableProperty(tag: XmlTag): void {
    const t = this.#tables.at(-1);
    if (!t) return;
    const val = attr(tag, 'val');
    if (tag.local === 'gridBefore' && !t.cell) t.col += Math.max(0, Number(val) || 0);
    else if (tag.local === 'tblHeader' && !t.cell) t.headerRow = onOff(tag);
    else if (tag.local === 'gridSpan' && t.cell) t.cell.colSpan = Math.max(1, Math.min(1000, Number(val) || 1));
    else if (tag.local === 'vMerge' && t.cell) t.cell.merge = val === 'restart' ? 'restart' : 'continue';
  }

  #startCell(): void {
    const t = this.#tables.at(-1);
    if (!t) return;
    t.cell = { blocks: [] };
    this.#containers.push(t.cell.blocks);
  }

  #endCell(): void {
    const t = this.#tables.at(-1);
    const cell = t?.cell;
    this.#containers.pop();
    if (!t || !cell) return;
    t.cell = undefined;
    const span = cell.colSpan ?? 1;
    const anchor = cell.merge === 'continue' ? t.mergeAnchors.get(t.col) : undefined;
    if (anchor) anchor.rowSpan = (anchor.rowSpan ?? 1) + 1;
    else {
      for (let c = t.col; c < t.col + span; c++) t.mergeAnchors.delete(c);
      if (cell.merge === 'restart') t.mergeAnchors.set(t.col, cell);
      delete cell.merge;
      t.row?.push(cell);
    }
    t.col += span;
  }

  #endRow(): void {
    const t = this.#tables.at(-1);
    if (!t?.row) return;
    if (t.headerRow && t.headerRows === t.rows.length) {
      t.headerRows++;
      for (const c of t.row) c.header = true;
    }
    t.rows.push(t.row);
    t.row = undefined;
  }

  #endTable(): void {
    const t = this.#tables.pop();
    this.#containers.pop();
    if (!t) return;
    // Without declared header rows the first row heads the table (the usual Word table).
    if (t.headerRows === 0 && t.rows.length > 1) for (const c of t.rows[0] ?? []) c.header = true;
    (this.#containers.at(-1) ?? this.blocks).push({ kind: 'table', rows: t.rows });
  }
}
