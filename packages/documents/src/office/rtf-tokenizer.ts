/** One token of an RTF file. */
export type RtfToken =
  | { kind: 'groupStart' }
  | { kind: 'groupEnd' }
  /** `\word` or `\word-12`; `param` is absent without a number. */
  | { kind: 'word'; word: string; param?: number }
  /** `\~`, `\*`, `\{`... (the character after the backslash). */
  | { kind: 'symbol'; symbol: string }
  /** `\'hh`: one byte in the document's code page. */
  | { kind: 'hex'; byte: number }
  /** A run of plain bytes (line breaks removed: in RTF they mean nothing). */
  | { kind: 'text'; bytes: Uint8Array };

const BACKSLASH = 0x5c;
const OPEN = 0x7b;
const CLOSE = 0x7d;

function isLetter(b: number): boolean {
  return (b >= 0x61 && b <= 0x7a) || (b >= 0x41 && b <= 0x5a);
}

function isDigit(b: number): boolean {
  return b >= 0x30 && b <= 0x39;
}

function hexValue(b: number | undefined): number {
  if (b === undefined) return -1;
  if (isDigit(b)) return b - 0x30;
  const l = b | 0x20;
  return l >= 0x61 && l <= 0x66 ? l - 0x57 : -1;
}

/**
 * Splits RTF bytes into tokens without recursion (groups are just start/end tokens, so 100,000
 * nested `{` cost nothing but their count). `\binN` data is skipped here, since its bytes could
 * otherwise read as braces. Control words follow the spec: up to 32 letters, an optional signed
 * number, and one optional space delimiter that belongs to the word.
 */
export function* tokenizeRtf(bytes: Uint8Array): Generator<RtfToken> {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i] as number;
    if (b === OPEN) {
      i++;
      yield { kind: 'groupStart' };
    } else if (b === CLOSE) {
      i++;
      yield { kind: 'groupEnd' };
    } else if (b === BACKSLASH) {
      const next = bytes[i + 1];
      if (next === undefined) return;
      if (isLetter(next)) {
        let j = i + 1;
        while (j < n && j - i <= 32 && isLetter(bytes[j] as number)) j++;
        const word = String.fromCharCode(...bytes.subarray(i + 1, j));
        let param: number | undefined;
        let k = j;
        if (bytes[k] === 0x2d && isDigit(bytes[k + 1] ?? 0)) k++;
        if (isDigit(bytes[k] ?? 0)) {
          while (k < n && k - j < 11 && isDigit(bytes[k] as number)) k++;
          param = Number(String.fromCharCode(...bytes.subarray(j, k)));
          j = k;
        }
        if (bytes[j] === 0x20) j++;
        if (word === 'bin' && param !== undefined && param > 0) {
          i = Math.min(n, j + param);
          continue;
        }
        i = j;
        yield param === undefined ? { kind: 'word', word } : { kind: 'word', word, param };
      } else if (next === 0x27) {
        const hi = hexValue(bytes[i + 2]);
        const lo = hexValue(bytes[i + 3]);
        i += hi >= 0 && lo >= 0 ? 4 : 2;
        if (hi >= 0 && lo >= 0) yield { kind: 'hex', byte: hi * 16 + lo };
      } else {
        i += 2;
        // `\` before a line break is a paragraph mark.
        yield next === 0x0a || next === 0x0d ? { kind: 'word', word: 'par' } : { kind: 'symbol', symbol: String.fromCharCode(next) };
      }
    } else if (b === 0x0a || b === 0x0d) {
      i++;
    } else {
      let j = i;
      while (j < n) {
        const c = bytes[j] as number;
        if (c === OPEN || c === CLOSE || c === BACKSLASH || c === 0x0a || c === 0x0d) break;
        j++;
      }
      yield { kind: 'text', bytes: bytes.subarray(i, j) };
      i = j;
    }
  }
}
