import type { Fragment, LayoutRun, Line, Segment } from './model.js';
import { hasSpaceAtJoin, joinsWithoutSpace, normalizeSpaces, rtlShare } from './text-utils.js';

/** Where a line sits: its leaf region (column) and page. */
export interface LinePlace {
  region: number;
  regionX0: number;
  regionX1: number;
  page: number;
}

/**
 * Arabic presentation forms (the shaped glyphs some PDF producers map text to) -> the letters they
 * show, as NFKC does; nothing else is normalized.
 */
function foldPresentationForms(text: string): string {
  return /[\uFB50-\uFDFF\uFE70-\uFEFF]/.test(text) ? text.replace(/[\uFB50-\uFDFF\uFE70-\uFEFE]+/g, (s) => s.normalize('NFKC')) : text;
}

/** True when `b` repeats `a` at (almost) the same place: files that fake bold by drawing text twice. */
const isDuplicate = (a: LayoutRun, b: LayoutRun): boolean =>
  a.text === b.text && Math.abs(a.x - b.x) < 0.3 * a.fontSize && Math.abs(a.y - b.y) < 0.3 * a.fontSize;

const sameFormat = (a: Segment, b: Segment): boolean => a.href === b.href && a.bold === b.bold && a.italic === b.italic;

/** Appends text to a segment list, merging with the last segment when the formatting is the same. */
export function pushSegment(segments: Segment[], seg: Segment): void {
  if (seg.text === '') return;
  const last = segments.at(-1);
  if (last && sameFormat(last, seg)) last.text += seg.text;
  else segments.push({ ...seg });
}

/**
 * Fragments of one visual line -> a {@link Line}. Runs are read left to right (right to left when
 * most letters are RTL); a space goes between two runs only when there is a gap and neither side
 * already has one, and never between two CJK characters.
 */
export function buildLine(frags: Fragment[], place: LinePlace): Line {
  const runs: LayoutRun[] = [];
  for (const f of frags) for (const r of f.runs) runs.push(r);
  runs.sort((a, b) => a.x - b.x);
  let chars = 0;
  let rtlChars = 0;
  for (const r of runs) {
    const n = r.text.length;
    chars += n;
    if (r.rtl || rtlShare(r.text) > 0.5) rtlChars += n;
  }
  const rtl = chars > 0 && rtlChars / chars > 0.5;
  if (rtl) runs.reverse();
  const segments: Segment[] = [];
  let text = '';
  let prev: LayoutRun | undefined;
  let sizeWeight = 0;
  const sizeChars = new Map<number, number>();
  let boldChars = 0;
  let monoChars = 0;
  for (const run of runs) {
    if (prev && isDuplicate(prev, run)) continue;
    const piece = normalizeSpaces(foldPresentationForms(run.text));
    if (prev) {
      const gap = rtl ? prev.x - (run.x + run.width) : run.x - (prev.x + prev.width);
      const em = Math.min(prev.fontSize, run.fontSize);
      if (gap > 0.15 * em && !hasSpaceAtJoin(text, piece) && !joinsWithoutSpace(text, piece)) {
        pushSegment(segments, { text: ' ', href: prev.href === run.href ? run.href : undefined, bold: prev.bold && run.bold, italic: prev.italic && run.italic });
        text += ' ';
      }
    }
    const visible = piece.replace(/\s/g, '').length;
    sizeWeight += visible;
    const size = Math.round(run.fontSize * 10) / 10;
    sizeChars.set(size, (sizeChars.get(size) ?? 0) + visible);
    if (run.bold) boldChars += visible;
    if (run.mono) monoChars += visible;
    pushSegment(segments, { text: piece, href: run.href, bold: run.bold, italic: run.italic });
    text += piece;
    prev = run;
  }
  trimSegments(segments);
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  for (const f of frags) {
    x0 = Math.min(x0, f.x0);
    x1 = Math.max(x1, f.x1);
    y0 = Math.min(y0, f.y0);
    y1 = Math.max(y1, f.y1);
  }
  return {
    segments,
    text: segments.map((s) => s.text).join(''),
    x0, x1, y0, y1,
    fontSize: modalSize(sizeChars) ?? frags[0]?.fontSize ?? 1,
    bold: sizeWeight > 0 && boldChars / sizeWeight >= 0.9,
    mono: sizeWeight > 0 && monoChars / sizeWeight >= 0.9,
    rtl,
    ...place,
  };
}

/** The font size carrying the most characters (superscripts and inline symbols do not shift it). */
function modalSize(sizeChars: Map<number, number>): number | undefined {
  let best: number | undefined;
  let bestChars = 0;
  for (const [size, n] of sizeChars) if (n > bestChars) [best, bestChars] = [size, n];
  return best;
}

/** Removes leading and trailing whitespace of a segment list (and segments left empty). */
export function trimSegments(segments: Segment[]): void {
  while (segments.length && segments[0]!.text.trimStart() === '') segments.shift();
  while (segments.length && segments.at(-1)!.text.trimEnd() === '') segments.pop();
  if (segments.length) {
    segments[0]!.text = segments[0]!.text.trimStart();
    const last = segments.at(-1)!;
    last.text = last.text.trimEnd();
  }
}

/**
 * Splits the fragments of one band into visual lines: fragments whose centres differ by less than
 * half a line share a line. (A band can hold several lines when a tall fragment, a drop capital or an
 * inline formula, overlaps them.)
 */
export function splitBandIntoLines(frags: Fragment[]): Fragment[][] {
  if (frags.length < 2) return [frags];
  const sorted = [...frags].sort((a, b) => (a.y0 + a.y1) - (b.y0 + b.y1));
  const lines: Fragment[][] = [];
  let cur: Fragment[] = [];
  let curCentre = 0;
  let curSize = 0;
  for (const f of sorted) {
    const c = (f.y0 + f.y1) / 2;
    if (cur.length && c - curCentre > 0.5 * Math.min(curSize, f.fontSize)) {
      lines.push(cur);
      cur = [];
    }
    if (cur.length === 0) {
      curCentre = c;
      curSize = f.fontSize;
    }
    cur.push(f);
  }
  if (cur.length) lines.push(cur);
  return lines;
}
