import type { Element } from 'domhandler';
import { domToText } from '../dom/dom-text.js';
import type { ScoredTree } from './score-tree.js';

/**
 * Titles of teaser sections ("Related posts", "Mehr zum Thema", ...). Teasers are prose-like (a
 * title and an excerpt), so scores alone keep them; their title says what they are.
 */
const RELATED_TITLE =
  /^(?:related(?: posts| articles| stories| content| links)?|recommended(?: for you| stories| articles)?|you (?:may|might) also like|more (?:from|on|stories|articles|in|about)\b.*|read (?:more|next|also)|see also|popular(?: posts| articles| now)?|most (?:read|popular|viewed)|trending(?: now)?|further reading|latest (?:news|posts|articles)|das könnte sie (?:auch )?interessieren|(?:lesen sie|lies) (?:auch|mehr|weiter)|mehr zum thema|mehr (?:aus|zu|von) .*|weitere (?:artikel|beiträge|nachrichten|meldungen|themen|informationen)|ähnliche (?:artikel|beiträge)|auch interessant|meistgelesen|diese beiträge .*|sie könnten auch .*|verwandte (?:artikel|beiträge)|à lire aussi|lire aussi|articles? similaires?|sur le même sujet|dans la même rubrique|zobacz (?:też|także)|czytaj (?:też|także|więcej)|podobne)\s*[:.!?…]*$/i;

/**
 * Starts of teaser-section titles followed by more words ("Das Thema könnte dich auch interessieren:",
 * "Lesen Sie auch die folgenden Beiträge:", "Você pode gostar..."), in the languages of the pages
 * this extractor meets. Only short titles are tested (see findRelatedSections).
 */
const RELATED_TITLE_START = new RegExp(
  '^(?:' +
    [
      // English
      'related (?:posts|articles|stories|content|links|topics|reading|news|videos?)\\b', 'you (?:may|might) (?:also )?(?:like|enjoy|be interested)',
      'read (?:further|more|next|also)\\b', 'further reading', 'more (?:like this|to read|stories|articles|news)\\b', 'recommended (?:for you|reading|stories|articles)',
      'also (?:read|on|see)\\b', 'don\'t miss\\b', 'keep reading\\b', 'what to read next',
      // German
      '(?:das|dies|diese?s?)(?: thema)? (?:könnte|könnten) (?:dich|sie|euch) (?:auch |ebenfalls )?interessieren', '(?:lesen sie|lies) (?:auch|mehr|weiter)\\b',
      'zum weiterlesen', 'weiterlesen\\s*:', 'mehr (?:zum thema|themen|artikel|beiträge|dazu|lesen)\\b', 'weitere (?:artikel|beiträge|nachrichten|meldungen|themen|infos|tipps|tourentipps|aktuelle)\\b',
      'schon gelesen', 'verwandte (?:artikel|beiträge|themen|themenbereiche|inhalte)', 'ähnliche (?:artikel|beiträge|themen|rezepte)', 'auch interessant',
      'passend (?:dazu|zum thema)', 'unsere (?:empfehlungen|tipps)', 'beliebte (?:artikel|beiträge)', 'neueste (?:artikel|beiträge)', 'lust auf mehr', 'siehe auch',
      // Portuguese, Spanish, Italian
      'você (?:também )?(?:pode|poderá) gostar', 'leia (?:também|mais)', 'veja (?:também|mais)', 'not[íi]cias relacionadas', 'mais lidas', 'saiba mais',
      'te (?:puede|podría) interesar', 'también te (?:puede|podría) interesar', 'lee (?:también|más)', 'noticias relacionadas', 'más noticias', 'lo más (?:leído|visto)', 'contenido relacionado',
      'leggi anche', 'potrebbe interessarti', 'articoli correlati',
      // French, Dutch, Polish
      'à lire (?:aussi|également)', 'lire (?:aussi|également|la suite)', 'sur le même (?:sujet|thème)', 'vous (?:aimerez|pourriez aimer) aussi', 'les plus lus', 'nos derniers articles', 'articles? (?:similaires|connexes|liés)',
      'lees ook', 'gerelateerde artikelen', 'meer (?:nieuws|lezen)',
      'zobacz (?:też|także|również)', '(?:prze)?czytaj (?:też|także|również|więcej)', 'polecamy', 'najczęściej czytane', 'podobne artykuły', 'powiązane',
    ].join('|') +
    ')',
  'i',
);

