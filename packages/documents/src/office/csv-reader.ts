import { decodeBytes } from '@trawl/scrape-engine';
import type { ParseDocumentOptions, ParsedDocument } from '../types.js';
import { htmlDocument } from './html-text.js';
import { ParseGuard } from './parse-guard.js';
import { CellBudget, cellTextHtml } from './sheet-grid.js';

const DELIMITERS = [',', ';', '\t', '|'] as const;
/** Characters of the file the delimiter is guessed from. */
const SAMPLE_CHARS = 64 * 1024;
/** Records of the sample that vote. */
const SAMPLE_RECORDS = 20;

/**
 * Bytes -> text: UTF-8 or UTF-16 by their byte order mark, else UTF-8 when the bytes are valid UTF-8,
 * else windows-1252 (what spreadsheet programs on Windows write by default).
 */
export function decodeCsvText(bytes: Uint8Array): { text: string; encoding: string } {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { text: new TextDecoder('utf-8').decode(bytes.subarray(3)), encoding: 'utf-8' };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { text: new TextDecoder('utf-16le').decode(bytes.subarray(2)), encoding: 'utf-16le' };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { text: new TextDecoder('utf-16be').decode(bytes.subarray(2)), encoding: 'utf-16be' };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'utf-8' };
  } catch {
    return { text: decodeBytes(bytes, 'windows-1252'), encoding: 'windows-1252' };
  }
}

/**
 * RFC 4180 records: quoted fields with `""` escapes and embedded line breaks, CRLF, LF or CR line
 * ends. Lenient where files are: a quote inside an unquoted field is a literal character, and an
 * unterminated quote runs to the end of the file. `onRecord` returning false stops the parse.
 */
export function parseDelimited(text: string, delimiter: string, onRecord: (fields: string[]) => boolean | void): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    const fields: string[] = [];
    for (;;) {
      let field = '';
      if (text[i] === '"') {
        i++;
        for (;;) {
          const q = text.indexOf('"', i);
          if (q < 0) {
            field += text.slice(i);
            i = n;
            break;
          }
          field += text.slice(i, q);
          i = q + 1;
          if (text[i] !== '"') break;
          field += '"';
          i++;
        }
        // Anything between the closing quote and the delimiter is kept, as spreadsheet programs do.
        const start = i;
        while (i < n && text[i] !== delimiter && text[i] !== '\n' && text[i] !== '\r') i++;
        field += text.slice(start, i);
      } else {
        const start = i;
        while (i < n && text[i] !== delimiter && text[i] !== '\n' && text[i] !== '\r') i++;
        field = text.slice(start, i);
      }
      fields.push(field);
      if (i < n && text[i] === delimiter) i++;
      else break;
    }
    if (text[i] === '\r') i++;
    if (text[i] === '\n') i++;
    if (onRecord(fields) === false) return;
  }
}

/** The delimiter whose records in the sample have the most consistent count of fields (more than one). */
export function detectDelimiter(text: string): string {
  const sample = text.slice(0, SAMPLE_CHARS);
  let best: { delimiter: string; score: number } = { delimiter: ',', score: 0 };
  for (const delimiter of DELIMITERS) {
    const counts: number[] = [];
    parseDelimited(sample, delimiter, (fields) => {
      if (!(fields.length === 1 && fields[0] === '')) counts.push(fields.length);
      return counts.length < SAMPLE_RECORDS;
    });
    // The last sampled record may be cut by the sample's end: it does not vote unless it is the only one.
    const votes = counts.length > 1 && sample.length < text.length ? counts.slice(0, -1) : counts;
    const tally = new Map<number, number>();
    for (const c of votes) tally.set(c, (tally.get(c) ?? 0) + 1);
    let mode = 1;
    let freq = 0;
    for (const [c, f] of tally) {
      if (f > freq || (f === freq && c > mode)) {
        mode = c;
        freq = f;
      }
    }
    if (mode < 2) continue;
    const score = (freq / votes.length) * 1000 + Math.min(mode, 100);
    if (score > best.score) best = { delimiter, score };
  }
  return best.delimiter;
}

/**
 * CSV/TSV -> one table whose first non-empty record is the header. The delimiter (comma, semicolon,
 * tab or pipe) is detected from the first records; rows are padded to the widest one; empty records
 * are dropped. `limits.maxCells` counts the cells of that rectangular table.
 */
export async function readCsv(bytes: Uint8Array, options: ParseDocumentOptions): Promise<ParsedDocument> {
  const guard = new ParseGuard(options);
  guard.check();
  const { text, encoding } = decodeCsvText(bytes);
  const delimiter = detectDelimiter(text);
  const budget = new CellBudget(options.limits.maxCells);
  const rows: string[][] = [];
  let width = 0;
  parseDelimited(text, delimiter, (fields) => {
    guard.tick();
    let last = fields.length;
    while (last > 0 && (fields[last - 1] ?? '').trim() === '') last--;
    if (last === 0) return;
    budget.take(last);
    width = Math.max(width, last);
    rows.push(fields.slice(0, last).map(cellTextHtml));
  });
  guard.check();
  budget.take(rows.length * width - rows.reduce((n, r) => n + r.length, 0));
  const html = rows.map((row, i) => {
    const tag = i === 0 ? 'th' : 'td';
    const cells = row.map((c) => `<${tag}>${c}</${tag}>`).join('') + `<${tag}></${tag}>`.repeat(width - row.length);
    return `<tr>${cells}</tr>`;
  });
  return {
    format: 'csv',
    html: htmlDocument({ body: rows.length ? `<table>\n${html.join('\n')}\n</table>` : '' }),
    metadata: { encoding, delimiter: delimiter === '\t' ? 'tab' : delimiter },
    numPages: 1,
    totalPages: 1,
    ocrPages: 0,
    warnings: [],
  };
}
