import { TrawlError } from '@trawl/api-schema';
import type { ParseDocumentOptions, ParsedDocument } from '../types.js';
import { renderBlocks, type Block, type TableCell } from './blocks.js';
import { escapeHtml, htmlDocument } from './html-text.js';
import { InlineBuilder, type RunFormat } from './inline-builder.js';
import { mainPartName, readCoreProperties, readRelationships, REL, type Relationship } from './opc-package.js';
import { openPackage } from './open-package.js';
import { attr, streamXml, type StreamXmlOptions, type XmlHandler, type XmlTag } from './xml-stream.js';

const R_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
/** Placeholders that repeat on every slide (date, footer, slide number, header): not content. */
const BOILERPLATE = new Set(['dt', 'ftr', 'sldNum', 'hdr']);

/**
 * PPTX (PresentationML) -> one `<h2>Slide N: title</h2>` per slide in presentation order
 * (`sldIdLst`), then the text of its shapes in document order: body placeholders as nested lists (by
 * `a:pPr/@lvl`, unless `a:buNone`), other text boxes as paragraphs (lists when they declare bullets),
 * tables with spans. Date, footer and slide-number placeholders are left out. `limits.maxPages`
 * bounds the slides read; `totalPages` is the slide count.
 */
export async function readPptx(bytes: Uint8Array, options: ParseDocumentOptions): Promise<ParsedDocument> {
  const { zip, guard } = openPackage(bytes, 'pptx', options);
  const warnings: string[] = [];
  const xml: StreamXmlOptions = { guard, warnings };
  const main = mainPartName(zip, 'ppt/presentation.xml', xml);
  if (!zip.has(main)) throw new TrawlError('DOCUMENT_CORRUPT', 'The package has no presentation part.', { details: { format: 'pptx' } });
  const rels = readRelationships(zip, main, xml);
  const slideIds: string[] = [];
  streamXml(zip, main, {
    open(tag) {
      if (tag.local === 'sldId') slideIds.push(attr(tag, 'id', R_NS) ?? '');
    },
  }, xml);
  const body: string[] = [];
  let read = 0;
  for (const rid of slideIds) {
    guard.check();
    if (read >= options.limits.maxPages) {
      warnings.push(`Only the first ${options.limits.maxPages} of ${slideIds.length} slides were read.`);
      break;
    }
    read++;
    const rel = rels.get(rid);
    if (!rel || rel.external || !rel.type.endsWith(REL.slide) || !zip.has(rel.target)) {
      warnings.push(`Slide ${read} is missing from the package.`);
      body.push(`<h2>Slide ${read}</h2>`);
      continue;
    }
    const slide = new SlideBuilder(readRelationships(zip, rel.target, xml));
    streamXml(zip, rel.target, slide, xml);
    const title = slide.title();
    body.push(`<h2>${escapeHtml(title ? `Slide ${read}: ${title}` : `Slide ${read}`)}</h2>`, renderBlocks(slide.blocks));
  }
  const metadata = readCoreProperties(zip, xml);
  const title = metadata['title'];
  delete metadata['title'];
  return {
    format: 'pptx',
    html: htmlDocument({ title, language: metadata['language'], body: body.filter((s) => s !== '').join('\n') }),
    ...(title !== undefined ? { title } : {}),
    metadata,
    numPages: read,
    totalPages: slideIds.length,
    ocrPages: 0,
    warnings,
  };
}

interface ShapeState {
  placeholder?: string;
  titleText: string[];
}

interface ParagraphState {
  inline: InlineBuilder;
  level: number;
  bullet?: 'none' | 'char' | 'number';
}

/** Streams one slide's shape tree into blocks; the title placeholder's text is kept apart. */
class SlideBuilder implements XmlHandler {
  readonly blocks: Block[] = [];
  readonly #titles: string[] = [];
  #shape?: ShapeState;
  #para?: ParagraphState;
  #run: RunFormat = {};
  #inText = false;
  #containers: Block[][] = [this.blocks];
  #tables: { rows: TableCell[][]; row?: TableCell[] }[] = [];

  constructor(private readonly rels: Map<string, Relationship>) {}

