/** Small text helpers of the layout step: escaping, script detection, joining pieces of text. */

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"]/g, (c) => HTML_ESCAPES[c] ?? c);
}

/**
 * Han, Hiragana, Katakana, CJK punctuation and full-width forms: scripts written without spaces
 * between words. (Hangul is not here: Korean separates words with spaces.)
 */
const CJK = /[\u2E80-\u2FFF\u3000-\u30FF\u3100-\u312F\u3190-\u31FF\u3400-\u4DBF\u4E00-\u9FFF\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFF61-\uFF9F]|[\uD840-\uD87F][\uDC00-\uDFFF]/;

export function isCjkChar(ch: string): boolean {
  return CJK.test(ch);
}

/** Strong right-to-left letters: Hebrew, Arabic, Syriac, Thaana, NKo, and their presentation forms. */
const RTL_CHAR = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/g;
const LETTER = /\p{L}/gu;

/** Share of letters of `text` that are right-to-left (0 when it has no letters). */
export function rtlShare(text: string): number {
  const letters = text.match(LETTER)?.length ?? 0;
  if (letters === 0) return 0;
  return (text.match(RTL_CHAR)?.length ?? 0) / letters;
}

const lastChar = (s: string): string => {
  const cp = s.codePointAt(s.length - 1);
  // A trailing low surrogate: take the whole pair.
  if (cp !== undefined && cp >= 0xdc00 && cp <= 0xdfff && s.length >= 2) return s.slice(-2);
  return s.slice(-1);
};
const firstChar = (s: string): string => String.fromCodePoint(s.codePointAt(0) ?? 32);

/** True when two pieces of text placed side by side need no space between them (CJK on both sides). */
export function joinsWithoutSpace(left: string, right: string): boolean {
  if (left === '' || right === '') return true;
  return isCjkChar(lastChar(left)) && isCjkChar(firstChar(right));
}

/** True when the text ends with whitespace or starts with whitespace (no separator needed). */
export function hasSpaceAtJoin(left: string, right: string): boolean {
  return /\s$/.test(left) || /^\s/.test(right);
}

/** Sentence-ending punctuation at the end of a line, allowing closing quotes and brackets. */
export function endsSentence(text: string): boolean {
  return /[.!?:;。！？]["'”’)\]]*\s*$/.test(text);
}

/** Collapses whitespace runs (the text layer emits spaces, tabs and NBSPs) into single spaces. */
export function normalizeSpaces(text: string): string {
  return text.replace(/[\s\u00A0]+/g, ' ');
}
