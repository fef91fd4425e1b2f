import type { PageLink, TextRun } from '../types.js';
import { fontStyle } from './font-style.js';

/** The parts of pdf.js's text content this reader uses (structural: the pdf.js types pull in DOM types). */
export interface PdfTextItem {
  str: string;
  dir: string;
  transform: number[];
  width: number;
  height: number;
  fontName: string;
}
export interface PdfTextStyle {
  ascent?: number;
  descent?: number;
  vertical?: boolean;
  fontFamily?: string;
}
/** A viewport: its transform maps PDF user space to top-left page units. */
export interface PdfViewport {
  transform: number[];
  width: number;
  height: number;
  convertToViewportRectangle(rect: number[]): number[];
}

const multiply = (m1: number[], m2: number[]): number[] => [
  m1[0]! * m2[0]! + m1[2]! * m2[1]!,
  m1[1]! * m2[0]! + m1[3]! * m2[1]!,
  m1[0]! * m2[2]! + m1[2]! * m2[3]!,
  m1[1]! * m2[2]! + m1[3]! * m2[3]!,
  m1[0]! * m2[4]! + m1[2]! * m2[5]! + m1[4]!,
  m1[1]! * m2[4]! + m1[3]! * m2[5]! + m1[5]!,
];

/**
 * One pdf.js text item -> a run in top-left page units. The font size is the length of the text
 * matrix's vertical vector; the box spans the font's ascent and descent. Rotated text gets the
 * bounding box of its rotated rectangle (the layout reads such tall boxes apart).
 */
export function textItemToRun(item: PdfTextItem, style: PdfTextStyle | undefined, viewport: PdfViewport, fontName?: string): TextRun | undefined {
  if (typeof item.str !== 'string' || item.str === '' || !Array.isArray(item.transform) || item.transform.length < 6) return undefined;
  const m = multiply(viewport.transform, item.transform);
  if (!m.every(Number.isFinite)) return undefined;
  const size = Math.hypot(m[2]!, m[3]!);
  if (!(size > 0)) return undefined;
  const ascent = style?.ascent !== undefined && style.ascent > 0.4 && style.ascent < 1.5 ? style.ascent : 0.8;
  const descent = style?.descent !== undefined && style.descent <= 0 && style.descent > -0.7 ? style.descent : -0.2;
  const name = fontName ?? style?.fontFamily;
  const { bold, italic } = fontStyle(name);
  const base = { text: item.str, fontSize: size, bold, italic, fontName: name, rtl: item.dir === 'rtl' ? true : undefined };
  const length = Math.abs(item.width);
  const dirLength = Math.hypot(m[0]!, m[1]!);
  if (style?.vertical || item.dir === 'ttb') {
    return { ...base, x: m[4]! - size / 2, y: m[5]!, width: size, height: Math.max(Math.abs(item.height), size) };
  }
  if (Math.abs(m[1]!) <= 0.02 * dirLength && m[0]! > 0) {
    return { ...base, x: m[4]!, y: m[5]! - ascent * size, width: length, height: (ascent - descent) * size };
  }
  // Rotated or mirrored text: the bounding box of origin + a*along + b*up, a in [0,1], b in [descent, ascent].
  const ux = m[0]! / (dirLength || 1);
  const uy = m[1]! / (dirLength || 1);
  const vx = m[2]! / size;
  const vy = m[3]! / size;
  const xs: number[] = [];
  const ys: number[] = [];
  for (const a of [0, length]) {
    for (const b of [descent * size, ascent * size]) {
      xs.push(m[4]! + a * ux + b * vx);
      ys.push(m[5]! + a * uy + b * vy);
    }
  }
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { ...base, x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y };
}

/** Link annotations with a web target -> {@link PageLink}s in top-left page units. */
export function annotationsToLinks(annotations: unknown[], viewport: PdfViewport): PageLink[] {
  const links: PageLink[] = [];
  for (const a of annotations) {
    if (typeof a !== 'object' || a === null) continue;
    const annot = a as { subtype?: unknown; url?: unknown; rect?: unknown };
    // pdf.js fills `url` only for absolute URLs it validated (unsafeUrl holds the raw one).
    if (annot.subtype !== 'Link' || typeof annot.url !== 'string' || !Array.isArray(annot.rect) || annot.rect.length !== 4) continue;
    const r = viewport.convertToViewportRectangle(annot.rect as number[]);
    if (!r.every(Number.isFinite)) continue;
    const x = Math.min(r[0]!, r[2]!);
    const y = Math.min(r[1]!, r[3]!);
    links.push({ x, y, width: Math.abs(r[2]! - r[0]!), height: Math.abs(r[3]! - r[1]!), url: annot.url });
  }
  return links;
}
