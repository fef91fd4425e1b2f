import type { PageLink, PageText, TextRun } from '../types.js';
import type { Fragment, LayoutRun } from './model.js';

/** Runs of a page after sanitizing: horizontal ones become fragments, rotated ones are read apart. */
export interface PageFragments {
  fragments: Fragment[];
  /** Runs whose box is much taller than their font (rotated or vertical text, margin stamps). */
  vertical: LayoutRun[];
}

/** Font families whose glyphs are all the same width. */
const MONO_FONT = /mono|courier|consol|menlo|inconsolata|fixed|typewriter|lucida ?console|source ?code|\bcode\b|andale|liberation ?mono|dejavu ?sans ?mono/i;

/** True when a font name or family names a monospace font. */
export function isMonospaceFont(fontName: string | undefined): boolean {
  return fontName !== undefined && MONO_FONT.test(fontName);
}

const finite = (v: number, fallback: number): number => (Number.isFinite(v) ? v : fallback);

/**
 * Copies a run with every number made finite and non-negative, or returns undefined for a run that
 * cannot be placed. Whitespace-only runs are returned as is: the caller folds them into a neighbour.
 */
function sanitizeRun(run: TextRun): LayoutRun | undefined {
  if (typeof run.text !== 'string' || run.text === '') return undefined;
  if (!Number.isFinite(run.x) || !Number.isFinite(run.y)) return undefined;
  const height = Math.max(0, finite(run.height, 0));
  let fontSize = finite(run.fontSize, 0);
  if (fontSize <= 0) fontSize = height > 0 ? height : 1;
  let width = Math.max(0, finite(run.width, 0));
  // A zero-width run with text would make every gap test wrong: estimate half an em per character.
  if (width === 0) width = run.text.length * fontSize * 0.5;
  return { ...run, width, height: height > 0 ? height : fontSize, fontSize, mono: isMonospaceFont(run.fontName) };
}

/** The index nearest to `i` (within 4) where a word starts (`start`) or ends; `i` when there is none. */
function snapToWord(text: string, i: number, start: boolean): number {
  for (let d = 0; d <= 4; d++) {
    for (const p of [i - d, i + d]) {
      if (p < 0 || p > text.length) continue;
      if (start ? p === 0 || /\s/.test(text[p - 1]!) : p === text.length || /\s/.test(text[p]!)) return p;
    }
  }
  return i;
}

/** Cuts a run at character indices, placing the pieces by an even share of the run's width. */
function sliceRun(run: LayoutRun, from: number, to: number): LayoutRun {
  const cw = run.width / run.text.length;
  return { ...run, text: run.text.slice(from, to), x: run.x + from * cw, width: (to - from) * cw };
}

/**
 * Splits runs under link rectangles: the part of a run a link covers (snapped to whole words, as the
 * text layer does not say where each glyph is) gets the link's URL. Links are bucketed by height.
 */
function applyLinks(runs: LayoutRun[], links: PageLink[]): LayoutRun[] {
  const valid = links.filter((l) => Number.isFinite(l.x) && Number.isFinite(l.y) && Number.isFinite(l.width) && Number.isFinite(l.height) && l.url);
  if (valid.length === 0) return runs;
  const BUCKET = 24;
  const buckets = new Map<number, PageLink[]>();
  for (const link of valid) {
    const from = Math.floor((link.y - 2) / BUCKET);
    const to = Math.floor((link.y + link.height + 2) / BUCKET);
    // A link rectangle taller than a page of buckets is clamped: the loop stays bounded.
    for (let b = from; b <= Math.min(to, from + 200); b++) {
      const list = buckets.get(b);
      if (list) list.push(link);
      else buckets.set(b, [link]);
    }
  }
  const out: LayoutRun[] = [];
  for (const run of runs) {
    const cy = run.y + run.height / 2;
    const hits = (buckets.get(Math.floor(cy / BUCKET)) ?? [])
      .filter((l) => cy >= l.y - 2 && cy <= l.y + l.height + 2 && l.x < run.x + run.width && l.x + l.width > run.x)
      .sort((a, b) => a.x - b.x);
    let rest: LayoutRun | undefined = run;
    for (const link of hits) {
      if (!rest || rest.text.length === 0) break;
      const n: number = rest.text.length;
      const cw = rest.width / n;
      // A link must cover most of a character to claim it: rectangles often overhang a little.
      const from = Math.ceil((link.x - rest.x) / cw - 0.3);
      const to = Math.floor((link.x + link.width - rest.x) / cw + 0.3);
      if (to <= Math.max(0, from)) continue;
      const a = Math.max(0, Math.min(n, from <= 0 ? 0 : snapToWord(rest.text, from, true)));
      const b = Math.max(a, Math.min(n, to >= n ? n : snapToWord(rest.text, to, false)));
      if (b <= a) continue;
      if (a > 0) out.push(sliceRun(rest, 0, a));
      out.push({ ...sliceRun(rest, a, b), href: link.url });
      rest = b < n ? sliceRun(rest, b, n) : undefined;
    }
    if (rest && rest.text.length > 0) out.push(rest);
  }
  return out;
}

