import type { FlowItem, Line, TableItem } from './model.js';
import { listMarker, type ListMarker } from './list-markers.js';
import { endsSentence } from './text-utils.js';

/**
 * Lines in reading order -> blocks: headings (by font size relative to the body text, or bold short
 * lines), paragraphs (lines joined while gaps, indents and fonts say they continue), list items,
 * code (monospace lines) and tables.
 */

export type Block =
  | { kind: 'heading'; level: number; lines: Line[] }
  | { kind: 'paragraph'; lines: Line[] }
  | { kind: 'item'; ordered: boolean; style: string; start?: number; markerLength: number; lines: Line[] }
  | { kind: 'code'; lines: Line[] }
  | { kind: 'table'; table: TableItem };

interface DocStats {
  body: number;
  /** Font sizes (rounded to half a unit) that mark headings, largest first. */
  headingSizes: number[];
}

const MAX_HEADING_CHARS = 200;
/** The largest gap between two lines of one paragraph, in font sizes (double spacing). */
const MAX_LINE_GAP = 1;
const roundSize = (s: number): number => Math.round(s * 2) / 2;
const visibleLength = (text: string): number => text.replace(/\s/g, '').length;

/** Body size: the most common font size, weighted by characters; heading sizes: larger ones used by short lines. */
export function documentStats(lines: Line[]): DocStats {
  const weight = new Map<number, number>();
  for (const l of lines) {
    const s = roundSize(l.fontSize);
    weight.set(s, (weight.get(s) ?? 0) + visibleLength(l.text));
  }
  let body = 0;
  let bodyWeight = -1;
  for (const [size, w] of weight) if (w > bodyWeight || (w === bodyWeight && size < body)) [body, bodyWeight] = [size, w];
  const sizes = new Set<number>();
  for (const l of lines) {
    const s = roundSize(l.fontSize);
    if (s >= body * 1.15 && isHeadingText(l.text) && (weight.get(s) ?? 0) <= bodyWeight * 0.5) sizes.add(s);
  }
  return { body, headingSizes: [...sizes].sort((a, b) => b - a) };
}

const isHeadingText = (text: string): boolean => text.length <= 200 && visibleLength(text) > 1 && /\p{L}/u.test(text);

/** Per region: the typical gap between consecutive lines (lower quartile), and whether lines are justified. */
interface RegionShape {
  gap: number;
  justified: boolean;
}

function regionShapes(items: FlowItem[]): Map<number, RegionShape> {
  const gaps = new Map<number, number[]>();
  const reach = new Map<number, [number, number]>();
  let prev: Line | undefined;
  for (const item of items) {
    if (item.kind !== 'line') {
      prev = undefined;
      continue;
    }
    const line = item.line;
    const r = reach.get(line.region) ?? [0, 0];
    r[1]++;
    if (line.x1 >= line.regionX1 - line.fontSize) r[0]++;
    reach.set(line.region, r);
    if (prev && prev.region === line.region && Math.abs(prev.fontSize - line.fontSize) <= 0.15 * line.fontSize) {
      const list = gaps.get(line.region) ?? [];
      list.push((line.y0 - prev.y1) / line.fontSize);
      gaps.set(line.region, list);
    }
    prev = line;
  }
  const all = [...gaps.values()].flat().sort((a, b) => a - b);
  // Too few samples may all be paragraph gaps: fall back to a usual line gap. Capped either way.
  const docGap = all.length >= 4 ? Math.min(all[Math.floor(all.length / 4)]!, MAX_LINE_GAP) : 0.25;
  const shapes = new Map<number, RegionShape>();
  for (const [region, [full, total]] of reach) {
    const list = (gaps.get(region) ?? []).sort((a, b) => a - b);
    const gap = list.length >= 4 ? Math.min(list[Math.floor(list.length / 4)]!, MAX_LINE_GAP) : docGap;
    shapes.set(region, { gap, justified: total >= 3 && full / total >= 0.5 });
  }
  return shapes;
}

/** Ordered markers count on: accept one only when a neighbour within a few lines continues or precedes it. */
function acceptedMarkers(lines: (Line | undefined)[]): (ListMarker | undefined)[] {
  const markers = lines.map((l) => (l ? listMarker(l.text) : undefined));
  const WINDOW = 40;
  return markers.map((m, i) => {
    if (!m || !m.ordered) return m;
    for (let j = Math.max(0, i - WINDOW); j < Math.min(markers.length, i + WINDOW); j++) {
      const o = markers[j];
      if (j === i || !o || !o.ordered || o.style !== m.style || o.value === undefined || m.value === undefined) continue;
      if ((j > i && o.value === m.value + 1) || (j < i && o.value === m.value - 1)) return m;
    }
    return undefined;
  });
}

interface Context {
  stats: DocStats;
  shapes: Map<number, RegionShape>;
}

