import { Document, type AnyNode, type Element, type ParentNode } from 'domhandler';
import { BLOCK_TAGS, filterChildren, isElement, isText, relinkChildren, removeNode, textContent } from '../dom/dom-helpers.js';
import { BOILERPLATE_TAGS, isSemanticContent } from './boilerplate-hints.js';
import { discountSlideshows, discountTickers, isMetaLine } from './article-meta.js';
import { findRelatedSections } from './related-sections.js';
import { scoreTree, type ScoredTree } from './score-tree.js';
import { discountTeaserLists } from './teaser-lists.js';

/** Options of {@link extractMainContent}. */
export interface MainContentOptions {
  /**
   * Below this many characters of text the chosen container is not trusted and the whole (lightly
   * pruned) body is returned instead. Default 150.
   */
  minTextLength?: number;
}

/** What {@link extractMainContent} chose. */
export interface MainContentResult {
  /** A Document holding the main content (moved out of the input tree). */
  root: Document;
  /** True when no container was convincing and the pruned body was returned. */
  fallback: boolean;
}

/** Index of the element whose subtree has the best content score; ties go to the deeper element. */
function pickBest(tree: ScoredTree): number {
  let best = -1;
  let bestValue = 0;
  for (let i = 0; i < tree.elements.length; i++) {
    const el = tree.elements[i] as Element;
    const s = tree.score[i] as number;
    if (s <= 0) continue;
    const value = isSemanticContent(el) ? s * 1.2 : s;
    if (value >= bestValue) {
      best = i;
      bestValue = value;
    }
  }
  return best;
}

const HEADING = /^h[1-6]$/;

/**
 * Parts of tables and lists: link density judges a table or a list as a whole (a row of link cells or
 * a reference made of links belongs to it). Hints still remove parts, and their contents are pruned.
 */
const WHOLE_PARTS: ReadonlySet<string> = new Set([
  'tr', 'td', 'th', 'tbody', 'thead', 'tfoot', 'li', 'dt', 'dd',
]);

/** A hinted boilerplate element holding less than this share of the content's prose is removed. */
const NEG_KEEP_SHARE = 0.25;

/** Descend from the best container into a child that holds at least this share of its prose. */
const CORE_SHARE = 0.9;

/**
 * Max-sum containers tend to take in small positive neighbours (author bios, newsletter pitches,
 * "about this blog" boxes). Narrow to a child holding nearly all of the prose.
 */
function narrow(tree: ScoredTree, best: number): number {
  let cur = best;
  for (;;) {
    const end = cur + (tree.size[cur] as number);
    const total = tree.positive[cur] as number;
    let next = -1;
    for (let j = cur + 1; j < end; j += tree.size[j] as number) {
      if ((tree.positive[j] as number) >= total * CORE_SHARE && (tree.score[j] as number) > 0) {
        // Never down to one paragraph: the content is more than one block (title, byline, figures).
        if ((tree.elements[j] as Element).name === 'p') return cur;
        next = j;
        break;
      }
    }
    if (next < 0) return cur;
    cur = next;
  }
}

/** A lone paragraph is never the whole content: take its container when that scores positively. */
function widen(tree: ScoredTree, best: number): number {
  const parent = tree.parent[best] as number;
  if ((tree.elements[best] as Element).name !== 'p' || parent < 0) return best;
  return (tree.score[parent] as number) > 0 ? parent : best;
}

function isStructuralBoilerplate(el: Element): boolean {
  return BOILERPLATE_TAGS.has(el.name) || el.name === 'form';
}

/** Parts of a table: rows are judged with their table (a class on a row names its data, not its role). */
const TABLE_PARTS: ReadonlySet<string> = new Set(['tr', 'td', 'th', 'tbody', 'thead', 'tfoot']);

/**
 * Link-dense blocks that are content: a data table whose cells are not all links (a first column of
 * links beside columns of data), or a sentence built around one link (text before or after the link,
 * ending as a sentence, between paragraphs of prose).
 */
