import { describe, expect, it } from '@jest/globals';
import { estimateFontSize, parseTesseractTsv } from './parse-tesseract-tsv.js';

const HEADER = 'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext';
const row = (...cells: (number | string)[]) => cells.join('\t');
const tsv = (...rows: string[]) => [HEADER, ...rows].join('\n') + '\n';

// Two blocks: a heading line, then a paragraph of two lines; empty words, a -1 row and noise mixed in.
const SAMPLE = tsv(
  row(1, 1, 0, 0, 0, 0, 0, 0, 800, 333, -1, ''),
  row(2, 1, 1, 0, 0, 0, 22, 33, 462, 31, -1, ''),
  row(3, 1, 1, 1, 0, 0, 22, 33, 462, 31, -1, ''),
  row(4, 1, 1, 1, 1, 0, 22, 33, 462, 31, -1, ''),
  row(5, 1, 1, 1, 1, 1, 22, 33, 169, 31, 96.487488, 'Quarterly'),
  row(5, 1, 1, 1, 1, 2, 206, 33, 145, 24, 96.374687, 'Harbour'),
  row(5, 1, 1, 1, 1, 3, 365, 34, 119, 30, 96.516098, 'Report'),
  row(2, 1, 2, 0, 0, 0, 20, 91, 750, 47, -1, ''),
  row(3, 1, 2, 1, 0, 0, 20, 91, 750, 47, -1, ''),
  row(4, 1, 2, 1, 1, 0, 20, 91, 300, 19, -1, ''),
  row(5, 1, 2, 1, 1, 1, 20, 91, 36, 15, 96.07, 'The'),
  row(5, 1, 2, 1, 1, 2, 65, 95, 84, 11, 91.2, 'northern'),
  row(5, 1, 2, 1, 1, 3, 158, 91, 37, 19, 95, 'pier'),
  row(5, 1, 2, 1, 1, 4, 200, 91, 5, 19, 12, '|'),
  row(5, 1, 2, 1, 1, 5, 210, 91, 5, 19, 95, '   '),
  row(4, 1, 2, 1, 2, 0, 20, 119, 260, 19, -1, ''),
  row(5, 1, 2, 1, 2, 1, 20, 119, 60, 19, 4.5, 'weeks'),
  row(5, 1, 2, 1, 2, 2, 90, 119, 40, 15, 55, '—'),
  row(5, 1, 2, 1, 2, 3, 140, 119, 50, 15, 0, 'later'),
);

describe('parseTesseractTsv', () => {
  it('takes the page size from the page row and keeps words in reading order', () => {
    const page = parseTesseractTsv(SAMPLE, { pageNumber: 3 });
    expect(page).toMatchObject({ pageNumber: 3, width: 800, height: 333, links: [], source: 'ocr' });
    expect(page.runs.map((r) => r.text)).toEqual(['Quarterly', 'Harbour', 'Report', 'The', 'northern', 'pier', 'weeks', '—', 'later']);
  });

  it('places words by their own box horizontally and by their line vertically', () => {
    const runs = parseTesseractTsv(SAMPLE, { pageNumber: 1 }).runs;
    expect(runs[4]).toEqual({
      text: 'northern', x: 65, y: 91, width: 84, height: 19, fontSize: 20.2, bold: false, italic: false, confidence: 91.2,
    });
    expect(runs[1]).toMatchObject({ x: 206, y: 33, width: 145, height: 31 });
  });

  it('gives the words of a line one font size', () => {
    const runs = parseTesseractTsv(SAMPLE, { pageNumber: 1 }).runs;
    expect(new Set(runs.slice(0, 3).map((r) => r.fontSize))).toEqual(new Set([33]));
    expect(new Set(runs.slice(3, 6).map((r) => r.fontSize))).toEqual(new Set([20.2]));
  });

  it('drops empty words and low-confidence symbols, keeps low-confidence words and confident symbols', () => {
    const texts = parseTesseractTsv(SAMPLE, { pageNumber: 1 }).runs.map((r) => r.text);
    expect(texts).not.toContain('|');
    expect(texts).not.toContain('');
    expect(texts).toEqual(expect.arrayContaining(['weeks', 'later', '—']));
  });

  it('drops words below minConfidence when asked', () => {
    const texts = parseTesseractTsv(SAMPLE, { pageNumber: 1, minConfidence: 10 }).runs.map((r) => r.text);
    expect(texts).not.toContain('weeks');
    expect(texts).not.toContain('later');
    expect(texts).toContain('northern');
  });

  it('uses word boxes on a skewed line (line box much taller than its words)', () => {
    const page = parseTesseractTsv(tsv(
      row(1, 1, 0, 0, 0, 0, 0, 0, 1000, 500, -1, ''),
      row(4, 1, 1, 1, 1, 0, 10, 100, 900, 60, -1, ''),
      row(5, 1, 1, 1, 1, 1, 10, 140, 100, 20, 90, 'Tilted'),
      row(5, 1, 1, 1, 1, 2, 800, 100, 100, 20, 90, 'Tilted'),
    ), { pageNumber: 1 });
    expect(page.runs.map((r) => [r.y, r.height])).toEqual([[140, 20], [100, 20]]);
  });

  it('reads only the first page and falls back to the given size without a page row', () => {
    const twoPages = tsv(
      row(1, 1, 0, 0, 0, 0, 0, 0, 100, 100, -1, ''),
      row(5, 1, 1, 1, 1, 1, 1, 1, 10, 10, 90, 'one'),
      row(1, 2, 0, 0, 0, 0, 0, 0, 200, 200, -1, ''),
      row(5, 2, 1, 1, 1, 1, 1, 1, 10, 10, 90, 'two'),
    );
    expect(parseTesseractTsv(twoPages, { pageNumber: 1 }).runs.map((r) => r.text)).toEqual(['one']);
    expect(parseTesseractTsv(HEADER + '\n', { pageNumber: 1, fallbackSize: { width: 7, height: 9 } }))
      .toMatchObject({ width: 7, height: 9, runs: [] });
  });

  it('ignores malformed rows and marks right-to-left words', () => {
    const page = parseTesseractTsv(tsv(
      row(1, 1, 0, 0, 0, 0, 0, 0, 100, 100, -1, ''),
      'garbage',
      row(5, 1, 1, 1, 1, 'x', 1, 1, 10, 10, 90, 'bad'),
      row(5, 1, 1, 1, 1, 1, 50, 1, 40, 10, 90, 'שלום'),
    ), { pageNumber: 1 });
    expect(page.runs).toHaveLength(1);
    expect(page.runs[0]).toMatchObject({ text: 'שלום', rtl: true });
  });
});

describe('estimateFontSize', () => {
  it('scales the ink height by the ascenders and descenders the text has', () => {
    // The same 20 px font: "the quay" spans ascender to descender, "same" only the x-height.
    expect(estimateFontSize(18.8, 'the quay')).toBe(20);
    expect(estimateFontSize(10, 'same')).toBe(20);
    expect(estimateFontSize(14.4, 'The')).toBe(20);
    expect(estimateFontSize(14.4, 'été')).toBe(20);
    expect(estimateFontSize(14.4, 'раз')).toBe(16);
  });
});
