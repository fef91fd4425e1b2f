/** List markers at the start of a line: bullets and numbering. */

export interface ListMarker {
  ordered: boolean;
  /** Length of the marker and the whitespace after it, in the line's text. */
  length: number;
  /** Numbering style and value (ordered markers only), to check that neighbours count on. */
  style?: 'decimal' | 'alpha' | 'roman';
  value?: number;
}

/** Bullets that are list markers even without a following space; dashes and asterisks need one. */
// U+F0B7, U+F0A7, U+F076, U+F0D8, U+F0FC: Symbol and Wingdings bullets of office documents, mapped to the private use area.
const BULLET = /^([•◦▪▫■□●○‣⁃∙·➢►▶✓✔❖➤\uF0B7\uF0A7\uF076\uF0D8\uF0FC])\s*(?=\S)|^([-–—*])\s+(?=\S)/u;
const NUMBERED = /^(?:\(([0-9]{1,3}|[a-z]|[ivxlcdm]{1,6})\)|([0-9]{1,3}|[a-zA-Z]|[ivxlcdm]{1,6})[.)])\s+(?=\S)/u;

function romanValue(s: string): number | undefined {
  const values: Record<string, number> = { i: 1, v: 5, x: 10, l: 50, c: 100, d: 500, m: 1000 };
  let total = 0;
  for (let i = 0; i < s.length; i++) {
    const v = values[s[i]!.toLowerCase()];
    const next = i + 1 < s.length ? values[s[i + 1]!.toLowerCase()] : undefined;
    if (v === undefined) return undefined;
    total += next !== undefined && next > v ? -v : v;
  }
  return total;
}

/** The list marker that starts `text`, if any. */
export function listMarker(text: string): ListMarker | undefined {
  const bullet = BULLET.exec(text);
  if (bullet) return { ordered: false, length: bullet[0].length };
  const numbered = NUMBERED.exec(text);
  if (!numbered) return undefined;
  const token = numbered[1] ?? numbered[2] ?? '';
  if (/^[0-9]+$/.test(token)) return { ordered: true, length: numbered[0].length, style: 'decimal', value: Number(token) };
  // "i", "v", "x" alone are ambiguous: read them as roman only when longer than one letter or "i".
  const roman = /^[ivxlcdm]+$/i.test(token) && (token.length > 1 || token.toLowerCase() === 'i') ? romanValue(token) : undefined;
  if (roman !== undefined) return { ordered: true, length: numbered[0].length, style: 'roman', value: roman };
  if (/^[a-zA-Z]$/.test(token)) return { ordered: true, length: numbered[0].length, style: 'alpha', value: token.toLowerCase().charCodeAt(0) - 96 };
  return undefined;
}
