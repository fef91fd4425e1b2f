import { decodeBytes, normalizeCharsetLabel } from '@trawl/scrape-engine';
import type { ParseDocumentOptions, ParsedDocument } from '../types.js';
import { renderBlocks, type Block, type TableCell } from './blocks.js';
import { htmlDocument } from './html-text.js';
import { hyperlinkFieldTarget } from './hyperlink-field.js';
import { InlineBuilder, type RunFormat } from './inline-builder.js';
import { ParseGuard } from './parse-guard.js';
import { tokenizeRtf } from './rtf-tokenizer.js';

/** Where the text of a group goes. */
type Destination = 'body' | 'skip' | 'meta' | 'fldinst' | 'listtext' | 'fonttbl' | 'stylesheet' | 'date';

interface GroupState {
  dest: Destination;
  /** Metadata key when `dest` is `meta` or `date`. */
  metaKey?: string;
  bold: boolean;
  italic: boolean;
  vertAlign?: 'sup' | 'sub';
  /** Characters to skip after `\uN`. */
  uc: number;
  font?: number;
  href?: string;
  field?: { instr: string };
  /** Inside `\object`: where its `\result` (the displayable rendering) goes. */
  objectResult?: Destination;
}

/** Destinations whose text is never shown. */
const SKIPPED = new Set([
  'colortbl', 'pict', 'header', 'headerl', 'headerr', 'headerf', 'footer', 'footerl', 'footerr', 'footerf', 'footnote', 'annotation',
  'listtable', 'listoverridetable', 'revtbl', 'filetbl', 'rsidtbl', 'xmlnstbl', 'themedata', 'colorschememapping', 'latentstyles',
  'datastore', 'objdata', 'objclass', 'objname', 'nonshppict', 'shpinst', 'sp', 'txe', 'xe', 'tc', 'bkmkstart', 'bkmkend', 'private',
]);
const INFO_FIELDS: Record<string, string> = { title: 'title', author: 'author', subject: 'subject', keywords: 'keywords', doccomm: 'description', company: 'company' };
const SPECIAL: Record<string, string> = {
  emdash: '\u2014', endash: '\u2013', bullet: '\u2022', lquote: '\u2018', rquote: '\u2019', ldblquote: '\u201c', rdblquote: '\u201d',
  emspace: '\u2003', enspace: '\u2002', qmspace: '\u2005', tab: ' ', zwj: '\u200d', zwnj: '\u200c',
};
const FONT_CHARSETS: Record<number, string> = {
  128: 'shift_jis', 129: 'euc-kr', 134: 'gbk', 136: 'big5', 161: 'windows-1253', 162: 'windows-1254', 163: 'windows-1258',
  177: 'windows-1255', 178: 'windows-1256', 186: 'windows-1257', 204: 'windows-1251', 222: 'windows-874', 238: 'windows-1250',
};

/** A Windows code page number as a WHATWG encoding name (windows-1252 when the runtime does not know it). */
function codePageEncoding(cp: number): string {
  const label = cp === 932 ? 'shift_jis' : cp === 936 ? 'gbk' : cp === 949 ? 'euc-kr' : cp === 950 ? 'big5' : cp === 10000 ? 'macintosh'
    : cp === 65001 ? 'utf-8' : cp === 20866 ? 'koi8-r' : `windows-${cp}`;
  return normalizeCharsetLabel(label) ?? 'windows-1252';
}

/**
 * RTF -> semantic HTML with an own tokenizer and an explicit group stack (no recursion). Reads
 * paragraphs, line breaks, bold/italic, super/subscript, `\uN` with `\ucN` fallbacks, `\'hh` bytes in
 * the code page of `\ansicpg` or of the font's `\fcharset`, headings (outline levels and "heading N"
 * styles), list items (`\ls`, `\ilvl`, numbered when the list text is a number), HYPERLINK fields and
 * simple tables (`\trowd`...`\cell`...`\row`); `\info` gives title, author, subject, keywords and dates.
 */
