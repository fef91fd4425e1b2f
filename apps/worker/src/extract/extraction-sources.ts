import { isDeepStrictEqual } from 'node:util';

/** One page's extraction: its URL and the value the LLM gave for it. */
export interface PageExtraction {
  url: string;
  value: unknown;
}

/** Nothing to take from: null, undefined, '', an empty array or object. */
export function isEmptyValue(v: unknown): boolean {
  if (v === null || v === undefined || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.keys(v).length === 0;
  return false;
}

/**
 * `showSources` of an extract: for each top-level field of the merged result, the URLs of the pages
 * whose extraction supplied it, and for array fields each item too (`field[i]`: the pages that gave an
 * item equal to it). A scalar's sources are the pages that gave the merged value (any page that gave
 * a non-empty value when none gave exactly it, e.g. after a reduce). A top-level array result has
 * `[i]` keys. Pure.
 */
export function extractionSources(pages: readonly PageExtraction[], merged: unknown): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const urlsWhere = (pick: (value: unknown) => boolean) => [...new Set(pages.filter((p) => pick(p.value)).map((p) => p.url))];
  if (Array.isArray(merged)) {
    merged.forEach((item, i) => {
      out[`[${i}]`] = urlsWhere((v) => Array.isArray(v) && v.some((x) => isDeepStrictEqual(x, item)));
    });
    return out;
  }
  if (merged === null || typeof merged !== 'object') return out;
  const field = (v: unknown, k: string): unknown => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>)[k] : undefined);
  for (const [k, value] of Object.entries(merged as Record<string, unknown>)) {
    if (isEmptyValue(value)) continue;
    if (Array.isArray(value)) {
      out[k] = urlsWhere((v) => !isEmptyValue(field(v, k)));
      value.forEach((item, i) => {
        out[`${k}[${i}]`] = urlsWhere((v) => {
          const arr = field(v, k);
          return Array.isArray(arr) && arr.some((x) => isDeepStrictEqual(x, item));
        });
      });
    } else if (typeof value === 'object') {
      out[k] = urlsWhere((v) => !isEmptyValue(field(v, k)));
    } else {
      const exact = urlsWhere((v) => isDeepStrictEqual(field(v, k), value));
      out[k] = exact.length > 0 ? exact : urlsWhere((v) => !isEmptyValue(field(v, k)));
    }
  }
  return out;
}
