import { MIN_UNITS_PER_TWO_CHARS, TOKEN_UNITS, estimateTokens, tokenUnits } from './tokens.js';

/** Options of {@link chunkMarkdown}. */
export interface ChunkOptions {
  /** Most tokens per chunk (estimated). */
  maxTokens: number;
  /** Tokens repeated from the end of one chunk at the start of the next. */
  overlapTokens: number;
}

/** One chunk as two parts: `overlap` (a suffix of the previous chunk) then `body` (the new text). */
export interface ChunkPart {
  overlap: string;
  body: string;
}

/**
 * Splits markdown into chunks of at most `maxTokens`, on headings first (a chunk starts at a heading
 * when it can), then paragraphs, then lines, then hard cuts; never inside a fenced code block or a
 * table row unless one alone is larger than a chunk. One chunk when it fits.
 */
export function chunkMarkdown(markdown: string, opts: ChunkOptions): string[] {
  return chunkMarkdownParts(markdown, opts).map((p) => p.overlap + p.body);
}

/**
 * {@link chunkMarkdown} with each chunk's overlap apart: the bodies concatenated are the markdown,
 * character for character.
 */
export function chunkMarkdownParts(markdown: string, opts: ChunkOptions): ChunkPart[] {
  const maxTokens = Math.max(1, Math.floor(opts.maxTokens));
  if (estimateTokens(markdown) <= maxTokens) return [{ overlap: '', body: markdown }];
  // The overlap is taken from the chunk budget; at most half of it, so bodies keep making progress.
  const overlapTokens = Math.max(0, Math.min(Math.floor(opts.overlapTokens), Math.floor(maxTokens / 2)));
  const doc = analyse(markdown);
  const bodies = splitRange(doc, 0, doc.lines.length, (maxTokens - overlapTokens) * TOKEN_UNITS);
  const parts: ChunkPart[] = [];
  let previous = '';
  for (const body of bodies) {
    let overlap = parts.length === 0 ? '' : tailOf(previous, overlapTokens);
    // Estimates are additive over whole lines; a character tail may join a word: check, shrink if needed.
    while (overlap !== '' && estimateTokens(overlap + body) > maxTokens) overlap = dropHead(overlap);
    parts.push({ overlap, body });
    previous = overlap + body;
  }
  return parts;
}

type Kind = 'text' | 'blank' | 'fence' | 'table';

/** The markdown's lines (each with its `\n`) and what each is. */
interface Doc {
  lines: string[];
  /** Prefix sums of the lines' token units: units of lines [a, b) = `sums[b] - sums[a]`. */
  sums: number[];
  kind: Kind[];
  /** Heading level (1-6) of a line that starts a heading, else 0. */
  heading: number[];
  /** Whether the line starts an unbreakable block (a fence, a table, any other non-blank line). */
  blockStart: boolean[];
}