export async function readRtf(bytes: Uint8Array, options: ParseDocumentOptions): Promise<ParsedDocument> {
  const guard = new ParseGuard(options);
  guard.check();
  const reader = new RtfReader(guard);
  for (const token of tokenizeRtf(bytes)) {
    guard.tick();
    reader.token(token);
  }
  const { blocks, metadata } = reader.finish();
  const title = metadata['title'];
  delete metadata['title'];
  return {
    format: 'rtf',
    html: htmlDocument({ title, body: renderBlocks(blocks) }),
    ...(title !== undefined ? { title } : {}),
    metadata,
    numPages: 1,
    ocrPages: 0,
    warnings: [],
  };
}

class RtfReader {
  readonly #blocks: Block[] = [];
  readonly #metadata: Record<string, string> = {};
  readonly #fontCharsets = new Map<number, string>();
  readonly #styleHeadings = new Map<number, number>();
  #encoding = 'windows-1252';
  #stack: GroupState[] = [];
  #state: GroupState = { dest: 'body', bold: false, italic: false, uc: 1 };
  #pending: number[] = [];
  #skipChars = 0;
  #ignorable = false;
  #inline = new InlineBuilder();
  #para: { heading?: number; style?: number; listLevel?: number; inTable: boolean } = { inTable: false };
  /** Text of the `\listtext` group before a list paragraph (`1.`, a bullet): decides ordered or not. */
  #listMarker = '';
  #table?: { rows: TableCell[][]; row: TableCell[]; cell: Block[] };
  #fontDef?: { num: number; charset?: number };
  #styleDef?: { num: number; name: string; outline?: number };
  #date: Record<string, number> = {};
  #metaText = '';

  constructor(private readonly guard: ParseGuard) {}

