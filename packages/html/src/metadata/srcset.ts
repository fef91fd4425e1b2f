/** One candidate of a `srcset` attribute. */
export interface SrcsetCandidate {
  /** The URL as written. */
  readonly url: string;
  /** Width in pixels (`w` descriptor). */
  readonly width?: number;
  /** Pixel density (`x` descriptor; 1 when there is no descriptor). */
  readonly density?: number;
}

/**
 * Parses a `srcset` value following the HTML candidate-string rules: a URL runs to the next whitespace (it
 * may contain commas, as CDN transform URLs do); a trailing comma ends a URL without descriptor.
 */
export function parseSrcset(srcset: string): SrcsetCandidate[] {
  const out: SrcsetCandidate[] = [];
  const s = srcset;
  const isSpace = (ch: string | undefined): boolean => ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r' || ch === '\f';
  let i = 0;
  while (i < s.length) {
    while (i < s.length && (s[i] === ',' || isSpace(s[i]))) i++;
    if (i >= s.length) break;
    let j = i;
    while (j < s.length && !isSpace(s[j])) j++;
    let url = s.slice(i, j);
    let desc = '';
    if (url.endsWith(',')) {
      url = url.replace(/,+$/, '');
      i = j;
    } else {
      let k = s.indexOf(',', j);
      if (k < 0) k = s.length;
      desc = s.slice(j, k).trim().toLowerCase();
      i = k + 1;
    }
    const w = /^(\d+)w$/.exec(desc);
    const x = /^(\d*\.?\d+)x$/.exec(desc);
    if (w) out.push({ url, width: Number(w[1]) });
    else if (x) out.push({ url, density: Number(x[1]) });
    else out.push({ url, density: 1 });
  }
  return out;
}

/** The largest candidate of a `srcset`: widest `w` candidate if any, else highest density. */
export function largestSrcsetCandidate(srcset: string): string | undefined {
  let best: SrcsetCandidate | undefined;
  for (const c of parseSrcset(srcset)) {
    if (best === undefined) best = c;
    else if (c.width !== undefined) {
      if (best.width === undefined || c.width > best.width) best = c;
    } else if (best.width === undefined && (c.density ?? 1) > (best.density ?? 1)) best = c;
  }
  return best?.url;
}
