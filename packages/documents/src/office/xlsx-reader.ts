import { TrawlError } from '@trawl/api-schema';
import type { ParseDocumentOptions, ParsedDocument } from '../types.js';
import { escapeHtml, htmlDocument, safeHref } from './html-text.js';
import { mainPartName, readCoreProperties, readRelationships, relOfType, REL, type Relationship } from './opc-package.js';
import { openPackage } from './open-package.js';
import { CellBudget, cellTextHtml, parseCellRef, SheetGrid } from './sheet-grid.js';
import { decodeOoxmlEscapes, displayValue, valueKind, type ValueKind } from './xlsx-values.js';
import { attr, streamXml, type StreamXmlOptions } from './xml-stream.js';
import type { ZipArchive } from './zip-archive.js';

interface SheetRef {
  name: string;
  hidden: boolean;
  part?: string;
}

interface Workbook {
  sheets: SheetRef[];
  date1904: boolean;
  sharedStrings: string[];
  /** Display kind of each cell style index (`c/@s`). */
  styleKinds: ValueKind[];
}

/**
 * XLSX (SpreadsheetML) -> one `<h2>` per visible sheet followed by its table (first non-empty row as
 * header). Values as Excel shows them: shared and inline strings, numbers, booleans, errors, the cached
 * values of formulas, dates as ISO 8601; merged cells become spans; empty rows and columns are dropped.
 * Hidden sheets are skipped (with a warning). `numPages` counts the sheets read, `totalPages` all sheets.
 */
export async function readXlsx(bytes: Uint8Array, options: ParseDocumentOptions): Promise<ParsedDocument> {
  const { zip, guard } = openPackage(bytes, 'xlsx', options);
  const warnings: string[] = [];
  const xml: StreamXmlOptions = { guard, warnings };
  const main = mainPartName(zip, 'xl/workbook.xml', xml);
  if (!zip.has(main)) throw new TrawlError('DOCUMENT_CORRUPT', 'The package has no workbook part.', { details: { format: 'xlsx' } });
  const book = readWorkbook(zip, main, xml);
  const budget = new CellBudget(options.limits.maxCells);
  const body: string[] = [];
  let read = 0;
  for (const sheet of book.sheets) {
    guard.check();
    if (sheet.hidden) {
      warnings.push(`Sheet "${sheet.name}" is hidden and was skipped.`);
      continue;
    }
    if (read >= options.limits.maxPages) {
      warnings.push(`Only the first ${options.limits.maxPages} sheets were read.`);
      break;
    }
    read++;
    body.push(`<h2>${escapeHtml(sheet.name)}</h2>`);
    if (sheet.part === undefined || !zip.has(sheet.part)) continue;
    const table = readSheet(zip, sheet.part, book, budget, xml).toHtml();
    if (table) body.push(table);
  }
  const metadata = readCoreProperties(zip, xml);
  const title = metadata['title'];
  delete metadata['title'];
  return {
    format: 'xlsx',
    html: htmlDocument({ title, language: metadata['language'], body: body.join('\n') }),
    ...(title !== undefined ? { title } : {}),
    metadata,
    numPages: read,
    totalPages: book.sheets.length,
    ocrPages: 0,
    warnings,
  };
}

function readWorkbook(zip: ZipArchive, main: string, xml: StreamXmlOptions): Workbook {
  const rels = readRelationships(zip, main, xml);
  const sheets: (SheetRef & { rid?: string })[] = [];
  let date1904 = false;
  streamXml(zip, main, {
    open(tag) {
      if (tag.local === 'workbookPr') date1904 = /^(?:1|true)$/.test(attr(tag, 'date1904') ?? '');
      else if (tag.local === 'sheet') {
        const state = attr(tag, 'state');
        sheets.push({ name: attr(tag, 'name') ?? `Sheet${sheets.length + 1}`, hidden: state === 'hidden' || state === 'veryHidden', rid: attr(tag, 'id', 'http://schemas.openxmlformats.org/officeDocument/2006/relationships') ?? attr(tag, 'id') });
      }
    },
  }, xml);
  for (const s of sheets) {
    const rel = s.rid === undefined ? undefined : rels.get(s.rid);
    if (rel && !rel.external && rel.type.endsWith(REL.worksheet)) s.part = rel.target;
  }
  const sst = relOfType(rels, REL.sharedStrings);
  const styles = relOfType(rels, REL.styles);
  return {
    sheets,
    date1904,
    sharedStrings: sst && zip.has(sst.target) ? readSharedStrings(zip, sst.target, xml) : [],
    styleKinds: styles && zip.has(styles.target) ? readStyleKinds(zip, styles.target, xml) : [],
  };
}