const verticalOverlap = (a0: number, a1: number, b0: number, b1: number): number => Math.min(a1, b1) - Math.max(a0, b0);

/** True when `run` continues `frag` on the same text line: overlapping vertically, close horizontally. */
function continuesFragment(frag: Fragment, run: LayoutRun): boolean {
  const overlap = verticalOverlap(frag.y0, frag.y1, run.y, run.y + run.height);
  if (overlap < 0.5 * Math.min(frag.y1 - frag.y0, run.height)) return false;
  const distance = Math.max(run.x - frag.x1, frag.x0 - (run.x + run.width));
  const em = Math.max(frag.fontSize, run.fontSize);
  return distance <= 0.8 * em;
}

function newFragment(run: LayoutRun): Fragment {
  return { runs: [run], x0: run.x, x1: run.x + run.width, y0: run.y, y1: run.y + run.height, fontSize: run.fontSize };
}

function addRun(frag: Fragment, run: LayoutRun): void {
  frag.runs.push(run);
  // A space run spans the whole gap it stands for (pdf.js sizes it so): it must not bridge two table
  // cells or two columns, so it never widens the fragment.
  if (run.text === ' ') return;
  frag.x0 = Math.min(frag.x0, run.x);
  frag.x1 = Math.max(frag.x1, run.x + run.width);
  // The fragment's vertical box follows its main (largest) runs so superscripts do not stretch it.
  if (run.fontSize > frag.fontSize * 1.05) {
    frag.fontSize = run.fontSize;
    frag.y0 = run.y;
    frag.y1 = run.y + run.height;
  } else if (run.fontSize >= frag.fontSize * 0.95) {
    frag.y0 = Math.min(frag.y0, run.y);
    frag.y1 = Math.max(frag.y1, run.y + run.height);
  }
}

function mergeInto(target: Fragment, other: Fragment): void {
  for (const run of other.runs) addRun(target, run);
}

/**
 * Merges fragments of one text line that the drawing order left apart (files that draw characters out
 * of order). Sorting by centre then x keeps it O(n log n).
 */
function mergeSameLine(frags: Fragment[]): Fragment[] {
  if (frags.length < 2) return frags;
  const byCentre = [...frags].sort((a, b) => (a.y0 + a.y1) - (b.y0 + b.y1));
  const out: Fragment[] = [];
  let cluster: Fragment[] = [];
  let clusterBottom = 0;
  const flush = () => {
    cluster.sort((a, b) => a.x0 - b.x0);
    let cur: Fragment | undefined;
    for (const f of cluster) {
      if (cur && verticalOverlap(cur.y0, cur.y1, f.y0, f.y1) >= 0.5 * Math.min(cur.y1 - cur.y0, f.y1 - f.y0) && f.x0 - cur.x1 <= 0.8 * Math.max(cur.fontSize, f.fontSize) && f.x0 - cur.x1 >= -0.5 * cur.fontSize) {
        mergeInto(cur, f);
      } else {
        cur = f;
        out.push(f);
      }
    }
    cluster = [];
  };
  for (const f of byCentre) {
    const h = f.y1 - f.y0;
    const c = (f.y0 + f.y1) / 2;
    if (cluster.length && c - 0.25 * h > clusterBottom) flush();
    clusterBottom = cluster.length ? Math.max(clusterBottom, c + 0.25 * h) : c + 0.25 * h;
    cluster.push(f);
  }
  flush();
  return out;
}

/**
 * A page's runs -> fragments: runs chained in drawing order while they stay on one line with word-sized
 * gaps, then same-line neighbours merged. Whitespace-only runs stay as one-space runs placed where they
 * are drawn (in right-to-left text the space after a word in drawing order is the one before it), and
 * never start a fragment.
 */
export function pageToFragments(page: PageText): PageFragments {
  const runs: LayoutRun[] = [];
  for (const raw of page.runs ?? []) {
    const run = sanitizeRun(raw);
    if (run) runs.push(run.text.trim() === '' ? { ...run, text: ' ' } : run);
  }
  const linked = applyLinks(runs, page.links ?? []);
  const vertical: LayoutRun[] = [];
  const chained: Fragment[] = [];
  let cur: Fragment | undefined;
  for (const run of linked) {
    if (run.height > 2.2 * run.fontSize && run.text.trim().length > 1) {
      vertical.push(run);
      continue;
    }
    if (cur && continuesFragment(cur, run)) addRun(cur, run);
    else if (run.text === ' ') continue;
    else {
      cur = newFragment(run);
      chained.push(cur);
    }
  }
  const fragments = mergeSameLine(chained);
  for (const f of fragments) f.runs.sort((a, b) => a.x - b.x);
  return { fragments, vertical };
}
