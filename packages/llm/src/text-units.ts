/** A unit of markdown that can be quoted verbatim: a sentence of a paragraph, a list item, a heading, a table row. */
export interface TextUnit {
  /** The unit's text, verbatim from the markdown. */
  text: string;
  /** 0-based index of the markdown line it starts on. */
  line: number;
}

const FENCE = /^\s*(`{3,}|~{3,})/;
const HEADING = /^ {0,3}#{1,6}(?:[ \t]+|$)/;
const SETEXT_UNDERLINE = /^ {0,3}(?:=+|-+)[ \t]*$/;
const THEMATIC_BREAK = /^ {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$/;
const LIST_ITEM = /^\s*(?:[-*+]|\d{1,9}[.)])[ \t]+/;
const TABLE_SEPARATOR = /^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$/;
const QUOTE = /^\s*(?:>\s?)+/;

/**
 * Splits markdown into quotable units (sentences of prose; list items, headings, table rows and code
 * lines whole). Each unit's text is a verbatim substring of the markdown, without the markers of its
 * line (`#`, `-`, `1.`, `>`) and without surrounding white space; a sentence may span the lines of
 * one paragraph.
 */
export function splitUnits(markdown: string): TextUnit[] {
  const lines = markdown.split('\n');
  const units: TextUnit[] = [];
  const push = (text: string, line: number): void => {
    const trimmed = text.trim();
    if (trimmed !== '') units.push({ text: trimmed, line });
  };
  let fence: RegExp | undefined;
  let inTable = false;
  let paragraph: { start: number; lines: string[] } | undefined;
  const endParagraph = (): void => {
    if (paragraph !== undefined) for (const s of sentences(paragraph.lines.join('\n'), paragraph.start)) units.push(s);
    paragraph = undefined;
  };
  lines.forEach((raw, i) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (fence !== undefined) {
      if (fence.test(line)) fence = undefined;
      else push(line, i);
      return;
    }
    const open = FENCE.exec(line);
    if (open?.[1]) {
      endParagraph();
      fence = new RegExp(`^\\s*${open[1][0] === '`' ? '`' : '~'}{${open[1].length},}\\s*$`);
      return;
    }
    if (paragraph !== undefined && SETEXT_UNDERLINE.test(line)) {
      // "Title\n=====": the paragraph so far is a heading
      for (const [k, text] of paragraph.lines.entries()) push(text, paragraph.start + k);
      paragraph = undefined;
      return;
    }
    const wasTable = inTable;
    inTable = false;
    if (line.trim() === '' || THEMATIC_BREAK.test(line)) {
      endParagraph();
      return;
    }
    const heading = HEADING.exec(line);
    if (heading !== null) {
      endParagraph();
      push(line.slice(heading[0].length).replace(/[ \t]+#+[ \t]*$/, ''), i);
      return;
    }
    if (line.includes('|') && (wasTable || /^\s*\|/.test(line) || isTableSeparator(lines[i + 1]))) {
      endParagraph();
      inTable = true;
      if (!TABLE_SEPARATOR.test(line)) push(line, i);
      return;
    }
    const item = LIST_ITEM.exec(line) ?? QUOTE.exec(line);
    if (item !== null) {
      endParagraph();
      if (LIST_ITEM.test(line)) push(line.slice(item[0].length), i);
      else for (const s of sentences(line.slice(item[0].length), i)) units.push(s);
      return;
    }
    if (paragraph === undefined) paragraph = { start: i, lines: [] };
    paragraph.lines.push(raw); // with its \r if any: a sentence across lines stays verbatim
  });
  endParagraph();
  return units;
}

function isTableSeparator(line: string | undefined): boolean {
  return line !== undefined && line.includes('|') && line.includes('-') && TABLE_SEPARATOR.test(line);
}

/** Words after which a period does not end a sentence (compared lower-cased, without the period). */
const ABBREVIATIONS = new Set([
  'mr', 'mrs', 'ms', 'dr', 'prof', 'sr', 'jr', 'st', 'mt', 'vs', 'approx', 'cf', 'al', 'inc', 'ltd', 'corp', 'dept',
  'gen', 'gov', 'rev', 'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec', 'ca',
  'resp', 'incl', 'dipl', 'ing', 'bzw', 'usw', 'z', 'ggf', 'mme', 'mlle',
]);

/** Words after which a period does not end a sentence when a number follows ("No. 5", "p. 12"). */
const NUMBER_ABBREVIATIONS = new Set(['no', 'nos', 'nr', 'p', 'pp', 'vol', 'vols', 'fig', 'figs', 'ch', 'sec', 'art', 'para']);

/** Spans whose periods never end a sentence: links and images (escaped brackets allowed in the text), code spans, autolinks and tags, footnote marks "[12]". */
const PROTECTED = /!?\[(?:\\.|[^\]\\\n])*\]\([^)\n]*\)|`[^`\n]*`|<[^>\n]*>|\\?\[\d{1,3}\\?\]/g;

/** Sentences of a paragraph starting on line `firstLine`, as verbatim substrings. */
function sentences(text: string, firstLine: number): TextUnit[] {
  const protectedRanges = [...text.matchAll(PROTECTED)].map((m) => [m.index, m.index + m[0].length] as const);
  const isProtected = (i: number): boolean => protectedRanges.some(([a, b]) => i >= a && i < b);
  const out: TextUnit[] = [];
  let start = 0;
  const emit = (end: number): void => {
    const piece = text.slice(start, end);
    const lead = piece.length - piece.trimStart().length;
    const trimmed = piece.trim();
    if (trimmed !== '') out.push({ text: trimmed, line: firstLine + countNewlines(text, start + lead) });
    start = end;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? '';
    if (c === '。' || c === '！' || c === '？') {
      if (!isProtected(i)) emit(closingEnd(text, i + 1));
      continue;
    }
    if (c !== '.' && c !== '!' && c !== '?') continue;
    if (isProtected(i)) continue;
    let end = i + 1;
    while (text[end] === '.' || text[end] === '!' || text[end] === '?') end++;
    end = closingEnd(text, end);
    // A footnote mark right after the terminator ("end.[\\[12\\]](#cite-12) Next") belongs to the sentence.
    for (let range = protectedRanges.find(([a]) => a === end); range !== undefined; range = protectedRanges.find(([a]) => a === end)) end = range[1];
    if (end < text.length && !/\s/.test(text[end] ?? '')) continue;
    const next = /\S/.exec(text.slice(end))?.[0];
    if (c === '.' && end === i + 1 && isAbbreviation(text, i, next)) continue;
    if (next !== undefined && /\p{Ll}/u.test(next)) continue; // "approx. five", "3 p.m. today"
    emit(end);
    i = end - 1;
  }
  emit(text.length);
  return out;
}

/** The end of a sentence after its terminator, past closing quotes and brackets. */
function closingEnd(text: string, end: number): number {
  while (end < text.length && /["'”’»)\]*_」』）]/.test(text[end] ?? '')) end++;
  return end;
}

/** Whether the period at `dot` ends an abbreviation ("Dr.", "e.g.", "U.S.", a single initial). */
function isAbbreviation(text: string, dot: number, next: string | undefined): boolean {
  const word = /[\p{L}\p{N}.]*$/u.exec(text.slice(Math.max(0, dot - 24), dot))?.[0] ?? '';
  if (word === '') return false;
  if (/^(?:\p{L}{1,2}\.)+\p{L}{1,2}$/u.test(word)) return true; // e.g, i.e, U.S, Ph.D, a.m
  if (/^\p{Lu}$/u.test(word)) return true; // an initial: "J. Smith"
  const lower = word.toLowerCase();
  return ABBREVIATIONS.has(lower) || (NUMBER_ABBREVIATIONS.has(lower) && next !== undefined && /\p{N}/u.test(next));
}

function countNewlines(text: string, end: number): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < end; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
