import type { PageText, TextRun } from '../types.js';

/** Options of {@link parseTesseractTsv}. */
export interface ParseTesseractTsvOptions {
  /** 1-based page number given to the page. */
  pageNumber: number;
  /** Words below this confidence (0..100) are dropped. Default 0: every word is kept. */
  minConfidence?: number;
  /**
   * Words without a letter or digit below this confidence are dropped. Default 30: table rules,
   * borders, specks and pictures come out as `|`, `—`, `~` or `=` with low confidence, while real
   * punctuation usually sits inside a word.
   */
  symbolConfidence?: number;
  /** Page size when the output has no page row (it always has one in tesseract 4 and 5). */
  fallbackSize?: { width: number; height: number };
}

interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

interface Word extends Box {
  text: string;
  conf: number;
}

/** TSV levels: 1 page, 2 block, 3 paragraph, 4 line, 5 word. */
const LEVEL_PAGE = 1;
const LEVEL_LINE = 4;
const LEVEL_WORD = 5;

const HAS_WORD_CHAR = /[\p{L}\p{N}]/u;
const RTL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]/;
const LATIN_OR_DIGIT = /[\p{Script=Latin}\p{N}]/u;
// Capitals, digits, tall lowercase letters and accents (after NFD) reach the ascender line.
const ASCENDER = /[\p{Lu}\p{Lt}\p{N}bdfhijklt]|\p{M}/u;
const DESCENDER = /[gjpqyQ()[\]{}]/;

/**
 * A font size from the ink height of a line of text. Tesseract's boxes span the ink, so a line of
 * lowercase letters without ascenders is about half as tall as one with both ascenders and descenders;
 * scaling by what the text contains keeps the sizes of lines in one font within a few percent of each
 * other, which is what heading detection in the layout step compares. Ratios are those of common Latin
 * fonts (ascender 0.72 em, x-height 0.5 em, descender 0.22 em); other scripts use 0.9 em.
 */
export function estimateFontSize(inkHeight: number, text: string): number {
  const nfd = text.normalize('NFD');
  let ratio = 0.9;
  if (LATIN_OR_DIGIT.test(nfd)) ratio = (ASCENDER.test(nfd) ? 0.72 : 0.5) + (DESCENDER.test(nfd) ? 0.22 : 0);
  return Math.round((inkHeight / ratio) * 10) / 10;
}

function parseRows(tsv: string): { level: number; key: string; box: Box; conf: number; text: string }[] {
  const rows = [];
  for (const line of tsv.split('\n')) {
    const f = line.split('\t');
    if (f.length < 12 || f[0] === 'level') continue;
    const n = f.slice(0, 11).map(Number);
    if (n.some((v) => !Number.isFinite(v))) continue;
    const [level = 0, page, block, par, lineNum, , left = 0, top = 0, width = 0, height = 0, conf = -1] = n;
    rows.push({
      level,
      key: `${page}/${block}/${par}/${lineNum}`,
      box: { left, top, width, height },
      conf,
      // A word never holds a tab, but keep whatever follows the eleventh one rather than cut it.
      text: f.slice(11).join('\t').replace(/\r$/, ''),
    });
  }
  return rows;
}

/** The runs of one line: word boxes horizontally; vertically the line's box, unless the line is skewed. */
function lineRuns(lineBox: Box | undefined, words: Word[]): TextRun[] {
  const maxWordHeight = Math.max(...words.map((w) => w.height));
  // On a straight line the line box spans the tallest word; a much taller box means the line is
  // skewed, and sharing its height would push every word off its own position.
  const useLine = lineBox !== undefined && lineBox.height <= maxWordHeight * 1.3;
  const fontSize = estimateFontSize(maxWordHeight, words.map((w) => w.text).join(' '));
  return words.map((w) => {
    const run: TextRun = {
      text: w.text,
      x: w.left,
      y: useLine ? lineBox.top : w.top,
      width: w.width,
      height: useLine ? lineBox.height : w.height,
      fontSize,
      bold: false,
      italic: false,
      confidence: Math.round(w.conf * 10) / 10,
    };
    if (RTL.test(w.text)) run.rtl = true;
    return run;
  });
}

/**
 * Tesseract's TSV output (`tesseract ... tsv`) -> one page of positioned words, in tesseract's reading
 * order, in image pixels. Structural rows (confidence -1) give the page size and line boxes; empty
 * words and noise (see the options) are dropped. Only the first page of the output is read.
 */
export function parseTesseractTsv(tsv: string, opts: ParseTesseractTsvOptions): PageText {
  const minConfidence = opts.minConfidence ?? 0;
  const symbolConfidence = opts.symbolConfidence ?? 30;
  let pageSize: { width: number; height: number } | undefined;
  const lineBoxes = new Map<string, Box>();
  const lines = new Map<string, Word[]>();
  for (const row of parseRows(tsv)) {
    if (row.level === LEVEL_PAGE) {
      if (pageSize) break;
      pageSize = { width: row.box.width, height: row.box.height };
    } else if (row.level === LEVEL_LINE) {
      lineBoxes.set(row.key, row.box);
    } else if (row.level === LEVEL_WORD) {
      const text = row.text.trim();
      if (text === '' || row.conf < minConfidence) continue;
      if (row.conf < symbolConfidence && !HAS_WORD_CHAR.test(text)) continue;
      const words = lines.get(row.key) ?? [];
      words.push({ ...row.box, text, conf: row.conf });
      lines.set(row.key, words);
    }
  }
  const runs: TextRun[] = [];
  for (const [key, words] of lines) runs.push(...lineRuns(lineBoxes.get(key), words));
  const { width, height } = pageSize ?? opts.fallbackSize ?? { width: 0, height: 0 };
  return { pageNumber: opts.pageNumber, width, height, runs, links: [], source: 'ocr' };
}
