import type { AnyNode, Element, ParentNode } from 'domhandler';
import { BLOCK_TAGS, isElement, isText } from '../dom/dom-helpers.js';
import { BOILERPLATE_TAGS, NON_CONTENT_TAGS, hintOf, isHidden, type HintKind } from './boilerplate-hints.js';

/** Per-element statistics of a scored tree; arrays are indexed like `elements` (document order). */
export interface ScoredTree {
  /** Elements in document (pre-)order; index 0 is the root when the root is an element. */
  elements: Element[];
  /** Hidden elements and form controls met during the walk; not scored, for the caller to remove. */
  invisible: Element[];
  /** Class/id hint of each element. */
  hint: HintKind[];
  /** Parent index, -1 for top-level elements. */
  parent: Int32Array;
  /** Visible text characters of the subtree (whitespace runs count as one). */
  text: Float64Array;
  /** Of `text`, characters inside links. */
  linkText: Float64Array;
  /** Sum of the block scores of the subtree: positive for prose, negative for link lists and labels. */
  score: Float64Array;
  /** Sum of the positive block scores of the subtree. */
  positive: Float64Array;
  /** Structured content elements in the subtree (tables, lists, pre, images, media, figures). */
  structured: Int32Array;
  /** Number of elements in the subtree (itself included): the subtree of i is i .. i+size-1. */
  size: Int32Array;
  /** Hint/structure factor applied to positive scores at this element (product over ancestors). */
  factor: Float64Array;
}

const HEADING = /^h[1-6]$/;
const STRUCTURED_TAGS: ReadonlySet<string> = new Set([
  'table', 'ul', 'ol', 'dl', 'pre', 'img', 'picture', 'video', 'audio', 'iframe', 'figure', 'blockquote',
]);
const MEASURED = { len: 0, punct: 0 };

// What the walk needs to know about a tag name, as bits: one lookup per element instead of several.
const BLOCK = 1;
const NON_CONTENT = 2;
const STRUCTURED = 4;
const BOILERPLATE = 8;
const HEADER = 16;
/** pre and code: text below is scored as code. */
const CODE = 32;
const LINK = 64;
const TAG_BITS: ReadonlyMap<string, number> = (() => {
  const bits = new Map<string, number>();
  const add = (tags: Iterable<string>, bit: number): void => {
    for (const tag of tags) bits.set(tag, (bits.get(tag) ?? 0) | bit);
  };
  add(BLOCK_TAGS, BLOCK);
  add(NON_CONTENT_TAGS, NON_CONTENT);
  add(STRUCTURED_TAGS, STRUCTURED);
  add(BOILERPLATE_TAGS, BOILERPLATE);
  add(['header'], HEADER);
  add(['pre', 'code'], CODE);
  add(['a'], LINK);
  return bits;
})();

/** A heading with at least this many characters of text is scored like a paragraph. */
const LEAD_HEADING_LEN = 150;

/**
 * Length of a text node with whitespace runs counted as one character (an all-whitespace node counts
 * 0), and its sentence punctuation: Latin marks followed by whitespace or the end, CJK marks anywhere.
 * One pass over the characters; this runs on every text node of every page. Returns a shared object.
 */
function measureText(data: string): { len: number; punct: number } {
  let len = 0;
  let punct = 0;
  let inSpace = false;
  let nonSpace = false;
  let prevPunct = false;
  const n = data.length;
  for (let i = 0; i < n; i++) {
    const c = data.charCodeAt(i);
    // Letters and most symbols (@ A-Z [ ] a-z { } ...): neither space nor sentence punctuation.
    if (c > 63 && c < 0xbb) {
      inSpace = false;
      nonSpace = true;
      prevPunct = false;
      len++;
      continue;
    }
    if (c === 32 || c === 10 || c === 9 || c === 13 || c === 12) {
      if (!inSpace) len++;
      inSpace = true;
      if (prevPunct) punct++;
      prevPunct = false;
      continue;
    }
    inSpace = false;
    nonSpace = true;
    len++;
    if (prevPunct) prevPunct = false;
    // . , ; : ! ? … » " ”
    if (c === 46 || c === 44 || c === 59 || c === 58 || c === 33 || c === 63 || c === 0x2026 || c === 0xbb || c === 34 || c === 0x201d) {
      prevPunct = true;
    } else if (c === 0x3002 || c === 0x3001 || c === 0xff01 || c === 0xff1f || c === 0xff1b || c === 0xff1a) punct++;
  }
  if (prevPunct) punct++;
  MEASURED.len = nonSpace ? len : 0;
  MEASURED.punct = punct;
  return MEASURED;
}

function ownFactor(tagBits: number, hint: HintKind): number {
  if ((tagBits & BOILERPLATE) !== 0) return 0.15;
  if ((tagBits & HEADER) !== 0) return 0.6;
  switch (hint) {
    case 'comment':
      return -0.5;
    case 'negative':
      return 0.3;
    case 'positive':
      return 1.1;
    default:
      return 1;
  }
}

/**
 * Score of one text block (the inline content owned by one block element). Prose with sentence
 * punctuation and few links scores its length; link lists and short labels score negatively. `factor`
 * (class/id and tag hints of the ancestors) scales positive scores only: hints never make a link list
 * look better.
 */
