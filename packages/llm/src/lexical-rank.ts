const K1 = 1.2;
const B = 0.75;

/** English function words: ignored in a query that has other words ("what is the price" -> "price"). */
const STOP_WORDS = new Set(
  ('a an the and or but if then else of in on at to for from by with without about into onto over under as is are was were be ' +
    'been being am do does did doing have has had having it its this that these those there here what which who whom whose ' +
    'when where why how i me my we our you your he him his she her they them their not no so than too very can could should ' +
    'would will shall may might must just also any all some such only own same other each both few more most s t').split(' '),
);

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const CJK_RUNS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+|[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;

/**
 * Ranks texts against a query with BM25 (Unicode word tokens, case-folded, light stemming); returns
 * the indices of the best `limit` texts with a score above zero, best first.
 */
export function rankByQuery(texts: readonly string[], query: string, limit: number): number[] {
  if (limit <= 0 || texts.length === 0) return [];
  const terms = queryTerms(query);
  if (terms.length === 0) return [];
  const docs = texts.map((text) => {
    const counts = new Map<string, number>();
    let length = 0;
    for (const term of tokenize(text)) {
      counts.set(term, (counts.get(term) ?? 0) + 1);
      length++;
    }
    return { counts, length };
  });
  const avgLength = docs.reduce((n, d) => n + d.length, 0) / docs.length || 1;
  const idf = new Map<string, number>();
  for (const term of terms) {
    const df = docs.reduce((n, d) => n + (d.counts.has(term) ? 1 : 0), 0);
    idf.set(term, Math.log(1 + (docs.length - df + 0.5) / (df + 0.5)));
  }
  const scored = docs.map((doc, index) => {
    let score = 0;
    for (const term of terms) {
      const tf = doc.counts.get(term) ?? 0;
      if (tf === 0) continue;
      score += ((idf.get(term) ?? 0) * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * doc.length) / avgLength));
    }
    return { index, score };
  });
  return scored
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, limit)
    .map((s) => s.index);
}

/** The query's distinct terms, without its stop words unless it has nothing else. */
function queryTerms(query: string): string[] {
  const all = words(query);
  const content = all.filter((w) => !STOP_WORDS.has(w));
  const kept = content.length > 0 ? content : all;
  return [...new Set(kept.flatMap(terms))];
}

/** Index terms of a text. */
export function tokenize(text: string): string[] {
  return words(text).flatMap(terms);
}

/** Folded words: NFKD without combining marks (accents), lower case; CJK recomposed (Hangul). */
function words(text: string): string[] {
  const folded = text.normalize('NFKD').replace(/\p{M}/gu, '').normalize('NFC').toLowerCase();
  return folded.match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Terms of one word: a stemmed word, or the character bigrams of its CJK runs. */
function terms(word: string): string[] {
  if (!CJK.test(word)) return [stem(word)];
  const out: string[] = [];
  for (const run of word.match(CJK_RUNS) ?? []) {
    if (!CJK.test(run)) {
      out.push(stem(run));
      continue;
    }
    const chars = [...run];
    if (chars.length === 1) out.push(run);
    for (let i = 0; i + 1 < chars.length; i++) out.push(`${chars[i] ?? ''}${chars[i + 1] ?? ''}`);
  }
  return out;
}

/**
 * A light English stemmer: plural -s/-es/-ies, -ing, -ed, then a final -e, so that "prices",
 * "priced", "pricing" and "price" meet. Words of other scripts are left alone.
 */
export function stem(word: string): string {
  if (!/^[a-z]+$/.test(word) || word.length <= 3) return word;
  let w = word;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (/(?:ss|x|z|ch|sh)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  else if (w.endsWith('ing') && w.length > 5) w = undouble(w.slice(0, -3));
  else if (w.endsWith('ed') && w.length > 4) w = undouble(w.slice(0, -2));
  if (w.endsWith('e') && w.length > 3) w = w.slice(0, -1);
  return w;
}

/** "runn" -> "run", "stopp" -> "stop" (but "fall", "miss", "buzz" stay). */
function undouble(w: string): string {
  const last = w[w.length - 1];
  return last !== undefined && last === w[w.length - 2] && !/[lsz]/.test(last) ? w.slice(0, -1) : w;
}
