import type { FlowItem, Fragment, LayoutRun, Segment, TableItem } from './model.js';
import { buildLine, pushSegment, splitBandIntoLines } from './lines.js';

/**
 * Reading order of one page by recursive cuts. The page's fragments are stacked into bands (fragments
 * overlapping vertically); consecutive bands that share an empty vertical strip with text on both
 * sides (a gutter) form a multi-column group, read column by column (or as a table when the columns
 * are narrow and aligned row by row); the other bands are read top to bottom. Each column is cut again,
 * so a full-width title above two columns stays first and a table inside a column stays inside it.
 */

type Interval = [number, number];

interface Band {
  frags: Fragment[];
  minX: number;
  maxX: number;
  top: number;
  bottom: number;
  free: Interval[];
}

interface Group {
  bands: Band[];
  /** Internal gutters shared by every band of the group; empty for a one-column group. */
  gutters: Interval[];
}

/** Mutable numbering shared by all pages: every leaf region gets a unique id. */
export interface RegionCounter {
  next: number;
}

const MAX_DEPTH = 6;
/** Bands looked ahead without finding a gutter before giving up a multi-column group start. */
const LOOKAHEAD = 80;

const centre = (f: Fragment): number => (f.y0 + f.y1) / 2;

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Stacks fragments into bands; each fragment counts by its middle 60% so adjacent lines stay apart. */
function makeBands(frags: Fragment[]): Band[] {
  const sorted = [...frags].sort((a, b) => centre(a) - 0.3 * (a.y1 - a.y0) - (centre(b) - 0.3 * (b.y1 - b.y0)));
  const bands: Band[] = [];
  let cur: Band | undefined;
  let curBottom = 0;
  for (const f of sorted) {
    const h = f.y1 - f.y0;
    const top = centre(f) - 0.3 * h;
    const bottom = centre(f) + 0.3 * h;
    if (cur && top < curBottom) {
      cur.frags.push(f);
      curBottom = Math.max(curBottom, bottom);
      cur.minX = Math.min(cur.minX, f.x0);
      cur.maxX = Math.max(cur.maxX, f.x1);
      cur.top = Math.min(cur.top, f.y0);
      cur.bottom = Math.max(cur.bottom, f.y1);
    } else {
      cur = { frags: [f], minX: f.x0, maxX: f.x1, top: f.y0, bottom: f.y1, free: [] };
      curBottom = bottom;
      bands.push(cur);
    }
  }
  return bands;
}

/** Empty horizontal intervals of a band within [x0, x1], at least `minGap` wide. */
function freeIntervals(band: Band, x0: number, x1: number, minGap: number): Interval[] {
  const frags = [...band.frags].sort((a, b) => a.x0 - b.x0);
  const out: Interval[] = [];
  let cursor = x0;
  for (const f of frags) {
    if (f.x0 - cursor >= minGap) out.push([cursor, f.x0]);
    cursor = Math.max(cursor, f.x1);
  }
  if (x1 - cursor >= minGap) out.push([cursor, x1]);
  return out;
}

function intersect(a: Interval[], b: Interval[], minGap: number): Interval[] {
  const out: Interval[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const lo = Math.max(a[i]![0], b[j]![0]);
    const hi = Math.min(a[i]![1], b[j]![1]);
    if (hi - lo >= minGap) out.push([lo, hi]);
    if (a[i]![1] < b[j]![1]) i++;
    else j++;
  }
  return out;
}

interface Run {
  /** Index of the run's last band, -1 when no run with a gutter starts here. */
  end: number;
  gutters: Interval[];
}