  title(): string {
    return this.#titles.join(' ').replace(/\s+/g, ' ').trim();
  }

  open(tag: XmlTag): void {
    switch (tag.local) {
      case 'sp': this.#shape = { titleText: [] }; return;
      case 'ph': if (this.#shape) this.#shape.placeholder = attr(tag, 'type') ?? 'obj'; return;
      case 'p': if (tag.uri.includes('drawingml')) this.#para = { inline: new InlineBuilder(), level: 0 }; return;
      case 'pPr': if (this.#para) this.#para.level = Math.min(8, Number(attr(tag, 'lvl') ?? 0) || 0); return;
      case 'buNone': if (this.#para) this.#para.bullet = 'none'; return;
      case 'buChar': case 'buBlip': if (this.#para) this.#para.bullet = 'char'; return;
      case 'buAutoNum': if (this.#para) this.#para.bullet = 'number'; return;
      case 'r': case 'fld': this.#run = {}; return;
      case 'rPr': this.#run = { bold: isOn(attr(tag, 'b')), italic: isOn(attr(tag, 'i')) }; return;
      case 'hlinkClick': this.#link(tag); return;
      case 't': this.#inText = true; return;
      case 'br': this.#para?.inline.lineBreak(); return;
      case 'tbl': this.#tables.push({ rows: [] }); return;
      case 'tr': { const t = this.#tables.at(-1); if (t) t.row = []; return; }
      case 'tc': this.#startCell(tag); return;
    }
  }

  text(text: string): void {
    if (this.#inText) this.#para?.inline.text(text, this.#run);
  }

  close(tag: XmlTag): void {
    switch (tag.local) {
      case 't': this.#inText = false; return;
      case 'p': if (tag.uri.includes('drawingml')) this.#endParagraph(); return;
      case 'sp': this.#shape = undefined; return;
      case 'tc': this.#containers.pop(); return;
      case 'tr': { const t = this.#tables.at(-1); if (t?.row) { t.rows.push(t.row); t.row = undefined; } return; }
      case 'tbl': this.#endTable(); return;
    }
  }

  #link(tag: XmlTag): void {
    const id = attr(tag, 'id', R_NS);
    const rel = id === undefined ? undefined : this.rels.get(id);
    if (rel?.external) this.#run.href = rel.target;
  }

  #startCell(tag: XmlTag): void {
    const t = this.#tables.at(-1);
    const cell: TableCell = { blocks: [] };
    const merged = isOn(attr(tag, 'hMerge')) || isOn(attr(tag, 'vMerge'));
    const colSpan = Number(attr(tag, 'gridSpan') ?? 1);
    const rowSpan = Number(attr(tag, 'rowSpan') ?? 1);
    if (colSpan > 1) cell.colSpan = Math.min(1000, colSpan);
    if (rowSpan > 1) cell.rowSpan = Math.min(1000, rowSpan);
    if (t?.row && !merged) t.row.push(cell);
    this.#containers.push(cell.blocks);
  }

  #endTable(): void {
    const t = this.#tables.pop();
    if (!t) return;
    if (t.rows.length > 1) for (const c of t.rows[0] ?? []) c.header = true;
    (this.#containers.at(-1) ?? this.blocks).push({ kind: 'table', rows: t.rows });
  }

  #endParagraph(): void {
    const p = this.#para;
    this.#para = undefined;
    if (!p) return;
    const shape = this.#tables.length ? undefined : this.#shape;
    const ph = shape?.placeholder;
    if (ph === 'title' || ph === 'ctrTitle') {
      this.#titles.push(p.inline.plainText());
      return;
    }
    if (ph !== undefined && BOILERPLATE.has(ph)) return;
    // Body and content placeholders inherit bullets from the master; free text boxes have none unless declared.
    const bulleted = p.bullet === undefined ? ph === 'body' || ph === 'obj' : p.bullet !== 'none';
    const list = bulleted ? { ordered: p.bullet === 'number', level: p.level } : undefined;
    (this.#containers.at(-1) ?? this.blocks).push({ kind: 'paragraph', html: p.inline.finish(), list });
  }
}

function isOn(v: string | undefined): boolean | undefined {
  return v === undefined ? undefined : v === '1' || v === 'true';
}
