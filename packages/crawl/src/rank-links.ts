/**
 * Weight of a query term found as a whole word, per field. Titles and paths say what a page is;
 * descriptions are longer and noisier; the host is the same for most links of a site.
 */
const WEIGHTS = { title: 3, path: 3, description: 1, host: 1 } as const;
/** A term found inside a longer word (`doc` in `docs`) counts this fraction of a whole-word match. */
const PARTIAL = 0.5;
/** Added when the whole multi-word query appears, in order, in the title, path or description. */
const PHRASE_BONUS = 4;
/** Added when every query term was found somewhere. */
const ALL_TERMS_BONUS = 2;
/**
 * Up to this much is added per focused field (title, path): times the share of the field's words that
 * match a term, so `/tutorials/sparql` beats `/tutorials/sparql-union-pt` for "sparql tutorial".
 */
const FOCUS_BONUS = 1;
/** Extensions of page URLs, noise in the path's words. */
const PAGE_EXTENSION = /\.(html?|xhtml|shtml|php|aspx?|jsp|cfm)$/i;

type Field = keyof typeof WEIGHTS;

/**
 * Ranks links for a map `search`: the query is split into terms (letters and digits, case and accents
 * ignored; one-character terms dropped unless nothing else is left); each link scores, per term and per
 * field (URL path segments, host, title, description), the field's weight for a whole-word match or half
 * of it for a match inside a word, plus bonuses for the exact phrase, for matching every term and for
 * titles and paths made mostly of matching words. Links
 * are returned best first; equal scores keep their input order; links that match nothing are kept, after
 * the matching ones, in input order. An empty query returns the links in their order. Returns a new array.
 */
export function rankLinks<T extends { url: string; title?: string; description?: string }>(links: T[], search: string): T[] {
  const terms = queryTerms(search);
  if (terms.length === 0) return [...links];
  const scored = links.map((link, index) => ({ link, index, score: scoreLink(link, terms) }));
  scored.sort((a, b) => b.score - a.score || a.index - b.index);
  return scored.map((s) => s.link);
}

function queryTerms(search: string): string[] {
  const all = [...new Set(words(search))];
  const long = all.filter((t) => t.length > 1);
  return long.length > 0 ? long : all;
}

/** Lowercase words of letters and digits, accents removed (`Café-Menü` -> `cafe`, `menu`). */
function words(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '');
}

function scoreLink(link: { url: string; title?: string; description?: string }, terms: string[]): number {
  const fields = linkFields(link);
  let score = 0;
  let found = 0;
  for (const term of terms) {
    let termScore = 0;
    for (const field of Object.keys(WEIGHTS) as Field[]) {
      const fieldWords = fields[field];
      if (fieldWords.includes(term)) termScore += WEIGHTS[field];
      else if (fieldWords.some((w) => w.includes(term))) termScore += WEIGHTS[field] * PARTIAL;
    }
    if (termScore > 0) found++;
    score += termScore;
  }
  if (score === 0) return 0;
  if (terms.length > 1) {
    const phrase = ` ${terms.join(' ')} `;
    if ((['title', 'path', 'description'] as const).some((f) => ` ${fields[f].join(' ')} `.includes(phrase))) score += PHRASE_BONUS;
  }
  if (found === terms.length) score += ALL_TERMS_BONUS;
  for (const field of ['title', 'path'] as const) {
    const fieldWords = fields[field];
    const matching = fieldWords.filter((w) => terms.some((t) => w.includes(t))).length;
    if (fieldWords.length > 0) score += (FOCUS_BONUS * matching) / fieldWords.length;
  }
  return score;
}

function linkFields(link: { url: string; title?: string; description?: string }): Record<Field, string[]> {
  let host = '';
  let path = link.url;
  try {
    const u = new URL(link.url);
    host = u.hostname;
    path = safeDecode(u.pathname).replace(PAGE_EXTENSION, '');
  } catch {
    // Not a URL: score its text as a path.
  }
  return {
    title: words(link.title ?? ''),
    path: words(path),
    description: words(link.description ?? ''),
    host: words(host).filter((w) => w !== 'www'),
  };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