/**
 * Titles of author boxes and contact blocks after the article: their body is prose (a bio, an
 * address), so the block after a bare title goes with it whatever its links.
 */
const AUTHOR_TITLE =
  /^(?:about the author|über (?:den|die) autor(?:in)?|zu(?:m|r) autor(?:in)?|à propos de l'auteur|sobre (?:el|la|o|a) autora?|o autorze|kontakt|pressekontakt|contact)\s*:?$/i;

/** Elements that carry section titles; an inline link or a list item is never a section title. */
const TITLE_TAGS: ReadonlySet<string> = new Set([
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'div', 'span', 'strong', 'b', 'header', 'section', 'dt', 'legend', 'figcaption',
]);

/**
 * Finds teaser sections inside the content by their title and returns the containers to remove: for
 * each short element whose whole text is such a title, the highest ancestor below the content root
 * that starts with that title and holds little of the content's prose (under `maxShare`).
 */
export function findRelatedSections(tree: ScoredTree, rootIdx: number, maxShare: number): Element[] {
  const out: Element[] = [];
  const rootPositive = tree.positive[rootIdx] as number;
  const end = rootIdx + (tree.size[rootIdx] as number);
  for (let j = rootIdx + 1; j < end; j++) {
    const t = tree.text[j] as number;
    if (t === 0 || t > 60) continue;
    const el = tree.elements[j] as Element;
    if (!TITLE_TAGS.has(el.name)) continue;
    const title = domToText(el).trim();
    const author = AUTHOR_TITLE.test(title);
    if (!author && !RELATED_TITLE.test(title) && !RELATED_TITLE_START.test(title)) continue;
    let top = j;
    for (let p = tree.parent[top] as number; p > rootIdx; p = tree.parent[p] as number) {
      if ((tree.positive[p] as number) >= rootPositive * maxShare) break;
      if (!startsWith(tree, p, top)) break;
      top = p;
    }
    out.push(tree.elements[top] as Element);
    j = top + (tree.size[top] as number) - 1;
    // A bare title: the teasers are its next sibling (heading + list layout).
    const next = j + 1;
    if ((tree.text[top] as number) <= 60 && next < end && tree.parent[next] === tree.parent[top]) {
      if ((tree.positive[next] as number) < rootPositive * maxShare && (author || isTeaserBlock(tree, next))) {
        out.push(tree.elements[next] as Element);
        j = next + (tree.size[next] as number) - 1;
      }
    }
  }
  return out;
}

/** True when no text precedes element `child` inside element `p` (the child is p's title). */
function startsWith(tree: ScoredTree, p: number, child: number): boolean {
  for (let k = p + 1; k < child; k++) {
    // Elements before `child` in pre-order that are not its ancestors come before it in the text.
    if ((tree.text[k] as number) > 0 && !(k < child && child < k + (tree.size[k] as number))) return false;
  }
  return true;
}

/**
 * The teasers after a bare related-title: a block of links (a list, or text mostly in links). A
 * paragraph of prose after the title is the article's own next paragraph (the box sat inside the body).
 */
function isTeaserBlock(tree: ScoredTree, i: number): boolean {
  const text = tree.text[i] as number;
  if (text === 0) return (tree.structured[i] as number) > 0;
  const ld = (tree.linkText[i] as number) / text;
  if (ld >= 0.5) return true;
  // A paragraph, or a block without a link, reads on.
  return ld > 0 && (tree.elements[i] as Element).name !== 'p';
}