/** The shared string table; phonetic runs (`rPh`) are not part of the text. */
function readSharedStrings(zip: ZipArchive, part: string, xml: StreamXmlOptions): string[] {
  const out: string[] = [];
  let buf: string | undefined;
  let inT = false;
  let phonetic = 0;
  streamXml(zip, part, {
    open(tag) {
      if (tag.local === 'si') buf = '';
      else if (tag.local === 'rPh') phonetic++;
      else if (tag.local === 't') inT = true;
    },
    text(t) {
      if (inT && phonetic === 0 && buf !== undefined) buf += t;
    },
    close(tag) {
      if (tag.local === 'si') {
        out.push(decodeOoxmlEscapes(buf ?? ''));
        buf = undefined;
      }
      else if (tag.local === 'rPh') phonetic--;
      else if (tag.local === 't') inT = false;
    },
  }, xml);
  return out;
}

/** The display kind of every cell format (`cellXfs/xf`, by index). */
function readStyleKinds(zip: ZipArchive, part: string, xml: StreamXmlOptions): ValueKind[] {
  const codes = new Map<number, string>();
  const xfIds: number[] = [];
  let inCellXfs = false;
  streamXml(zip, part, {
    open(tag) {
      if (tag.local === 'numFmt') codes.set(Number(attr(tag, 'numFmtId')), attr(tag, 'formatCode') ?? '');
      else if (tag.local === 'cellXfs') inCellXfs = true;
      else if (tag.local === 'xf' && inCellXfs) xfIds.push(Number(attr(tag, 'numFmtId') ?? 0) || 0);
    },
    close(tag) {
      if (tag.local === 'cellXfs') inCellXfs = false;
    },
  }, xml);
  return xfIds.map((id) => valueKind(id, codes.get(id)));
}

/** Streams one worksheet into a sparse grid (a 20 MB sheet is never held as text or a tree). */
function readSheet(zip: ZipArchive, part: string, book: Workbook, budget: CellBudget, xml: StreamXmlOptions): SheetGrid {
  const grid = new SheetGrid(budget);
  const links: { row: number; col: number; rid: string }[] = [];
  let row = -1;
  let col = -1;
  let cell: { type: string; kind: ValueKind; value: string; inline: string } | undefined;
  let reading: 'v' | 't' | undefined;
  let phonetic = 0;
  streamXml(zip, part, {
    open(tag) {
      switch (tag.local) {
        case 'row': row = Number(attr(tag, 'r') ?? row + 2) - 1; col = -1; break;
        case 'c': {
          const ref = parseCellRef(attr(tag, 'r') ?? '');
          if (ref) {
            row = ref.row;
            col = ref.col;
          }
          else col++;
          cell = { type: attr(tag, 't') ?? 'n', kind: book.styleKinds[Number(attr(tag, 's') ?? 0)] ?? 'number', value: '', inline: '' };
          break;
        }
        case 'v': reading = 'v'; break;
        case 't': if (cell && phonetic === 0) reading = 't'; break;
        case 'rPh': phonetic++; break;
        case 'mergeCell': {
          const [a, b] = (attr(tag, 'ref') ?? '').split(':');
          const from = parseCellRef(a ?? '');
          const to = parseCellRef(b ?? '');
          if (from && to) grid.merge(from.row, from.col, to.row, to.col);
          break;
        }
        case 'hyperlink': {
          const ref = parseCellRef((attr(tag, 'ref') ?? '').split(':')[0] ?? '');
          const rid = attr(tag, 'id', 'http://schemas.openxmlformats.org/officeDocument/2006/relationships');
          if (ref && rid) links.push({ ...ref, rid });
          break;
        }
      }
    },
    text(t) {
      if (!cell) return;
      if (reading === 'v') cell.value += t;
      else if (reading === 't') cell.inline += t;
    },
    close(tag) {
      if (tag.local === 'v' || tag.local === 't') reading = undefined;
      else if (tag.local === 'rPh') phonetic--;
      else if (tag.local === 'c' && cell) {
        if (row >= 0 && col >= 0) grid.set(row, col, cellTextHtml(cellText(cell, book)));
        cell = undefined;
      }
    },
  }, xml);
  if (links.length) applyLinks(grid, links, readRelationships(zip, part, xml));
  return grid;
}

function cellText(cell: { type: string; kind: ValueKind; value: string; inline: string }, book: Workbook): string {
  switch (cell.type) {
    case 's': return book.sharedStrings[Number(cell.value)] ?? '';
    case 'inlineStr': return decodeOoxmlEscapes(cell.inline);
    case 'str': return decodeOoxmlEscapes(cell.value);
    case 'b': return cell.value.trim() === '1' ? 'TRUE' : cell.value.trim() === '' ? '' : 'FALSE';
    case 'e': case 'd': return cell.value;
    default: return cell.value.trim() === '' ? '' : displayValue(cell.value.trim(), cell.kind, book.date1904);
  }
}

function applyLinks(grid: SheetGrid, links: { row: number; col: number; rid: string }[], rels: Map<string, Relationship>): void {
  for (const link of links) {
    const html = grid.get(link.row, link.col);
    const rel = rels.get(link.rid);
    const href = rel?.external ? safeHref(rel.target) : undefined;
    if (html !== undefined && href !== undefined) grid.set(link.row, link.col, `<a href="${escapeHtml(href)}">${html}</a>`);
  }
}