function isLinkedContent(tree: ScoredTree, j: number): boolean {
  const el = tree.elements[j] as Element;
  if (el.name === 'table') return isDataTable(tree, j);
  if (el.name !== 'p') return false;
  const end = j + (tree.size[j] as number);
  let links = 0;
  for (let k = j + 1; k < end; k++) if ((tree.elements[k] as Element).name === 'a' && ++links > 1) return false;
  const text = tree.text[j] as number;
  const own = text - (tree.linkText[j] as number);
  if (links !== 1) return false;
  // A paragraph that is one link, in a run of paragraphs (a list of references set as paragraphs).
  if (own === 0 && text >= 4) return inParagraphRun(el);
  if (own < 12) return false;
  const words = textContent(el).trim();
  if (!/[.!?:;…"”)]$/.test(words)) return false;
  return hasProseSibling(tree, j);
}

/** True when the element siblings on both sides of `el` are paragraphs: it is one of a run of them. */
function inParagraphRun(el: Element): boolean {
  const prev = elementSibling(el, -1);
  const next = elementSibling(el, 1);
  return prev !== null && next !== null && prev.name === 'p' && next.name === 'p';
}

/** True when the element right before or after `j` among its parent's children scores as prose. */
function hasProseSibling(tree: ScoredTree, j: number): boolean {
  const p = tree.parent[j] as number;
  const next = j + (tree.size[j] as number);
  if (next < tree.elements.length && tree.parent[next] === p && (tree.score[next] as number) > 0) return true;
  if (p < 0) return false;
  let prev = -1;
  for (let c = p + 1; c < j; c += tree.size[c] as number) prev = c;
  return prev >= 0 && (tree.score[prev] as number) > 0;
}

function elementSibling(el: Element, dir: 1 | -1): Element | null {
  let n: AnyNode | null = dir > 0 ? el.next : el.prev;
  while (n !== null && !isElement(n)) n = dir > 0 ? n.next : n.prev;
  return n;
}

/** A table of at least two rows and two columns in which at least a third of the cells are not links. */
function isDataTable(tree: ScoredTree, j: number): boolean {
  const end = j + (tree.size[j] as number);
  let rows = 0;
  let cells = 0;
  let dataCells = 0;
  for (let k = j + 1; k < end; k++) {
    const name = (tree.elements[k] as Element).name;
    if (name === 'tr') rows++;
    else if (name === 'td' || name === 'th') {
      cells++;
      const t = tree.text[k] as number;
      if (t > 0 && (tree.linkText[k] as number) < t * 0.5) dataCells++;
    }
  }
  return rows >= 2 && cells >= rows * 2 && dataCells >= cells / 3;
}

/** Tables and quotes: content that a class word alone does not remove. */
const QUOTED_TAGS: ReadonlySet<string> = new Set(['table', 'tr', 'td', 'th', 'tbody', 'thead', 'tfoot', 'blockquote', 'q']);

/**
 * True when element `j` is, or holds, a table or a quote with prose of its own (positive score) and
 * few links: the hinted block carries the article's data or a post it quotes.
 */
function holdsQuotedContent(tree: ScoredTree, j: number): boolean {
  const text = tree.text[j] as number;
  if (text === 0 || (tree.linkText[j] as number) > text * 0.5) return false;
  const end = j + (tree.size[j] as number);
  for (let k = j; k < end; k++) {
    if (QUOTED_TAGS.has((tree.elements[k] as Element).name) && (tree.positive[k] as number) > 0) return true;
  }
  return false;
}

/**
 * Removes boilerplate inside the chosen content: structural/hinted boilerplate that scores no
 * better than zero (share bars, tag lists, comment sections, newsletter forms), the `teasers` lists
 * and, when `links` is set, link-dense blocks that score negatively (related-article lists). An
 * element holding more than half of the content's positive score is never removed.
 */
function prune(tree: ScoredTree, rootIdx: number, opts: { links: boolean; teasers?: Uint8Array }): void {
  let rootPositive = 0;
  if (rootIdx >= 0) rootPositive = tree.positive[rootIdx] as number;
  else for (let i = 0; i < tree.elements.length; i++) if (tree.parent[i] === -1) rootPositive += tree.positive[i] as number;
  const doomed: Element[] = [];
  let memo: PictureMemo | undefined;
  const end = subtreeEnd(tree, rootIdx);
  for (let j = rootIdx + 1; j < end; j++) {
    const el = tree.elements[j] as Element;
    const score = tree.score[j] as number;
    const text = tree.text[j] as number;
    const ld = text > 0 ? (tree.linkText[j] as number) / text : 0;
    let drop = false;
    if ((tree.positive[j] as number) > rootPositive * 0.5) drop = false;
    else if (tree.hint[j] === 'comment') drop = true;
    else if (opts.links && isCaption(tree, j, (memo ??= newPictureMemo(tree)))) drop = true;
    else if (opts.links && isMetaLine(tree, j)) drop = true;
    else if (opts.teasers?.[j] === 1) drop = true;
    else if (!BLOCK_TAGS.has(el.name) && inProse(tree, j)) drop = false;
    else if (isStructuralBoilerplate(el) && (score <= 0 || (tree.positive[j] as number) < rootPositive * NEG_KEEP_SHARE)) drop = true;
    // A class word alone never removes quoted or tabular content ("player-580" rows of a standings
    // table, a "social-media-embed" post the article quotes): those must also read as boilerplate.
    else if (tree.hint[j] === 'negative' && TABLE_PARTS.has(el.name)) drop = false;
    else if (tree.hint[j] === 'negative' && (score <= 0 || ((tree.positive[j] as number) < rootPositive * NEG_KEEP_SHARE && !holdsQuotedContent(tree, j)))) drop = true;
    else if (WHOLE_PARTS.has(el.name)) drop = false;
    else if (opts.links && score < 0 && isLinkedContent(tree, j)) drop = false;
    else if (opts.links && score < 0 && ld > 0.5) drop = true;
    else if (opts.links && HEADING.test(el.name) && ld > 0.9 && !hasProseNext(tree, j)) drop = true;
    else if (opts.links && el.name === 'header' && score < 0 && ld > 0.3) drop = true;
    // Label soup: player controls, option pickers, date/tag strips. No prose, no structure.
    else if (opts.links && (tree.positive[j] as number) === 0 && score < -30 && tree.structured[j] === 0) drop = true;
    if (drop) {
      doomed.push(el);
      j = subtreeEnd(tree, j) - 1;
    }
  }
  if (opts.links && rootIdx >= 0) doomed.push(...findRelatedSections(tree, rootIdx, 0.3));
  removeAll(doomed);
}

/** Class words of image captions. */
const CAPTION_CLASS = /(?:^|[\s_-])(?:caption|captions|figcaption|bildunterschrift|legende|imagedescription|image-description|media-caption)(?:$|[\s_-])/i;

/** Class words of photo credits. */
const CREDIT_CLASS = /(?:^|[\s_-])(?:credit|credits|credito|copyright|source|photographer|fotograf|urheber|quelle|subcaption|byline)(?:$|[\s_-])/i;

/** Text of a photo credit: "Foto: ...", "(Photo: ...)", "Credit: ...", "© ...", "... /Shutterstock". */
const CREDIT_TEXT =
  /^(?:\(?\s*(?:©|\(c\)|(?:fotos?|bild|bilder|photos?|photograph(?:ie)?|image|credits?|crédits? photos?|crédito|créditos|kuva|zdjęcie|fot\.|źródło|quelle|copyright)\b\s*(?:by\b|:|\/|-|–)|photo(?:graph)? by\b)|(?:shutterstock|istock|getty ?images|dpa|afp|reuters|ap|imago|epa)\s*\/|\(?(?:[^\s/()]+(?:\s[^\s/()]+){0,3}\s*\/\s*)?(?:shutterstock|istock(?:photo)?|getty ?images|thinkstock|clipdealer|adobe ?stock|fotolia|unsplash|pixabay|dpa|afp|reuters|ap photo|imago)(?:\.com)?\s*\)?\s*$)/i;

/** A credit longer than this (characters) is a caption with a credit in it, or text. */
const MAX_CREDIT_TEXT = 80;

/**
 * Photo credits: a short element of a caption (or next to an image) whose class names a credit or
 * whose text reads as one ("Foto: Name", "(crédito: ...)", "Name/Shutterstock.com"). Captions
 * themselves stay (readers' copies keep them); the credit line is not part of the article.
 */
function isCaption(tree: ScoredTree, j: number, memo: PictureMemo): boolean {
  const t = tree.text[j] as number;
  if (t === 0 || t > MAX_CREDIT_TEXT) return false;
  const el = tree.elements[j] as Element;
  if (!nearPicture(tree, j, memo)) return false;
  const cls = el.attribs['class'];
  if (cls !== undefined && CREDIT_CLASS.test(cls)) return true;
  return CREDIT_TEXT.test(textContent(el).replace(/\s+/g, ' ').trim());
}

/**
 * What nearPicture found out during one prune pass (the tree does not change until the pass ends):
 * siblings share their ancestors and parent, which were tested again for each of them.
 */
interface PictureMemo {
  /** By element index: 0 not tested yet, 1 a figure, picture or caption (by tag or class), 2 not. */
  readonly pictureLike: Uint8Array;
  /** hasImage(parent, 2) by parent element. */
  readonly images: Map<Element, boolean>;
}

function newPictureMemo(tree: ScoredTree): PictureMemo {
  return { pictureLike: new Uint8Array(tree.elements.length), images: new Map() };
}

/** In a figure or a caption (up to four levels up), or beside an image. */
function nearPicture(tree: ScoredTree, j: number, memo: PictureMemo): boolean {
  for (let p = j, up = 0; p >= 0 && up < 4; p = tree.parent[p] as number, up++) {
    let like = memo.pictureLike[p] as number;
    if (like === 0) {
      const pe = tree.elements[p] as Element;
      const pc = pe.attribs['class'];
      like = pe.name === 'figure' || pe.name === 'picture' || pe.name === 'figcaption' || (pc !== undefined && CAPTION_CLASS.test(pc)) ? 1 : 2;
      memo.pictureLike[p] = like;
    }
    if (like === 1) return true;
  }
  const parent = (tree.elements[j] as Element).parent;
  if (parent === null || !isElement(parent)) return false;
  let images = memo.images.get(parent);
  if (images === undefined) {
    images = hasImage(parent, 2);
    memo.images.set(parent, images);
  }
  return images;
}

/** An image among the children of `el`, down to `depth` levels. */
function hasImage(el: Element, depth: number): boolean {
  for (const c of el.children) {
    if (!isElement(c)) continue;
    if (c.name === 'img' || c.name === 'picture' || c.name === 'figure' || (depth > 1 && hasImage(c, depth - 1))) return true;
  }
  return false;
}

/**
 * A linked heading followed by prose is a section title (toc back-references); one followed by
 * nothing or by more links is the title of a teaser.
 */
function hasProseNext(tree: ScoredTree, j: number): boolean {
  const next = j + (tree.size[j] as number);
  if (next >= tree.elements.length || tree.parent[next] !== tree.parent[j]) return false;
  return (tree.score[next] as number) > 0;
}

/**
 * True when inline element `j` sits inside a sentence (text right before and after it) of a text
 * block that reads as prose: it is a word of the sentence ("popup" glossary links), not a box.
 */
function inProse(tree: ScoredTree, j: number): boolean {
  const el = tree.elements[j] as Element;
  if (!hasText(el.prev) || !hasText(el.next)) return false;
  let p = tree.parent[j] as number;
  while (p >= 0 && !BLOCK_TAGS.has((tree.elements[p] as Element).name)) p = tree.parent[p] as number;
  return p >= 0 && (tree.score[p] as number) > 0;
}

function hasText(node: AnyNode | null): boolean {
  return node !== null && isText(node) && /\S/.test(node.data);
}

/** End (exclusive) of the pre-order range of the subtree at `i`; the whole tree for -1. */
function subtreeEnd(tree: ScoredTree, i: number): number {
  return i < 0 ? tree.elements.length : i + (tree.size[i] as number);
}

/**
 * The `onlyMainContent` extractor. Scores every element of `body` by its text blocks (length,
 * sentence punctuation, link density; class/id and tag hints as a multiplier), takes the subtree with
 * the best total (so a container grows over a sibling only when that sibling adds more prose than
 * boilerplate), then prunes boilerplate inside it. When unsure (no positive container, or too little
 * text) it returns the body with only obvious boilerplate removed, never an empty page. Tables, code,
 * lists and images inside the content stay. Moves nodes out of `body`.
 */
export function extractMainContent(body: ParentNode, opts: MainContentOptions = {}): MainContentResult {
  const minText = opts.minTextLength ?? 150;
  const tree = scoreTree(body);
  // Hidden elements and form controls never carry readable content.
  removeAll(tree.invisible);
  const teasers = discountTeaserLists(tree);
  discountSlideshows(tree, teasers);
  discountTickers(tree, teasers);
  const picked = pickBest(tree);
  const best = picked < 0 ? picked : narrow(tree, widen(tree, picked));
  if (best < 0 || (tree.text[best] as number) < minText) return fallbackBody(body, tree);
  const leads = findLeads(tree, best);
  prune(tree, best, { links: true, teasers });
  const el = tree.elements[best] as Element;
  let doc: Document;
  if (el === body) {
    doc = new Document(el.children);
    el.children = [];
  } else {
    for (const lead of leads) removeNode(lead);
    removeNode(el);
    doc = new Document([...leads, el]);
  }
  relinkChildren(doc);
  return { root: doc, fallback: false };
}

/** Class words of an article's lead (standfirst, deck, summary set apart above the body). */
const LEAD_CLASS =
  /(?:^|[\s_-])(?:lead|leader|lede|intro|introtext|intro-text|teaser-text|teasertext|excerpt|entry-excerpt|article-excerpt|subtitle|sub-title|subheadline|subline|abstract|perex|chapo|chapeau|deck|standfirst|summary|sommario|preface|einleitung|vorspann|bajada|bodytext-intro|lead-text|leadtext|description)(?:$|[\s_-])/i;

/** A lead is shorter than this (characters); longer blocks are sections of their own. */
const MAX_LEAD_TEXT = 1200;

/** How many ancestors of the content are searched for a lead before it. */
const LEAD_LEVELS = 4;

/**
 * The article's lead when it sits outside the chosen container, in the header before it: elements
 * before the content (among the preceding siblings of the content and of its nearest ancestors) whose
 * class names a lead and whose text reads as prose (a sentence, few links). In document order.
 */
function findLeads(tree: ScoredTree, best: number): Element[] {
  const found: number[] = [];
  let cur = best;
  for (let up = 0; up < LEAD_LEVELS; up++) {
    const p = tree.parent[cur] as number;
    if (p < 0) break;
    for (let c = p + 1; c < cur; c += tree.size[c] as number) {
      const text = tree.text[c] as number;
      if (text === 0 || text > MAX_LEAD_TEXT * 3) continue;
      const end = c + (tree.size[c] as number);
      for (let k = c; k < end; k++) {
        if (!isLead(tree, k)) continue;
        found.push(k);
        k += (tree.size[k] as number) - 1;
      }
    }
    cur = p;
  }
  found.sort((a, b) => a - b);
  return found.map((k) => tree.elements[k] as Element);
}

function isLead(tree: ScoredTree, k: number): boolean {
  const text = tree.text[k] as number;
  if (text < 40 || text > MAX_LEAD_TEXT || (tree.positive[k] as number) <= 0) return false;
  if ((tree.linkText[k] as number) > text * 0.3 || tree.hint[k] === 'negative' || tree.hint[k] === 'comment') return false;
  const el = tree.elements[k] as Element;
  if (BOILERPLATE_TAGS.has(el.name) || el.name === 'a' || (tree.structured[k] as number) > 0) return false;
  const cls = el.attribs['class'];
  if (cls === undefined || !LEAD_CLASS.test(cls)) return false;
  // One or two paragraphs of text, not a header block holding the title, byline and picture.
  const end = k + (tree.size[k] as number);
  let blocks = 0;
  for (let j = k + 1; j < end; j++) {
    const name = (tree.elements[j] as Element).name;
    if (HEADING.test(name)) return false;
    if (BLOCK_TAGS.has(name) && ++blocks > 2) return false;
  }
  return true;
}

/**
 * Detaches all `nodes` with one pass over each parent's children: removing them one by one costs a
 * search of the parent's children each (quadratic on pages with hundreds of icons or buttons).
 */
function removeAll(nodes: readonly Element[]): void {
  if (nodes.length === 0) return;
  const doomed = new Set<AnyNode>(nodes);
  const parents = new Set<ParentNode>();
  for (const node of nodes) if (node.parent) parents.add(node.parent);
  for (const parent of parents) filterChildren(parent, (child) => doomed.has(child));
}

function fallbackBody(body: ParentNode, tree: ScoredTree): MainContentResult {
  prune(tree, tree.elements[0] === body ? 0 : -1, { links: false });
  const doc = new Document(body.children as AnyNode[] as never);
  body.children = [];
  relinkChildren(doc);
  return { root: doc, fallback: true };
}
