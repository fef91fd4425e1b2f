/**
 * Token estimates without a tokenizer: the model behind the endpoint is unknown, so the estimate errs
 * on the high side. Weights are kept in integer units of 1/20 token so that sums are exact: the
 * chunker adds the weights of whole lines instead of re-estimating every candidate chunk.
 *
 * Every two characters cost at least {@link MIN_UNITS_PER_TWO_CHARS} units (the chunker bounds its
 * searches with it).
 *
 * Calibration (BPE tokenizers of current models): English prose is about 4 characters per token; a
 * word is at least one token (the run start weight); punctuation and brackets are often their own
 * token (code); accented Latin, Greek and Cyrillic letters take about 2 per token; CJK ideographs,
 * kana and Hangul are about one token each; emoji and other astral characters one or more.
 */

/** Units per token. */
export const TOKEN_UNITS = 20;

/** A lower bound of the units of any two consecutive characters. */
export const MIN_UNITS_PER_TWO_CHARS = 5;

const LETTER = 5; // ASCII letter or digit: 4 per token
const RUN_START = 5; // a new word: short words still cost a token
const PUNCT = 14; // ASCII punctuation and symbols
const NEWLINE = 10;
const SPACE_REPEAT = 5; // a space or tab after another one (indentation, alignment)
const WIDE_LETTER = 10; // non-ASCII alphabetic letters (accented Latin, Greek, Cyrillic, ...)
const CJK = 20;
const SYMBOL = 20; // general punctuation, arrows, box drawing, dingbats ...
const ASTRAL = 30; // a surrogate pair: emoji, rare ideographs

/**
 * The weight of a text in units of 1/{@link TOKEN_UNITS} token. Additive over texts that end with a
 * newline: `tokenUnits(a + b) === tokenUnits(a) + tokenUnits(b)` when `a` ends with `\n`, because a
 * newline ends any word and any run of spaces.
 */
export function tokenUnits(text: string): number {
  let units = 0;
  let inWord = false;
  let afterSpace = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    let word = false;
    let space = false;
    if (c < 128) {
      if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57)) {
        units += inWord ? LETTER : LETTER + RUN_START;
        word = true;
      } else if (c === 32 || c === 9 || c === 13) {
        if (afterSpace) units += SPACE_REPEAT;
        space = true;
      } else if (c === 10) {
        units += NEWLINE;
      } else {
        units += PUNCT;
      }
    } else if (c >= 0xd800 && c <= 0xdbff) {
      units += ASTRAL; // the low surrogate that follows adds nothing
    } else if (c >= 0xdc00 && c <= 0xdfff) {
      // a low surrogate is counted with its high surrogate; a lone one as a symbol
      const before = i > 0 ? text.charCodeAt(i - 1) : 0;
      if (before < 0xd800 || before > 0xdbff) units += SYMBOL;
    } else if (isCjk(c)) {
      units += CJK;
    } else if (c === 0xa0) {
      if (afterSpace) units += SPACE_REPEAT;
      space = true;
    } else if ((c >= 0xc0 && c <= 0x24f) || (c >= 0x370 && c <= 0x52f) || (c >= 0x1e00 && c <= 0x1fff)) {
      units += inWord ? WIDE_LETTER : WIDE_LETTER + RUN_START;
      word = true;
    } else if (c >= 0x2000 && c <= 0x2bff) {
      units += SYMBOL;
    } else {
      // other scripts (Arabic, Hebrew, Devanagari, Thai ...) and Latin-1 symbols: about 2 per token
      units += WIDE_LETTER + 2;
    }
    inWord = word;
    afterSpace = space;
  }
  return units;
}

function isCjk(c: number): boolean {
  return (
    (c >= 0x3000 && c <= 0x30ff) || // CJK punctuation, hiragana, katakana
    (c >= 0x3400 && c <= 0x4dbf) ||
    (c >= 0x4e00 && c <= 0x9fff) ||
    (c >= 0xac00 && c <= 0xd7af) || // Hangul syllables
    (c >= 0x1100 && c <= 0x11ff) || // Hangul jamo
    (c >= 0xf900 && c <= 0xfaff) ||
    (c >= 0xff00 && c <= 0xffef) // full-width forms
  );
}

/** Tokens of a number of units: rounded up, at least one for a non-empty text. */
export function unitsToTokens(units: number, nonEmpty: boolean): number {
  const tokens = Math.ceil(units / TOKEN_UNITS);
  return nonEmpty && tokens < 1 ? 1 : tokens;
}

/** An estimate of a text's tokens without a tokenizer (the model is unknown): conservative for prose, code and CJK. */
export function estimateTokens(text: string): number {
  return unitsToTokens(tokenUnits(text), text.length > 0);
}