function headingLevel(line: Line, ctx: Context): number | undefined {
  if (line.mono || !isHeadingText(line.text)) return undefined;
  const rank = ctx.stats.headingSizes.indexOf(roundSize(line.fontSize));
  if (rank >= 0) return Math.min(rank + 1, 4);
  return undefined;
}

/** The level of a bold heading (body size, short, not part of a bold paragraph). */
function boldHeadingLevel(lines: (Line | undefined)[], i: number, ctx: Context): number | undefined {
  const line = lines[i];
  if (!line || !line.bold || line.mono || line.text.length > 100 || !isHeadingText(line.text) || /[,;]$/.test(line.text)) return undefined;
  if (line.fontSize < ctx.stats.body * 0.9) return undefined;
  const next = lines[i + 1];
  const close = (a: Line, b: Line) => a.region === b.region && b.y0 - a.y1 < 0.8 * a.fontSize;
  // Part of a bold paragraph (three bold lines or more in a row): not a heading.
  if (next && next.bold && close(line, next)) {
    const third = lines[i + 2];
    if (third && third.bold && close(next, third)) return undefined;
  }
  const prev = lines[i - 1];
  if (prev && prev.bold && close(prev, line)) return undefined;
  return Math.max(2, Math.min(ctx.stats.headingSizes.length + 1, 4));
}

/** True when `line` continues the paragraph whose last line is `prev`. */
function continuesParagraph(prev: Line, line: Line, ctx: Context): boolean {
  if (prev.region !== line.region || prev.page !== line.page) return false;
  const fs = Math.max(prev.fontSize, line.fontSize);
  if (Math.abs(prev.fontSize - line.fontSize) > 0.15 * fs) return false;
  if (prev.mono !== line.mono) return false;
  const gap = line.y0 - prev.y1;
  const shape = ctx.shapes.get(line.region);
  const typical = (shape?.gap ?? 0.2) * fs;
  if (gap > typical + 0.45 * fs || gap > 1.5 * fs || gap < -1.5 * fs) return false;
  // First-line indent: a line indented against the one before and the region starts a paragraph.
  if (line.x0 > prev.x0 + 0.8 * fs && line.x0 > line.regionX0 + 0.8 * fs) return false;
  if (shape?.justified && endsSentence(prev.text) && prev.x1 < line.regionX1 - Math.max(3 * fs, 0.15 * (line.regionX1 - line.regionX0))) return false;
  return true;
}

/** Builds the blocks of a document from its pages' flow items. */
export function flowToBlocks(items: FlowItem[]): Block[] {
  const lines = items.map((it) => (it.kind === 'line' ? it.line : undefined));
  const stats = documentStats(lines.filter((l): l is Line => l !== undefined));
  const ctx: Context = { stats, shapes: regionShapes(items) };
  const markers = acceptedMarkers(lines);
  const blocks: Block[] = [];
  let cur: Block | undefined;
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (item.kind === 'table') {
      blocks.push({ kind: 'table', table: item });
      cur = undefined;
      continue;
    }
    const line = item.line;
    const prev = cur && cur.kind !== 'table' ? cur.lines.at(-1) : undefined;
    if (line.mono) {
      if (cur?.kind === 'code' && prev && prev.region === line.region && line.y0 - prev.y1 < 2.5 * line.fontSize) cur.lines.push(line);
      else blocks.push((cur = { kind: 'code', lines: [line] }));
      continue;
    }
    const level = headingLevel(line, ctx) ?? boldHeadingLevel(lines, i, ctx);
    if (level !== undefined) {
      if (cur?.kind === 'heading' && cur.level === level && prev && prev.region === line.region && cur.lines.length < 3 && line.y0 - prev.y1 < 0.8 * line.fontSize) cur.lines.push(line);
      else blocks.push((cur = { kind: 'heading', level, lines: [line] }));
      continue;
    }
    const marker = markers[i];
    if (marker) {
      blocks.push((cur = { kind: 'item', ordered: marker.ordered, style: marker.style ?? 'bullet', start: marker.value, markerLength: marker.length, lines: [line] }));
      continue;
    }
    if (cur?.kind === 'item' && prev) {
      const first = cur.lines[0]!;
      const hanging = line.x0 > first.x0 + 0.3 * line.fontSize;
      const flush = Math.abs(line.x0 - first.x0) <= 0.3 * line.fontSize && !endsSentence(prev.text);
      if ((hanging || flush) && continuesParagraph(prev, { ...line, x0: first.x0 }, ctx)) {
        cur.lines.push(line);
        continue;
      }
    }
    if (cur?.kind === 'paragraph' && prev && continuesParagraph(prev, line, ctx)) cur.lines.push(line);
    else blocks.push((cur = { kind: 'paragraph', lines: [line] }));
  }
  // Large text of paragraph length (an author list, a pull quote) is not a heading.
  return blocks.map((b) => (b.kind === 'heading' && b.lines.reduce((n, l) => n + l.text.length, 0) > MAX_HEADING_CHARS ? { kind: 'paragraph', lines: b.lines } : b));
}