function blockScore(n: number, link: number, punct: number, tag: string, factor: number, inPre: boolean): number {
  if (n === 0) return 0;
  const ld = link / n;
  let s: number;
  if (inPre) s = n * 0.6;
  // Headings are short and often linked (toc back-references): neutral. A long one with few links is
  // a lead paragraph set as a heading (news intros, quoted announcements): prose.
  else if (HEADING.test(tag) && (n < LEAD_HEADING_LEN || ld > 0.5)) return 0;
  else if (ld > 0.5 || (link > 0 && n < 40 && ld > 0.3)) return -n * ld;
  else if (n >= 80 || punct >= 2 || (n >= 25 && punct >= 1)) {
    s = n * (1 - ld) * (1 + Math.min(punct, 10) * 0.03);
  } else return -n * 0.15;
  // A negative factor (comment sections) turns prose into a penalty; penalties are never scaled.
  return s > 0 ? s * factor : s;
}

/**
 * One linear pass over the tree computing text, link text and content scores of every element.
 * Iterative (pre-order list, then aggregation in reverse order) so that pathological nesting depth
 * cannot overflow the stack.
 */
export function scoreTree(root: ParentNode): ScoredTree {
  const elements: Element[] = [];
  const parents: number[] = [];
  const factors: number[] = [];
  const owners: number[] = [];
  const hints: HintKind[] = [];
  const invisible: Element[] = [];
  const hintCache = new Map<string, HintKind>();
  /** CODE and LINK bits of each element and its ancestors. */
  const inherited: number[] = [];
  // Text of each block (the inline content owned by a block element), indexed like `elements`.
  const blockLen: number[] = [];
  const blockLink: number[] = [];
  const blockPunct: number[] = [];
  const structured: number[] = [];
  const ownText: number[] = [];
  const ownLink: number[] = [];
  // Explicit stack of (node, parent index); everything inherited is read from the parent's arrays.
  const stackNodes: AnyNode[] = [];
  const stackParents: number[] = [];
  // The root itself is scored too (index 0 when it is an element): the whole body may be the content.
  const starts: AnyNode[] = isElement(root as AnyNode) ? [root as AnyNode] : [...root.children].reverse();
  for (const node of starts) {
    stackNodes.push(node);
    stackParents.push(-1);
  }
  while (stackNodes.length > 0) {
    const node = stackNodes.pop() as AnyNode;
    const parent = stackParents.pop() as number;
    if (isText(node)) {
      const data = node.data;
      if (parent < 0 || data.length === 0) continue;
      const m = measureText(data);
      if (m.len === 0) continue;
      const len = m.len;
      const inLink = ((inherited[parent] as number) & LINK) !== 0;
      ownText[parent] = (ownText[parent] ?? 0) + len;
      if (inLink) ownLink[parent] = (ownLink[parent] ?? 0) + len;
      const owner = owners[parent] as number;
      blockLen[owner] = (blockLen[owner] as number) + len;
      if (inLink) blockLink[owner] = (blockLink[owner] as number) + len;
      blockPunct[owner] = (blockPunct[owner] as number) + m.punct;
      continue;
    }
    if (!isElement(node)) continue;
    const tagBits = TAG_BITS.get(node.name) ?? 0;
    if ((tagBits & NON_CONTENT) !== 0 || isHidden(node)) {
      invisible.push(node);
      continue;
    }
    const idx = elements.length;
    elements.push(node);
    parents.push(parent);
    const hint = hintOf(node, hintCache);
    hints.push(hint);
    const own = ownFactor(tagBits, hint);
    const parentFactor = parent >= 0 ? (factors[parent] as number) : 1;
    // Negative (comment) factors stay negative however deep they nest.
    factors.push(parentFactor < 0 || own < 0 ? -Math.abs(parentFactor * own) : parentFactor * own);
    const isBlock = parent < 0 || (tagBits & BLOCK) !== 0;
    owners.push(isBlock ? idx : (owners[parent] as number));
    inherited.push((parent >= 0 ? (inherited[parent] as number) : 0) | (tagBits & (CODE | LINK)));
    blockLen.push(0);
    blockLink.push(0);
    blockPunct.push(0);
    structured.push((tagBits & STRUCTURED) !== 0 ? 1 : 0);
    ownText.push(0);
    ownLink.push(0);
    for (let i = node.children.length - 1; i >= 0; i--) {
      stackNodes.push(node.children[i] as AnyNode);
      stackParents.push(idx);
    }
  }
  const n = elements.length;
  const tree: ScoredTree = {
    elements,
    // `new TypedArray(array)` rather than `TypedArray.from`: several times faster in V8 on long arrays.
    parent: new Int32Array(parents),
    hint: hints,
    invisible,
    text: new Float64Array(ownText),
    linkText: new Float64Array(ownLink),
    score: new Float64Array(n),
    positive: new Float64Array(n),
    size: new Int32Array(n).fill(1),
    structured: new Int32Array(structured),
    factor: new Float64Array(factors),
  };
  for (let i = 0; i < n; i++) {
    if (owners[i] !== i) continue;
    const el = elements[i] as Element;
    const s = blockScore(blockLen[i] as number, blockLink[i] as number, blockPunct[i] as number, el.name, factors[i] as number, ((inherited[i] as number) & CODE) !== 0);
    tree.score[i] = s;
    if (s > 0) tree.positive[i] = s;
  }
  for (let i = n - 1; i >= 0; i--) {
    const p = tree.parent[i] as number;
    if (p < 0) continue;
    tree.text[p] = (tree.text[p] as number) + (tree.text[i] as number);
    tree.linkText[p] = (tree.linkText[p] as number) + (tree.linkText[i] as number);
    tree.score[p] = (tree.score[p] as number) + (tree.score[i] as number);
    tree.positive[p] = (tree.positive[p] as number) + (tree.positive[i] as number);
    tree.size[p] = (tree.size[p] as number) + (tree.size[i] as number);
    tree.structured[p] = (tree.structured[p] as number) + (tree.structured[i] as number);
  }
  return tree;
}
