import type { Element } from 'domhandler';
import type { ScoredTree } from './score-tree.js';

const HEADING = /^h[1-6]$/;

/** An item longer than this (characters) is an article section, not a teaser. */
const MAX_ITEM_TEXT = 1000;

/** A list needs this many teaser items to be a teaser list. */
const MIN_ITEMS = 3;

/** Share of a list's text that its teaser items must hold. */
const MIN_ITEM_SHARE = 0.6;

/** Teaser lists are discounted only when the rest of the page has this much prose relative to them. */
const MIN_OWN_PROSE = 0.25;

/**
 * Finds teaser lists (streams of "linked headline + summary" cards: "Recommended for you", section
 * fronts, search results) and takes their prose out of the scores: each summary reads like prose, so
 * a stream of them outweighs the article it follows. A teaser is an element with exactly one heading
 * that links to another page (fragment links are section anchors) and little text; a teaser list is
 * an element whose children are mostly teasers. Its score becomes that of a link list (minus its link
 * text) in the list and all its ancestors. Returns a mark per element: 1 for the teaser lists.
 */
export function discountTeaserLists(tree: ScoredTree): Uint8Array {
  const n = tree.elements.length;
  const marks = new Uint8Array(n);
  const headings = new Int32Array(n);
  let any = false;
  for (let i = 0; i < n; i++) {
    if (isLinkedHeading(tree, i)) {
      headings[i] = 1;
      any = true;
    }
  }
  if (!any) return marks;
  for (let i = n - 1; i >= 0; i--) {
    const p = tree.parent[i] as number;
    if (p >= 0) headings[p] = (headings[p] as number) + (headings[i] as number);
  }
  const lists: number[] = [];
  let listPositive = 0;
  for (let i = 0; i < n; i++) {
    if ((headings[i] as number) < MIN_ITEMS || !isTeaserList(tree, headings, i)) continue;
    lists.push(i);
    listPositive += tree.positive[i] as number;
    // Lists nested in this one go with it.
    i += (tree.size[i] as number) - 1;
  }
  let pagePositive = 0;
  for (let i = 0; i < n; i++) if (tree.parent[i] === -1) pagePositive += tree.positive[i] as number;
  // Without prose of its own besides them, the teasers are the page (a listicle, a section front).
  if (pagePositive - listPositive < listPositive * MIN_OWN_PROSE) return marks;
  for (const i of lists) {
    marks[i] = 1;
    const dScore = -(tree.linkText[i] as number) - (tree.score[i] as number);
    const dPositive = -(tree.positive[i] as number);
    for (let a = i; a >= 0; a = tree.parent[a] as number) {
      tree.score[a] = (tree.score[a] as number) + dScore;
      tree.positive[a] = (tree.positive[a] as number) + dPositive;
    }
  }
  return marks;
}

/** A heading whose text is (nearly) all one link to another page. */
function isLinkedHeading(tree: ScoredTree, i: number): boolean {
  const el = tree.elements[i] as Element;
  if (!HEADING.test(el.name)) return false;
  const text = tree.text[i] as number;
  if (text < 10 || (tree.linkText[i] as number) < text * 0.9) return false;
  const end = i + (tree.size[i] as number);
  for (let j = i + 1; j < end; j++) {
    const a = tree.elements[j] as Element;
    if (a.name !== 'a') continue;
    const href = a.attribs['href'];
    return href !== undefined && href !== '' && !href.startsWith('#');
  }
  return false;
}

/**
 * True when the children of `i` that are teasers (one linked heading, short, some prose) are at least
 * MIN_ITEMS and hold most of its text.
 */
function isTeaserList(tree: ScoredTree, headings: Int32Array, i: number): boolean {
  let items = 0;
  let itemText = 0;
  const end = i + (tree.size[i] as number);
  for (let c = i + 1; c < end; c += tree.size[c] as number) {
    const text = tree.text[c] as number;
    if (headings[c] !== 1 || text > MAX_ITEM_TEXT || (tree.positive[c] as number) <= 0) continue;
    items++;
    itemText += text;
  }
  return items >= MIN_ITEMS && itemText >= (tree.text[i] as number) * MIN_ITEM_SHARE;
}