  token(t: ReturnType<typeof tokenizeRtf> extends Generator<infer T> ? T : never): void {
    if (t.kind === 'hex') {
      if (this.#skipChars > 0) this.#skipChars--;
      else this.#pending.push(t.byte);
      return;
    }
    if (t.kind === 'text') {
      let bytes = t.bytes;
      if (this.#skipChars > 0) {
        const skip = Math.min(this.#skipChars, bytes.length);
        this.#skipChars -= skip;
        bytes = bytes.subarray(skip);
      }
      for (const b of bytes) this.#pending.push(b);
      return;
    }
    this.#flush();
    if (t.kind === 'groupStart') {
      this.#skipChars = 0;
      this.#stack.push(this.#state);
      this.#state = { ...this.#state };
    } else if (t.kind === 'groupEnd') {
      this.#skipChars = 0;
      this.#endGroup();
    } else if (this.#skipChars > 0) {
      this.#skipChars--;
    } else if (t.kind === 'symbol') {
      this.#symbol(t.symbol);
    } else {
      this.#word(t.word, t.param);
    }
  }

  finish(): { blocks: Block[]; metadata: Record<string, string> } {
    this.#flush();
    this.#endParagraph();
    this.#closeTable();
    return { blocks: this.#blocks, metadata: this.#metadata };
  }

  /** Decodes the pending bytes (one multi-byte character can span several `\'hh`) and routes the text. */
  #flush(): void {
    if (this.#pending.length === 0) return;
    const text = decodeBytes(new Uint8Array(this.#pending), this.#encodingNow());
    this.#pending = [];
    this.#emit(text);
  }

  /** The encoding of the current font's `\fcharset`, else the document's code page. */
  #encodingNow(): string {
    const charset = this.#state.font === undefined ? undefined : this.#fontCharsets.get(this.#state.font);
    return charset ?? this.#encoding;
  }

  #emit(text: string): void {
    const s = this.#state;
    switch (s.dest) {
      case 'body': this.#inline.text(text, this.#format()); break;
      case 'meta': this.#metaText += text; break;
      case 'fldinst': if (s.field) s.field.instr += text; break;
      case 'listtext': this.#listMarker += text; break;
      case 'stylesheet': if (this.#styleDef) this.#styleDef.name += text; break;
      default: break;
    }
  }

  #format(): RunFormat {
    return { bold: this.#state.bold, italic: this.#state.italic, vertAlign: this.#state.vertAlign, href: this.#state.href };
  }

  #endGroup(): void {
    const closing = this.#state;
    if (closing.dest === 'meta' && closing.metaKey && this.#stack.at(-1)?.dest !== 'meta') {
      const v = this.#metaText.trim();
      if (v) this.#metadata[closing.metaKey] = v;
      this.#metaText = '';
    } else if (closing.dest === 'date' && closing.metaKey && this.#stack.at(-1)?.dest !== 'date') {
      const d = this.#date;
      if (d['yr']) this.#metadata[closing.metaKey] = `${d['yr']}-${pad(d['mo'] ?? 1)}-${pad(d['dy'] ?? 1)}T${pad(d['hr'] ?? 0)}:${pad(d['min'] ?? 0)}:00`;
      this.#date = {};
    } else if (closing.dest === 'fonttbl' && this.#fontDef) {
      if (this.#fontDef.charset !== undefined && FONT_CHARSETS[this.#fontDef.charset]) this.#fontCharsets.set(this.#fontDef.num, FONT_CHARSETS[this.#fontDef.charset] as string);
      this.#fontDef = undefined;
    } else if (closing.dest === 'stylesheet' && this.#styleDef) this.#endStyle();
    this.#state = this.#stack.pop() ?? { dest: 'body', bold: false, italic: false, uc: 1 };
  }

  #endStyle(): void {
    const def = this.#styleDef;
    this.#styleDef = undefined;
    if (!def) return;
    const name = def.name.replace(/;.*$/s, '').trim().toLowerCase();
    const level = /^heading\s*([1-9])$/.exec(name)?.[1];
    if (level) this.#styleHeadings.set(def.num, Math.min(6, Number(level)));
    else if (name === 'title') this.#styleHeadings.set(def.num, 1);
    else if (def.outline !== undefined && def.outline < 9) this.#styleHeadings.set(def.num, Math.min(6, def.outline + 1));
  }

  #symbol(sym: string): void {
    if (sym === '*') {
      this.#ignorable = true;
      return;
    }
    const text = sym === '~' ? '\u00a0' : sym === '_' ? '\u2011' : sym === '-' ? '' : sym === '\\' || sym === '{' || sym === '}' ? sym : '';
    if (text) this.#emit(text);
  }

  #word(word: string, param: number | undefined): void {
    const ignorable = this.#ignorable;
    this.#ignorable = false;
    const s = this.#state;
    if (this.#destination(word, ignorable)) return;
    if (s.dest === 'skip') return;
    if (s.dest === 'fonttbl') {
      if (word === 'f' && param !== undefined) this.#fontDef = { num: param };
      else if (word === 'fcharset' && this.#fontDef) this.#fontDef.charset = param;
      return;
    }
    if (s.dest === 'stylesheet') {
      if (word === 's' && param !== undefined) this.#styleDef = { num: param, name: '' };
      else if (word === 'outlinelevel' && this.#styleDef) this.#styleDef.outline = param;
      return;
    }
    if (s.dest === 'date') {
      if (['yr', 'mo', 'dy', 'hr', 'min'].includes(word) && param !== undefined) this.#date[word] = param;
      return;
    }
    this.#control(word, param);
  }

  /** Handles destination words; true when the word was one. */
  #destination(word: string, ignorable: boolean): boolean {
    const s = this.#state;
    if (word === 'fonttbl') s.dest = 'fonttbl';
    else if (word === 'stylesheet') s.dest = 'stylesheet';
    else if (word === 'info') s.dest = 'skip';
    else if (INFO_FIELDS[word] && this.#stack.length >= 1) {
      s.dest = 'meta';
      s.metaKey = INFO_FIELDS[word];
    }
    else if (word === 'creatim' || word === 'revtim') {
      s.dest = 'date';
      s.metaKey = word === 'creatim' ? 'created' : 'modified';
    }
    else if (word === 'field') s.field = { instr: '' };
    else if (word === 'fldinst') s.dest = 'fldinst';
    else if (word === 'fldrslt') {
      if (this.#stack.at(-1)?.dest === 'body') s.dest = 'body';
      s.href = hyperlinkFieldTarget(s.field?.instr ?? '') ?? s.href;
    }
    else if (word === 'listtext' || word === 'pntext') {
      s.dest = 'listtext';
      this.#listMarker = '';
    }
    else if (word === 'object') {
      s.objectResult = s.dest === 'body' ? 'body' : 'skip';
      s.dest = 'skip';
    }
    else if (word === 'result') s.dest = s.objectResult ?? 'skip';
    else if (SKIPPED.has(word) || ignorable) s.dest = 'skip';
    else return false;
    return true;
  }

  #control(word: string, param: number | undefined): void {
    const s = this.#state;
    const on = param === undefined || param !== 0;
    switch (word) {
      case 'ansicpg': if (param !== undefined) this.#encoding = codePageEncoding(param); return;
      case 'mac': this.#encoding = codePageEncoding(10000); return;
      case 'u': {
        if (param === undefined) return;
        this.#emit(String.fromCharCode(param < 0 ? param + 65536 : param));
        this.#skipChars = s.uc;
        return;
      }
      case 'uc': s.uc = Math.max(0, Math.min(10, param ?? 1)); return;
      case 'f': s.font = param; return;
      case 'b': s.bold = on; return;
      case 'i': s.italic = on; return;
      case 'super': s.vertAlign = 'sup'; return;
      case 'sub': s.vertAlign = 'sub'; return;
      case 'nosupersub': s.vertAlign = undefined; return;
      case 'plain': s.bold = false; s.italic = false; s.vertAlign = undefined; return;
      case 'par': case 'sect': case 'page': this.#endParagraph(); return;
      case 'line': if (s.dest === 'body') this.#inline.lineBreak(); return;
      // `{\listtext\pard...}` must not reset the paragraph that follows.
      case 'pard': if (s.dest === 'body') this.#para = { inTable: false }; return;
      case 's': this.#para.style = param; return;
      case 'outlinelevel': if (param !== undefined && param < 9) this.#para.heading = Math.min(6, param + 1); return;
      case 'ls': this.#para.listLevel ??= 0; return;
      case 'ilvl': this.#para.listLevel = Math.min(8, param ?? 0); return;
      case 'intbl': this.#para.inTable = true; return;
      case 'trowd': this.#table ??= { rows: [], row: [], cell: [] }; return;
      case 'cell': this.#endCell(); return;
      case 'row': this.#endRow(); return;
      case 'nestcell': this.#emit(' '); return;
    }
    const special = SPECIAL[word];
    if (special !== undefined) this.#emit(special);
  }

  #endParagraph(): void {
    this.#flush();
    const p = this.#para;
    if (!p.inTable) this.#closeTable();
    const heading = p.heading ?? (p.style === undefined ? undefined : this.#styleHeadings.get(p.style));
    const list = p.listLevel === undefined ? undefined : { ordered: /^\s*\(?[0-9A-Za-z]{1,4}[.)]/.test(this.#listMarker), level: p.listLevel };
    const block: Block = { kind: 'paragraph', html: this.#inline.finish(), heading, list };
    this.#listMarker = '';
    if (p.inTable && this.#table) this.#table.cell.push(block);
    else this.#blocks.push(block);
  }

  #endCell(): void {
    this.#table ??= { rows: [], row: [], cell: [] };
    this.#para.inTable = true;
    this.#endParagraph();
    this.#table.row.push({ blocks: this.#table.cell });
    this.#table.cell = [];
  }

  #endRow(): void {
    if (!this.#table) return;
    if (this.#table.row.length) this.#table.rows.push(this.#table.row);
    this.#table.row = [];
  }

  #closeTable(): void {
    const t = this.#table;
    if (!t) return;
    this.#table = undefined;
    if (t.row.length) t.rows.push(t.row);
    if (t.rows.length === 0) return;
    if (t.rows.length > 1) for (const c of t.rows[0] ?? []) c.header = true;
    this.#blocks.push({ kind: 'table', rows: t.rows });
    this.guard.tick();
  }
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
