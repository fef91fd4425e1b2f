import type { Fragment } from './model.js';

/** One page's fragments with the page's height (the margins are measured from it). */
export interface FurniturePage {
  fragments: Fragment[];
  height: number;
}

/** Share of the page height, from the top and from the bottom, where running headers and footers live. */
const MARGIN_SHARE = 0.12;

const fragmentText = (f: Fragment): string => f.runs.map((r) => r.text).join('');

/**
 * The key of a margin text: case and spacing folded, every number one `#`, so "Page 3 of 12" and
 * "Page 4 of 12" match and a bare page number matches every other page number.
 */
function furnitureKey(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim().replace(/\d+/g, '#');
}

/** The most common font size over all fragments, weighted by characters. */
function bodySize(pages: FurniturePage[]): number {
  const weight = new Map<number, number>();
  for (const page of pages) {
    for (const f of page.fragments) {
      const size = Math.round(f.fontSize * 2) / 2;
      weight.set(size, (weight.get(size) ?? 0) + f.runs.reduce((n, r) => n + r.text.length, 0));
    }
  }
  let best = 0;
  let bestWeight = -1;
  for (const [size, w] of weight) if (w > bestWeight) [best, bestWeight] = [size, w];
  return best;
}

/**
 * Removes running headers and footers: fragments in the top or bottom margin whose text (numbers
 * folded) recurs at about the same height on at least half the pages, in a font no larger than the
 * body text. Needs two pages or more; a
 * one-page document keeps everything. Mutates `pages[i].fragments`; returns how many were dropped.
 */
export function dropPageFurniture(pages: FurniturePage[]): number {
  const withText = pages.filter((p) => p.fragments.length > 0).length;
  if (withText < 2) return 0;
  const needed = Math.max(2, Math.ceil(withText * 0.5));
  const body = bodySize(pages);
  const candidates = new Map<string, { page: number; y: number; tol: number; frag: Fragment }[]>();
  pages.forEach((page, pageIndex) => {
    const h = Number.isFinite(page.height) && page.height > 0 ? page.height : Math.max(0, ...page.fragments.map((f) => f.y1));
    for (const frag of page.fragments) {
      const zone = frag.y1 <= h * MARGIN_SHARE ? 't' : frag.y0 >= h * (1 - MARGIN_SHARE) ? 'b' : '';
      // Running headers and footers are set no larger than the body text; a chapter heading is.
      if (!zone || frag.fontSize > body * 1.05) continue;
      const key = `${zone}|${furnitureKey(fragmentText(frag))}`;
      if (key.length > 200) continue;
      const list = candidates.get(key);
      const entry = { page: pageIndex, y: frag.y0, tol: Math.max(3, h * 0.012), frag };
      if (list) list.push(entry);
      else candidates.set(key, [entry]);
    }
  });
  const drop = new Set<Fragment>();
  for (const list of candidates.values()) {
    if (list.length < needed) continue;
    list.sort((a, b) => a.y - b.y);
    // Two pointers: the window of entries within the height tolerance of entry i.
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < list.length; i++) {
      const { y, tol } = list[i]!;
      while (list[lo]!.y < y - tol) lo++;
      while (hi + 1 < list.length && list[hi + 1]!.y <= y + tol) hi++;
      const pagesInWindow = new Set<number>();
      for (let j = lo; j <= hi && pagesInWindow.size < needed; j++) pagesInWindow.add(list[j]!.page);
      if (pagesInWindow.size >= needed) drop.add(list[i]!.frag);
    }
  }
  if (drop.size === 0) return 0;
  for (const page of pages) page.fragments = page.fragments.filter((f) => !drop.has(f));
  return drop.size;
}