/** The longest run of bands from `i` that keeps a common gutter with text on both sides. */
function runFrom(bands: Band[], i: number, minGap: number): Run {
  let inter = bands[i]!.free;
  let minX = bands[i]!.minX;
  let maxX = bands[i]!.maxX;
  const run: Run = { end: -1, gutters: [] };
  let sinceInternal = 0;
  for (let j = i + 1; j < bands.length && inter.length > 0; j++) {
    inter = intersect(inter, bands[j]!.free, minGap);
    if (inter.length === 0) break;
    minX = Math.min(minX, bands[j]!.minX);
    maxX = Math.max(maxX, bands[j]!.maxX);
    const internal = inter.filter((g) => g[0] > minX && g[1] < maxX);
    if (internal.length > 0) {
      run.end = j;
      run.gutters = internal;
      sinceInternal = 0;
    } else if (++sinceInternal > LOOKAHEAD) break;
  }
  if (run.end < 0) return run;
  // A gutter needs text on each side in two bands or more: a run of centred lines over one short line
  // at the left margin is not two columns, nor is a short line above a line with a wide space.
  const needed = 2;
  run.gutters = run.gutters.filter((g) => {
    let left = 0;
    let right = 0;
    for (let k = i; k <= run.end; k++) {
      if (bands[k]!.minX < g[0]) left++;
      if (bands[k]!.maxX > g[1]) right++;
    }
    return left >= needed && right >= needed;
  });
  if (run.gutters.length === 0) run.end = -1;
  return run;
}

/**
 * Groups consecutive bands: the longest run from each band that keeps a common gutter with text on
 * both sides becomes a multi-column group; bands that start no such run are one-column groups. A band
 * whose run ends before the run of the next band is left out (a centred line above two columns would
 * otherwise pair with the columns' first line through a gap of its own).
 */
function groupBands(bands: Band[], minGap: number): Group[] {
  const groups: Group[] = [];
  let single: Band[] = [];
  const flushSingle = () => {
    if (single.length) groups.push({ bands: single, gutters: [] });
    single = [];
  };
  let next: Run | undefined;
  let i = 0;
  while (i < bands.length) {
    const run: Run = next ?? runFrom(bands, i, minGap);
    next = undefined;
    if (run.end >= 0 && i + 1 < bands.length) {
      next = runFrom(bands, i + 1, minGap);
      if (next.end <= run.end) next = undefined;
    }
    if (run.end < 0 || next) {
      single.push(bands[i]!);
      i++;
      continue;
    }
    flushSingle();
    groups.push({ bands: bands.slice(i, run.end + 1), gutters: run.gutters });
    i = run.end + 1;
  }
  flushSingle();
  return groups;
}

/** The strips between gutters, covering [minX, maxX]. */
function slotsOf(gutters: Interval[], minX: number, maxX: number): Interval[] {
  const slots: Interval[] = [];
  let cursor = minX;
  for (const g of gutters) {
    slots.push([cursor, g[0]]);
    cursor = g[1];
  }
  slots.push([cursor, maxX]);
  return slots;
}

function slotIndex(slots: Interval[], x: number): number {
  for (let s = 0; s < slots.length; s++) if (x <= slots[s]![1]) return s;
  return slots.length - 1;
}

/** cells[band][slot] -> fragments of that band in that slot. */
function cellsOf(group: Group, slots: Interval[]): Fragment[][][] {
  return group.bands.map((band) => {
    const cells: Fragment[][] = slots.map(() => []);
    for (const f of band.frags) cells[slotIndex(slots, (f.x0 + f.x1) / 2)]!.push(f);
    return cells;
  });
}

/** Text columns: few wide strips, or strips whose lines mostly fill them (prose, not cells). */
function looksLikeColumns(slots: Interval[], cells: Fragment[][][], em: number): boolean {
  if (slots.length > 4) return false;
  const widths = slots.map((s) => s[1] - s[0]);
  if (widths.every((w) => w >= 15 * em)) return true;
  if (slots.length > 3 || !widths.every((w) => w >= 8 * em)) return false;
  return slots.every((slot, s) => {
    let lines = 0;
    let full = 0;
    for (const row of cells) {
      const frags = row[s]!;
      if (frags.length === 0) continue;
      lines++;
      let lo = Infinity;
      let hi = -Infinity;
      for (const f of frags) {
        lo = Math.min(lo, f.x0);
        hi = Math.max(hi, f.x1);
      }
      const covered = hi - lo;
      if (covered >= 0.7 * (slot[1] - slot[0])) full++;
    }
    return lines >= 2 && full / lines >= 0.5;
  });
}

