/**
 * Emphasis (and GFM strikethrough) markers that a CommonMark parser reads as intended.
 *
 * The emphasis rules cannot see the characters around their element, and CommonMark decides by those
 * characters whether `*` opens or closes emphasis (the flanking rules): `Montauk**.**` and `**"**The` are
 * literal asterisks to a parser. So the rules emit placeholders (private-use characters, removed from the
 * page's own text by escapeMarkdown), and {@link resolveEmphasis} replaces them once the whole markdown
 * is known:
 * - adjacent runs of the same element are merged (`<b>Game D</b><b>ay</b>` is `**Game Day**`, and a
 *   single space between two runs joins them too);
 * - a pair whose element held blocks (its markdown crosses a line end that is not a hard break) is dropped;
 * - each remaining pair becomes `*`/`**` when both of its ends flank as CommonMark requires (`*` also
 *   works inside a word, `_` never does, so `*` is always the better choice), else it is dropped: the
 *   text stays, unemphasized.
 */

export const STRONG_OPEN = '\uE000';
export const STRONG_CLOSE = '\uE001';
export const EM_OPEN = '\uE002';
export const EM_CLOSE = '\uE003';
/**
 * A backslash that escapes a line-start marker (`8.`, `-`, `#`, `>` ...) of a text node: kept only when
 * the marker really starts a line (or a list item's content), dropped mid-line (`Chapter 8.`, not `8\.`).
 */
export const LINE_ESCAPE = '\uE004';
export const STRIKE_OPEN = '\uE005';
export const STRIKE_CLOSE = '\uE006';

/** Any placeholder (used by escapeMarkdown to drop them from page text). */
export const PLACEHOLDERS = /[\uE000-\uE006]/g;
const FIND = /[\uE000-\uE006]/g;
/** What may precede a block marker on its line: indentation, quote markers, list markers. */
const MAX_PREFIX = 160;
const LINE_PREFIX = /^[ \t>]*(?:(?:[-+*]|\d{1,9}[.)])[ \t]+)*\d*$/;
const MERGE = /\uE001 ?\uE000|\uE003 ?\uE002|\uE006 ?\uE005/g;
const MERGEABLE = /\uE001 ?\uE000|\uE003 ?\uE002|\uE006 ?\uE005/;

const isPlaceholder = (code: number): boolean => code >= 0xe000 && code <= 0xe006;
/** CommonMark Unicode whitespace (Zs, tab, line feed, form feed, carriage return); '' is a line edge. */
const WHITESPACE = /^(?:$|[\t\n\f\r\p{Zs}])/u;
/** Punctuation as every CommonMark parser sees it (ASCII punctuation and Unicode P). */
const PUNCT_SURE = /^[!-/:-@[-`{-~\p{P}]/u;
/** Punctuation as some parser may see it (0.31 adds Unicode symbols, S). */
const PUNCT_MAYBE = /^[!-/:-@[-`{-~\p{P}\p{S}]/u;

/** The character before `i`, skipping placeholders ('' at the start). */
function charBefore(md: string, i: number): string {
  let j = i - 1;
  while (j >= 0 && isPlaceholder(md.charCodeAt(j))) j--;
  if (j < 0) return '';
  const code = md.charCodeAt(j);
  // A low surrogate: take the whole code point.
  return code >= 0xdc00 && code <= 0xdfff && j > 0 ? md.slice(j - 1, j + 1) : md.charAt(j);
}

/** The character after `i`, skipping placeholders ('' at the end). */
function charAfter(md: string, i: number): string {
  let j = i + 1;
  while (j < md.length && isPlaceholder(md.charCodeAt(j))) j++;
  if (j >= md.length) return '';
  const code = md.charCodeAt(j);
  // A high surrogate: take the whole code point.
  return code >= 0xd800 && code <= 0xdbff ? md.slice(j, j + 2) : md.charAt(j);
}

/** Left-flanking delimiter run (can open `*` emphasis), judged conservatively. */
function canOpen(prev: string, next: string): boolean {
  if (WHITESPACE.test(next)) return false;
  if (!PUNCT_MAYBE.test(next)) return true;
  return WHITESPACE.test(prev) || PUNCT_SURE.test(prev);
}

/** Right-flanking delimiter run (can close `*` emphasis), judged conservatively. */
function canClose(prev: string, next: string): boolean {
  if (WHITESPACE.test(prev)) return false;
  if (!PUNCT_MAYBE.test(prev)) return true;
  return WHITESPACE.test(next) || PUNCT_SURE.test(next);
}

/**
 * Whether emphasis from `from` to `to` would contain a line end other than a hard break (`  \n`): its
 * element held blocks (paragraphs, lists, tables), and emphasis does not cross blocks.
 */
function breaksBlock(md: string, from: number, to: number): boolean {
  for (let nl = from + 1; nl < to; nl++) {
    if (md.charCodeAt(nl) !== 10) continue;
    if (md.charCodeAt(nl - 1) !== 32 || md.charCodeAt(nl - 2) !== 32) return true;
    // A line of spaces after a hard break (`<br><br>`) becomes a blank line: a paragraph break.
    let j = nl + 1;
    while (md.charCodeAt(j) === 32 || md.charCodeAt(j) === 9) j++;
    if (j >= md.length || md.charCodeAt(j) === 10) return true;
  }
  return false;
}

/** Whether the line-start escape at `i` stands where a block marker would be read. */
function atLineStart(md: string, i: number): boolean {
  let start = i;
  while (start > 0 && md.charCodeAt(start - 1) !== 10) {
    // Indentation and markers are short: a long prefix is text.
    if (i - start > MAX_PREFIX) return false;
    start--;
  }
  return LINE_PREFIX.test(md.slice(start, i).replace(PLACEHOLDERS, ''));
}

/**
 * Replaces the placeholders of a converted document: emphasis by markers or nothing (see above), line-start
 * escapes by a backslash or nothing. The converter calls it only when a rule or the escaping made one.
 */
export function resolvePlaceholders(markdown: string): string {
  let md = markdown;
  // Merging can make new neighbours (`</i></b><b><i>`): again until nothing merges.
  while (MERGEABLE.test(md)) md = md.replace(MERGE, (m) => (m.length === 3 ? ' ' : ''));
  const out: string[] = [];
  const stack: { at: number; slot: number }[] = [];
  let last = 0;
  FIND.lastIndex = 0;
  for (let m = FIND.exec(md); m !== null; m = FIND.exec(md)) {
    const i = m.index;
    const code = md.charCodeAt(i);
    out.push(md.slice(last, i));
    last = i + 1;
    const slot = out.push('') - 1;
    if (code === 0xe004) {
      if (atLineStart(md, i)) out[slot] = '\\';
      continue;
    }
    if (code === 0xe000 || code === 0xe002 || code === 0xe005) {
      stack.push({ at: i, slot });
      continue;
    }
    const open = stack.pop();
    if (open === undefined) continue;
    const around = [charBefore(md, open.at), charAfter(md, open.at), charBefore(md, i), charAfter(md, i)] as const;
    const ok =
      !breaksBlock(md, open.at, i) &&
      canOpen(around[0], around[1]) &&
      canClose(around[2], around[3]) &&
      // A `~` next to `~~` makes a run of three, which is no strikethrough (and a code fence at a line start).
      (code !== 0xe006 || (around[0] !== '~' && around[3] !== '~'));
    if (ok) {
      const marker = code === 0xe001 ? '**' : code === 0xe003 ? '*' : '~~';
      out[open.slot] = marker;
      out[slot] = marker;
    }
  }
  out.push(md.slice(last));
  return out.join('');
}
