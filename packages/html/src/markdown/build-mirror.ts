import type { AnyNode, Element } from 'domhandler';
import { lazyImageSrc } from '../metadata/lazy-image.js';
import { codeBlockText, detectLanguage } from './code-block.js';
import {
  BLOCK_ELEMENTS,
  MARKED_INLINE_ELEMENTS,
  PLAIN_BLOCK_ELEMENTS,
  SKIPPED_ELEMENTS,
  VOID_ELEMENTS,
} from './elements.js';
import { type ElementInfo, MirrorElement, type MirrorNode, MirrorText, tagBit } from './mirror-node.js';

/**
 * Elements nested deeper than this are not mirrored (their content is, attached to the deepest mirrored
 * ancestor). Turndown converts recursively, so this bounds its stack use; real pages stay far below it.
 */
export const MAX_MIRROR_DEPTH = 256;

/**
 * Lists and blockquotes nested deeper than this are not indented further: markdown indentation makes the
 * output grow with depth squared, and no real page needs more.
 */
export const MAX_NEST = 12;

const NEEDS_COLLAPSE = /[\r\n\t]| {2}/;
const MARK_BITS: ReadonlyMap<string, number> = new Map([
  ['em', 1], ['i', 1], ['cite', 1], ['strong', 2], ['b', 2], ['del', 4], ['s', 4], ['strike', 4],
]);
const NESTING = new Set(['ul', 'ol', 'menu', 'blockquote']);
const ROOT_INFO: ElementInfo = { block: false, marks: 0, repeatedMark: false, nest: 0, ordinal: -1, language: '' };

interface Frame {
  /** Source children being walked. */
  readonly children: readonly AnyNode[];
  i: number;
  /** Mirror element receiving the children (an ancestor's when this element is not mirrored). */
  readonly into: MirrorElement;
  /** Element whose end is visited for whitespace when the frame closes; null for the root. */
  readonly name: string | null;
  /** The mirror of this frame's own element, if it has one (its tag set is folded into its parent's). */
  readonly own: MirrorElement | null;
  /** Next item number, when this frame is an ordered list. */
  counter: number;
  /** An element below MAX_MIRROR_DEPTH was mirrored in this frame or above (at most one is, per branch). */
  readonly beyond: boolean;
}

function startNumber(start: string | undefined): number {
  const n = start === undefined ? Number.NaN : Number.parseInt(start, 10);
  return Number.isFinite(n) && n >= 0 && n < 1e9 ? n : 1;
}

/**
 * Browser-like whitespace collapsing, done while mirroring (same algorithm as turndown's collapseWhitespace,
 * which then finds nothing left to do): runs of ASCII whitespace become one space, a space following a
 * space (across inline element boundaries) is dropped, and text is trimmed next to block elements and
 * `<br>`. Text that collapses to nothing is not mirrored.
 */
class WhitespaceCollapser {
  private prev: MirrorText | null = null;
  private prevEndsWithSpace = false;
  private keepLeadingWs = false;
  /** Text nodes trimmed to '' after they were mirrored: removed at the end, once. */
  readonly emptied: MirrorText[] = [];

  text(data: string): string {
    let text = NEEDS_COLLAPSE.test(data) ? data.replace(/[ \r\n\t]+/g, ' ') : data;
    if ((this.prev === null || this.prevEndsWithSpace) && !this.keepLeadingWs && text.charCodeAt(0) === 32) {
      text = text.slice(1);
    }
    return text;
  }

  /** Records the text node just mirrored (non-empty). */
  added(node: MirrorText): void {
    this.prev = node;
    this.prevEndsWithSpace = node.data.charCodeAt(node.data.length - 1) === 32;
  }

  /** Visits the start or end of an element (turndown visits both). */
  element(name: string): void {
    if (BLOCK_ELEMENTS.has(name) || name === 'br') {
      this.end();
      this.keepLeadingWs = false;
    } else if (name === 'input') {
      // Only checkboxes render (as `[x] `, space included), so the space after them would double.
      this.prev = null;
      this.prevEndsWithSpace = false;
      this.keepLeadingWs = false;
    } else if (VOID_ELEMENTS.has(name) || name === 'pre') {
      this.prev = null;
      this.prevEndsWithSpace = false;
      this.keepLeadingWs = true;
    } else if (this.prev !== null) {
      this.keepLeadingWs = false;
    }
  }