/** Inline content of a table cell: its lines joined with spaces. */
function cellContent(frags: Fragment[], page: number): Segment[] {
  const segments: Segment[] = [];
  if (frags.length === 0) return segments;
  for (const lineFrags of splitBandIntoLines(frags)) {
    const line = buildLine(lineFrags, { region: -1, regionX0: 0, regionX1: 0, page });
    if (segments.length) pushSegment(segments, { text: ' ', bold: false, italic: false });
    for (const s of line.segments) pushSegment(segments, s);
  }
  return segments;
}

/**
 * Rows and cells of a multi-column group when it reads as a table, else undefined. Conservative:
 * at least three rows (two when every cell of three or more columns is filled), most rows with two
 * cells or more, no cell of paragraph length. A wrapped cell (a band whose first cell is empty, close
 * under the previous one) continues the previous row.
 */
function tryTable(group: Group, slots: Interval[], cells: Fragment[][][], em: number, page: number): TableItem | undefined {
  if (slots.length < 2) return undefined;
  const rows: Fragment[][][] = [];
  let prevBand: Band | undefined;
  group.bands.forEach((band, b) => {
    const row = cells[b]!;
    const last = rows.at(-1);
    if (last && prevBand && row[0]!.length === 0 && last[0]!.length > 0 && band.top - prevBand.bottom < 0.5 * em) {
      row.forEach((c, s) => last[s]!.push(...c));
    } else rows.push(row);
    prevBand = band;
  });
  const filled = rows.map((row) => row.filter((c) => c.length > 0).length);
  const multi = filled.filter((n) => n >= 2).length;
  if (multi < Math.max(2, Math.ceil(rows.length * 0.6))) return undefined;
  if (rows.length < 3 && !(rows.length === 2 && slots.length >= 3 && filled.every((n) => n === slots.length))) return undefined;
  const content = rows.map((row) => row.map((c) => cellContent(c, page)));
  for (const row of content) for (const cell of row) if (cell.reduce((n, s) => n + s.text.length, 0) > 300) return undefined;
  let rtl = 0;
  for (const band of group.bands) for (const f of band.frags) for (const r of f.runs) if (r.rtl) rtl++;
  return { kind: 'table', rows: content, rtl: rtl > 0 && rtl * 2 > group.bands.length, page };
}

/** A leaf region: lines of one column read top to bottom; paragraphs never span two regions. */
interface Region {
  id: number;
  x0: number;
  x1: number;
}

function emitLines(bands: Band[], out: FlowItem[], region: Region, page: number): void {
  for (const band of bands) {
    for (const frags of splitBandIntoLines(band.frags)) {
      const line = buildLine(frags, { region: region.id, regionX0: region.x0, regionX1: region.x1, page });
      if (line.text !== '') out.push({ kind: 'line', line });
    }
  }
}

const isRtlGroup = (group: Group): boolean => {
  let rtl = 0;
  let all = 0;
  for (const band of group.bands) for (const f of band.frags) for (const r of f.runs) {
    all += r.text.length;
    if (r.rtl) rtl += r.text.length;
  }
  return all > 0 && rtl / all > 0.5;
};

function orderRegion(frags: Fragment[], depth: number, out: FlowItem[], regions: RegionCounter, page: number): void {
  if (frags.length === 0) return;
  let x0 = Infinity;
  let x1 = -Infinity;
  for (const f of frags) {
    x0 = Math.min(x0, f.x0);
    x1 = Math.max(x1, f.x1);
  }
  const em = Math.max(1, median(frags.map((f) => f.fontSize)));
  const minGap = 0.8 * em;
  const bands = makeBands(frags);
  for (const band of bands) band.free = freeIntervals(band, x0, x1, minGap);
  const groups = depth >= MAX_DEPTH ? [{ bands, gutters: [] }] : groupBands(bands, minGap);
  // One-column groups of this region share one region id, so a paragraph interrupted by a line with
  // a wide space (read as a group of its own) still joins across it.
  const region: Region = { id: regions.next++, x0, x1 };
  for (const group of groups) {
    if (group.gutters.length === 0) emitLines(group.bands, out, region, page);
    else readMultiColumn(group, { depth, em, minGap, out, regions, region, page });
  }
}

