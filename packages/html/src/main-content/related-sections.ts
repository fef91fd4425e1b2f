import type { Element } from 'domhandler';
import { domToText } from '../dom/dom-text.js';
import type { ScoredTree } from './score-tree.js';

/**
 * Titles of teaser sections ("Related posts", "Mehr zum Thema", ...). Teasers are prose-like (a
 * title and an excerpt), so scores alone keep them; their title says what they are.
 */
const RELATED_TITLE =
  /^(?:related(?: posts| articles| stories| content| links)?|recommended(?: for you| stories| articles)?|you (?:may|might) also like|more (?:from|on|stories|articles|in|about)\b.*|read (?:more|next|also)|see also|popular(?: posts| articles| now)?|most (?:read|popular|viewed)|trending(?: now)?|further reading|latest (?:news|posts|articles)|das könnte sie (?:auch )?interessieren|(?:lesen sie|lies) (?:auch|mehr|weiter)|mehr zum thema|mehr (?:aus|zu|von) .*|weitere (?:artikel|beiträge|nachrichten|meldungen|themen|informationen)|ähnliche (?:artikel|beiträge)|auch interessant|meistgelesen|diese beiträge .*|sie könnten auch .*|verwandte (?:artikel|beiträge)|à lire aussi|lire aussi|articles? similaires?|sur le même sujet|dans la même rubrique|zobacz (?:też|także)|czytaj (?:też|także|więcej)|podobne)\s*[:.!?…]*$/i;

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
    if (!TITLE_TAGS.has(el.name) || !RELATED_TITLE.test(domToText(el).trim())) continue;
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
      if ((tree.positive[next] as number) < rootPositive * maxShare) {
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