  /** Trims the trailing space of the last text (at a block edge and at the end of the document). */
  end(): void {
    const prev = this.prev;
    if (prev !== null && this.prevEndsWithSpace) {
      prev.data = prev.data.slice(0, -1);
      if (prev.data === '') this.emptied.push(prev);
    }
    this.prev = null;
    this.prevEndsWithSpace = false;
  }
}

/** Infos of elements that are not marks, lists, list items or code blocks, by parent marks and nesting. */
const PLAIN_INFOS = new Map<number, ElementInfo>();

function elementInfo(el: Element, parent: ElementInfo, ordinal: number): ElementInfo {
  const name = el.name;
  const bit = MARK_BITS.get(name) ?? 0;
  const block = BLOCK_ELEMENTS.has(name);
  if (bit === 0 && ordinal < 0 && name !== 'pre' && !NESTING.has(name) && parent.nest < 64) {
    // Most elements: share one immutable info per (marks, nest, block) instead of allocating one each.
    const key = (parent.nest << 4) | (parent.marks << 1) | (block ? 1 : 0);
    let info = PLAIN_INFOS.get(key);
    if (info === undefined) {
      info = { block, marks: parent.marks, repeatedMark: false, nest: parent.nest, ordinal: -1, language: '' };
      PLAIN_INFOS.set(key, info);
    }
    return info;
  }
  return {
    block,
    marks: parent.marks | bit,
    repeatedMark: bit !== 0 && (parent.marks & bit) !== 0,
    nest: NESTING.has(name) ? parent.nest + 1 : parent.nest,
    ordinal,
    language: name === 'pre' ? detectLanguage(el) : '',
  };
}

/** Mirror of a `<pre>`: one text child with its raw text (as a browser shows it), never collapsed. */
function mirrorPre(el: Element, info: ElementInfo): MirrorElement {
  const pre = new MirrorElement('pre', el.attribs, info);
  const code = codeBlockText(el);
  if (code !== '') pre.appendChild(new MirrorText(code));
  return pre;
}

/** Attributes of an `<img>`, with the real URL in `src` when it is a lazy-loading placeholder. */
function imageAttribs(el: Element): Readonly<Record<string, string>> {
  const real = lazyImageSrc(el);
  return real === undefined ? el.attribs : { ...el.attribs, src: real };
}

const TABLE_STRUCTURE = new Set(['table', 'thead', 'tbody', 'tfoot', 'tr']);

/** Where content below the depth limit goes: `el`, or its nearest ancestor whose text is rendered. */
function contentHolder(el: MirrorElement): MirrorElement {
  let holder = el;
  while (TABLE_STRUCTURE.has(holder.tag) && holder.parentNode !== null) holder = holder.parentNode;
  return holder;
}

const isPlainBlock = (node: MirrorNode | undefined): boolean =>
  node !== undefined && node.nodeType === 1 && PLAIN_BLOCK_ELEMENTS.has(node.tag);

/**
 * Inline elements without markdown of their own (span, font, label, custom elements ...) render exactly
 * their content: they are not mirrored, their content goes to their parent (one node less for turndown:
 * its blank and whitespace checks, rule search and string joins).
 */
function isInlineWrapper(tag: string): boolean {
  return !BLOCK_ELEMENTS.has(tag) && !VOID_ELEMENTS.has(tag) && !MARKED_INLINE_ELEMENTS.has(tag) && !TABLE_STRUCTURE.has(tag);
}

/**
 * Whether a plain block can be replaced by its children without changing the markdown: its first and last
 * children are plain blocks too (`<div><div>...</div></div>`), so the blank lines around it are theirs.
 */
function isBlockWrapper(el: MirrorElement): boolean {
  return PLAIN_BLOCK_ELEMENTS.has(el.tag) && isPlainBlock(el.childNodes[0]) && isPlainBlock(el.lastChild ?? undefined);
}

/**
 * Appends collapsed text to `into`, merged into its last child when that is text (escaping sees the run).
 * A merge never makes two spaces in a row: the run stays collapsed, as turndown's whitespace pass would
 * leave it (that pass is skipped, see MirrorElement.firstChild).
 */
function appendText(into: MirrorElement, text: string, ws: WhitespaceCollapser): void {
  const last = into.lastChild;
  if (last !== null && last.nodeType === 3 && last.data !== '') {
    const add = last.data.charCodeAt(last.data.length - 1) === 32 && text.charCodeAt(0) === 32 ? text.slice(1) : text;
    if (add === '') return;
    last.data += add;
    ws.added(last);
  } else {
    ws.added(into.appendChild(new MirrorText(text)));
  }
}