interface ReadState {
  region: Region;
  depth: number;
  em: number;
  minGap: number;
  out: FlowItem[];
  regions: RegionCounter;
  page: number;
}

/** Gutters shared by all bands, with text on both sides. */
function commonGutters(bands: Band[], minGap: number): Interval[] {
  let inter = bands[0]?.free ?? [];
  let minX = Infinity;
  let maxX = -Infinity;
  for (const b of bands) {
    inter = intersect(inter, b.free, minGap);
    minX = Math.min(minX, b.minX);
    maxX = Math.max(maxX, b.maxX);
  }
  return inter.filter((g) => g[0] > minX && g[1] < maxX);
}

/** Reads each strip as a region of its own, left to right (right to left for RTL text). */
function readColumns(group: Group, slots: Interval[], cells: Fragment[][][], st: ReadState): void {
  const order = slots.map((_, s) => s);
  if (isRtlGroup(group)) order.reverse();
  for (const s of order) orderRegion(cells.flatMap((row) => row[s]!), st.depth + 1, st.out, st.regions, st.page);
}

/**
 * A multi-column group: text columns are read one after the other (each cut again); otherwise the
 * group is a table, or plain lines. Before the table test, lines at the group's top and bottom with
 * one cell only (a sentence above or below a table) are read apart and the gutters found again.
 */
function readMultiColumn(group: Group, st: ReadState, retry = true): void {
  let minX = Infinity;
  let maxX = -Infinity;
  for (const b of group.bands) {
    minX = Math.min(minX, b.minX);
    maxX = Math.max(maxX, b.maxX);
  }
  const slots = slotsOf(group.gutters, minX, maxX);
  const cells = cellsOf(group, slots);
  if (looksLikeColumns(slots, cells, st.em)) {
    readColumns(group, slots, cells, st);
    return;
  }
  const filled = cells.map((row) => row.filter((c) => c.length > 0).length);
  let lo = 0;
  let hi = group.bands.length;
  while (lo < hi && filled[lo]! < 2) lo++;
  while (hi > lo && filled[hi - 1]! < 2) hi--;
  if (retry && (lo > 0 || hi < group.bands.length) && hi - lo >= 2) {
    emitLines(group.bands.slice(0, lo), st.out, st.region, st.page);
    const middle = group.bands.slice(lo, hi);
    const gutters = commonGutters(middle, st.minGap);
    if (gutters.length) readMultiColumn({ bands: middle, gutters }, st, false);
    else emitLines(middle, st.out, st.region, st.page);
    emitLines(group.bands.slice(hi), st.out, st.region, st.page);
    return;
  }
  const table = tryTable(group, slots, cells, st.em, st.page);
  if (table) {
    st.out.push(table);
    return;
  }
  // Side-by-side flows that seldom share a line (a narrow sidebar beside the main text) are still
  // columns; strips that share most lines but are no table read line by line.
  if (slots.length <= 4 && group.bands.length >= 4 && filled.filter((n) => n >= 2).length < 0.5 * group.bands.length) {
    readColumns(group, slots, cells, st);
  } else emitLines(group.bands, st.out, st.region, st.page);
}

/**
 * One page's fragments -> its content in reading order: lines (tagged with their region) and tables.
 * Rotated or vertical runs come last, one line each.
 */
export function orderPage(frags: Fragment[], vertical: LayoutRun[], page: number, regions: RegionCounter): FlowItem[] {
  const out: FlowItem[] = [];
  orderRegion(frags, 0, out, regions, page);
  for (const run of vertical) {
    const frag: Fragment = { runs: [run], x0: run.x, x1: run.x + run.width, y0: run.y, y1: run.y + run.height, fontSize: run.fontSize };
    const band = { frags: [frag], minX: frag.x0, maxX: frag.x1, top: frag.y0, bottom: frag.y1, free: [] };
    emitLines([band], out, { id: regions.next++, x0: frag.x0, x1: frag.x1 }, page);
  }
  return out;
}