const FENCE = /^\s*(`{3,}|~{3,})/;
const ATX = /^ {0,3}(#{1,6})(?:[ \t]|$)/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
const TABLE_SEPARATOR = /^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$/;
const BLANK = /^\s*$/;

function analyse(markdown: string): Doc {
  const lines = markdown.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const n = lines.length;
  const sums = [0];
  for (const line of lines) sums.push((sums[sums.length - 1] ?? 0) + tokenUnits(line));
  const kind: Kind[] = new Array<Kind>(n).fill('text');
  const heading: number[] = new Array<number>(n).fill(0);
  const blockStart: boolean[] = new Array<boolean>(n).fill(false);
  const at = (i: number): string => lines[i] ?? '';
  for (let i = 0; i < n; i++) {
    const line = at(i);
    const fence = FENCE.exec(line);
    if (fence?.[1]) {
      const marker = fence[1];
      const close = new RegExp(`^\\s*${marker[0] === '`' ? '`' : '~'}{${marker.length},}\\s*$`);
      blockStart[i] = true;
      kind[i] = 'fence';
      let j = i + 1;
      while (j < n && !close.test(at(j))) kind[j++] = 'fence';
      if (j < n) kind[j] = 'fence';
      i = j;
      continue;
    }
    if (BLANK.test(line)) {
      kind[i] = 'blank';
      continue;
    }
    if (isTableStart(at(i), at(i + 1))) {
      blockStart[i] = true;
      let j = i;
      while (j < n && isTableRow(at(j))) kind[j++] = 'table';
      i = j - 1;
      continue;
    }
    blockStart[i] = true;
    const atx = ATX.exec(line);
    if (atx?.[1]) heading[i] = atx[1].length;
    else if (i + 1 < n && (i === 0 || kind[i - 1] === 'blank') && SETEXT.test(at(i + 1)) && !ATX.test(line)) {
      // "Title\n=====": the underline belongs to the heading's block
      heading[i] = at(i + 1).trim().startsWith('=') ? 1 : 2;
      i++;
    }
  }
  return { lines, sums, kind, heading, blockStart };
}

function isTableRow(line: string): boolean {
  return !BLANK.test(line) && line.includes('|');
}

function isTableStart(line: string, next: string): boolean {
  if (/^\s*\|/.test(line)) return true;
  return line.includes('|') && next.includes('|') && TABLE_SEPARATOR.test(next);
}

/**
 * Bodies of lines [start, end) of at most `budget` units each. Each level of the document structure
 * is tried in turn (headings of the highest level present, paragraphs, blocks, lines, characters):
 * the pieces of the first level that divides the range are packed greedily, and a piece too large
 * for a chunk on its own is split again the same way.
 */
function splitRange(doc: Doc, start: number, end: number, budget: number): string[] {
  if (unitsOf(doc, start, end) <= budget) return [textOf(doc, start, end)];
  const sections = headingCuts(doc, start, end);
  const cuts = sections ?? paragraphCuts(doc, start, end) ?? blockCuts(doc, start, end) ?? lineCuts(doc, start, end);
  if (cuts === undefined) return hardCuts(textOf(doc, start, end), budget);
  const bodies: string[] = [];
  // The packed, not yet emitted text. Pieces end at line ends, where units add up exactly.
  let pending = '';
  let pendingUnits = 0;
  let pieceStart = start;
  for (const pieceEnd of [...cuts, end]) {
    const units = unitsOf(doc, pieceStart, pieceEnd);
    if (pendingUnits + units <= budget) {
      pending += textOf(doc, pieceStart, pieceEnd);
      pendingUnits += units;
    } else {
      if (pending !== '') bodies.push(pending);
      if (units <= budget) {
        pending = textOf(doc, pieceStart, pieceEnd);
        pendingUnits = units;
      } else {
        // Too large alone: split it the same way. Its last part may still take the paragraphs or
        // lines that follow, but not the next section: that one starts a chunk at its heading.
        const parts = splitRange(doc, pieceStart, pieceEnd, budget);
        pending = sections === undefined ? (parts.pop() ?? '') : '';
        pendingUnits = tokenUnits(pending);
        bodies.push(...parts);
      }
    }
    pieceStart = pieceEnd;
  }
  if (pending !== '') bodies.push(pending);
  return bodies;
}

function textOf(doc: Doc, start: number, end: number): string {
  return doc.lines.slice(start, end).join('');
}

function unitsOf(doc: Doc, start: number, end: number): number {
  return (doc.sums[end] ?? 0) - (doc.sums[start] ?? 0);
}

/** Cuts before the headings of the highest level in (start, end), or undefined when there is none. */
function headingCuts(doc: Doc, start: number, end: number): number[] | undefined {
  let level = 7;
  for (let i = start + 1; i < end; i++) {
    const h = doc.heading[i] ?? 0;
    if (h > 0 && h < level) level = h;
  }
  if (level === 7) return undefined;
  const cuts: number[] = [];
  for (let i = start + 1; i < end; i++) if (doc.heading[i] === level) cuts.push(i);
  return cuts;
}

/** Cuts before each block that follows a blank line (blank lines stay with the text before them). */
function paragraphCuts(doc: Doc, start: number, end: number): number[] | undefined {
  return cutsWhere(doc, start, end, (i) => doc.blockStart[i] === true && doc.kind[i - 1] === 'blank');
}

/** Cuts before each block: a fenced code block and a table stay whole. */
function blockCuts(doc: Doc, start: number, end: number): number[] | undefined {
  return cutsWhere(doc, start, end, (i) => doc.blockStart[i] === true);
}

function cutsWhere(doc: Doc, start: number, end: number, cutBefore: (i: number) => boolean): number[] | undefined {
  const cuts: number[] = [];
  let seenText = false; // leading blank lines belong to the first piece
  for (let i = start; i < end; i++) {
    if (i > start && seenText && cutBefore(i)) cuts.push(i);
    if (doc.kind[i] !== 'blank') seenText = true;
  }
  return cuts.length > 0 ? cuts : undefined;
}

/** Cuts before every line with text (inside a block too large for a chunk); blank lines stay with the line before. */
function lineCuts(doc: Doc, start: number, end: number): number[] | undefined {
  return cutsWhere(doc, start, end, (i) => !BLANK.test(doc.lines[i] ?? ''));
}

/**
 * One line (and the blank lines after it) too large for a chunk, cut at the longest prefix within the
 * budget: after the last sentence end in its last third, else after its last space in its second
 * half, else anywhere but between the two halves of a surrogate pair. Every piece holds at least one
 * character, so an impossible budget still ends.
 */
function hardCuts(line: string, budget: number): string[] {
  const pieces: string[] = [];
  let rest = line;
  const most = maxChars(budget); // any longer text is over the budget
  while (rest !== '' && (rest.length > most || tokenUnits(rest) > budget)) {
    let cut = longestPrefix(rest, budget);
    const sentence = lastSentenceEnd(rest, cut);
    const space = rest.lastIndexOf(' ', cut - 1);
    if (sentence > (cut * 2) / 3) cut = sentence;
    else if (space > cut / 2) cut = space + 1;
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  if (rest !== '') pieces.push(rest);
  return pieces;
}

/** The index after the white space that follows the last sentence end before `limit`, or -1. */
function lastSentenceEnd(text: string, limit: number): number {
  const from = Math.max(0, Math.floor((limit * 2) / 3) - 2);
  let found = -1;
  for (const m of text.slice(from, limit).matchAll(/[.!?。！？]["')\]]*[ \t]+/g)) found = from + m.index + m[0].length;
  return found <= limit ? found : -1;
}

/** The length of the longest prefix of `text` within `budget` units (at least one code point). */
function longestPrefix(text: string, budget: number): number {
  let low = 1; // token units never decrease as text grows: binary search
  let high = Math.min(text.length, maxChars(budget));
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (tokenUnits(text.slice(0, mid)) <= budget) low = mid;
    else high = mid - 1;
  }
  return safeCut(text, low === 0 ? 1 : low);
}

/** The most characters a text within `budget` units can have. */
function maxChars(budget: number): number {
  return Math.floor((2 * budget) / MIN_UNITS_PER_TWO_CHARS) + 2;
}

/** Moves a cut off the middle of a surrogate pair (forward when it would leave nothing). */
function safeCut(text: string, cut: number): number {
  const code = text.charCodeAt(cut);
  if (cut < text.length && code >= 0xdc00 && code <= 0xdfff) return cut > 1 ? cut - 1 : cut + 1;
  return cut;
}

/** Up to `tokens` of the end of `text`: whole lines when at least one fits, else the end of the last line. */
function tailOf(text: string, tokens: number): string {
  if (tokens <= 0 || text === '') return '';
  const budget = tokens * TOKEN_UNITS;
  let start = text.length;
  let units = 0;
  // Walk back over whole lines (each ends with \n except perhaps the last).
  while (start > 0) {
    const lineStart = start >= 2 ? text.lastIndexOf('\n', start - 2) + 1 : 0;
    const lineUnits = tokenUnits(text.slice(lineStart, start));
    if (units + lineUnits > budget) break;
    units += lineUnits;
    start = lineStart;
  }
  const tail = text.slice(start).replace(/^(?:[ \t]*\r?\n)+/, ''); // no leading blank lines
  if (!BLANK.test(tail)) return tail;
  // Not even the last line with text fits: the end of it (with the blank lines after it).
  const contentEnd = text.trimEnd().length;
  if (contentEnd === 0) return '';
  return characterTail(text.slice(text.lastIndexOf('\n', contentEnd - 1) + 1), budget);
}

/** The longest end of `line` (one line with text, then blank lines) within `budget` units, starting at a word when it can. */
function characterTail(line: string, budget: number): string {
  let low = Math.max(0, line.length - maxChars(budget));
  let high = line.length;
  while (low < high) {
    const mid = Math.floor((low + high) / 2);
    if (tokenUnits(line.slice(mid)) <= budget) high = mid;
    else low = mid + 1;
  }
  let start = low;
  const code = line.charCodeAt(start);
  if (code >= 0xdc00 && code <= 0xdfff) start++;
  // Start at a sentence when one starts in the first half, else at a word.
  const half = start + (line.length - start) / 2;
  const sentence = /[.!?。！？]["')\]]*[ \t]+/g;
  sentence.lastIndex = start;
  const next = sentence.exec(line);
  const space = line.indexOf(' ', start);
  if (next !== null && next.index + next[0].length < half) start = next.index + next[0].length;
  else if (space >= 0 && space < half) start = space + 1;
  const tail = line.slice(start);
  return BLANK.test(tail) ? '' : tail;
}

/** The overlap without its first line (or its first half when it is one line). */
function dropHead(overlap: string): string {
  const nl = overlap.indexOf('\n');
  if (nl >= 0 && nl < overlap.length - 1) return overlap.slice(nl + 1);
  if (overlap.length < 2) return '';
  return overlap.slice(safeCut(overlap, Math.ceil(overlap.length / 2)));
}