/** Replaces `el`, the last child of `parent`, by its children. */
function unwrap(el: MirrorElement, parent: MirrorElement): void {
  parent.childNodes.pop();
  let prev = parent.childNodes[parent.childNodes.length - 1] ?? null;
  if (prev !== null) prev.nextSibling = null;
  for (const c of el.childNodes) {
    c.parentNode = parent;
    c.previousSibling = prev;
    if (prev !== null) prev.nextSibling = c;
    parent.childNodes.push(c);
    prev = c;
  }
}

/** Removes text nodes emptied by trimming: one pass per parent, so many of them stay linear. */
function removeEmptied(emptied: readonly MirrorText[]): void {
  const parents = new Set<MirrorElement>();
  for (const text of emptied) if (text.parentNode !== null) parents.add(text.parentNode);
  for (const parent of parents) {
    const kept = parent.childNodes.filter((c) => c.nodeType !== 3 || c.data !== '');
    let prev: MirrorNode | null = null;
    for (const c of kept) {
      c.previousSibling = prev;
      if (prev !== null) prev.nextSibling = c;
      prev = c;
    }
    if (prev !== null) prev.nextSibling = null;
    parent.childNodes = kept;
  }
}

/**
 * Builds the mirror of a domhandler node for turndown: a fragment whose children mirror a Document's
 * children, or the Element or Text itself. Non-content elements (SKIPPED_ELEMENTS) are left out with
 * their subtree, whitespace is collapsed, `<pre>` content is flattened to its text, and per-element facts
 * for the rules are computed (see ElementInfo). Iterative: any source depth is safe. The source is not
 * modified.
 */
export function buildMirror(source: AnyNode): MirrorElement {
  const root = new MirrorElement('#fragment', {}, ROOT_INFO, true);
  const ws = new WhitespaceCollapser();
  const children = source.type === 'root' ? source.children : [source];
  const stack: Frame[] = [{ children, i: 0, into: root, name: null, own: root, counter: 1, beyond: false }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as Frame;
    const child = top.children[top.i++];
    if (child === undefined) {
      stack.pop();
      if (top.name !== null) ws.element(top.name);
      const own = top.own;
      const parent = own?.parentNode ?? null;
      if (own !== null && parent !== null) {
        parent.descendantTags |= own.descendantTags | tagBit(own.tag);
        if (isBlockWrapper(own)) unwrap(own, parent);
      }
      continue;
    }
    if (child.type === 'text') {
      const text = ws.text(child.data);
      if (text !== '') appendText(top.into, text, ws);
      continue;
    }
    if (child.type !== 'tag' && child.type !== 'script' && child.type !== 'style') continue;
    const name = child.name;
    if (SKIPPED_ELEMENTS.has(name)) continue;
    ws.element(name);
    const parent = top.into;
    const ordinal = name === 'li' && parent.tag === 'ol' ? top.counter++ : -1;
    const info = elementInfo(child, parent.info, ordinal);
    if (name === 'pre') {
      parent.appendChild(mirrorPre(child, info));
      continue;
    }
    if (child.children.length === 0) {
      // An empty inline wrapper renders nothing.
      if (!isInlineWrapper(name)) parent.appendChild(new MirrorElement(name, name === 'img' ? imageAttribs(child) : child.attribs, info));
      parent.descendantTags |= tagBit(name);
      // A childless element's end is visited too (its start and end both break whitespace for blocks).
      if (!VOID_ELEMENTS.has(name)) ws.element(name);
      continue;
    }
    // Below the depth limit only one more element is mirrored per branch, a marked inline one (a link,
    // emphasis, code) so that the text deep down keeps its markup; other elements are left out, not
    // their content.
    const deep = stack.length > MAX_MIRROR_DEPTH;
    const wrapper = isInlineWrapper(name);
    const mirrored = !wrapper && (!deep || (!top.beyond && MARKED_INLINE_ELEMENTS.has(name)));
    const own = mirrored ? parent.appendChild(new MirrorElement(name, child.attribs, info)) : null;
    const counter = name === 'ol' ? startNumber(child.attribs.start) : 1;
    const beyond = top.beyond || (deep && mirrored);
    const into = own ?? (wrapper ? parent : contentHolder(parent));
    stack.push({ children: child.children, i: 0, into, name, own, counter, beyond });
  }
  ws.end();
  removeEmptied(ws.emptied);
  return root;
}
