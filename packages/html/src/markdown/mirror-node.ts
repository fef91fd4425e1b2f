/**
 * A small mutable DOM that mirrors a domhandler tree for turndown: exactly the part of the DOM API that
 * turndown (its whitespace collapsing, `isBlank`, `flankingWhitespace`, rule engine) and our rules use.
 *
 * Why a mirror rather than domino or linkedom: turndown mutates the tree it converts (it clones its input
 * and collapses whitespace in place), and it reads `textContent` of every node, several times. A DOM
 * built for that alone costs a fraction of a full one: `textContent` is cached, `getElementsByTagName`
 * answers "none" from a bit set of the tag names below an element, and the fields turndown sets on every
 * node (`isBlock`, `isCode`, `isBlank`, `flankingWhitespace`) are declared up front so that all nodes share
 * one shape.
 */

/** Tag names turndown asks `getElementsByTagName` about (its void and meaningful-when-blank lists). */
const TRACKED_TAGS = [
  'area', 'base', 'br', 'col', 'command', 'embed', 'hr', 'img', 'input', 'keygen', 'link', 'meta', 'param',
  'source', 'track', 'wbr', 'a', 'table', 'thead', 'tbody', 'tfoot', 'th', 'td', 'iframe', 'script', 'audio',
  'video',
] as const;

const TAG_BITS: ReadonlyMap<string, number> = new Map(
  TRACKED_TAGS.flatMap((tag, i) => [[tag, 1 << i] as const, [tag.toUpperCase(), 1 << i] as const]),
);

/** Bit of a tracked tag name (either case), 0 for others. */
export function tagBit(name: string): number {
  return TAG_BITS.get(name) ?? 0;
}

const UPPER_NAMES = new Map<string, string>();

/** Upper-case nodeName of a lower-case tag name (computed once per tag name). */
function upperName(tag: string): string {
  let upper = UPPER_NAMES.get(tag);
  if (upper === undefined) {
    upper = tag.toUpperCase();
    if (UPPER_NAMES.size < 4096) UPPER_NAMES.set(tag, upper);
  }
  return upper;
}

/** What turndown stores on every node it visits. */
interface FlankingWhitespace {
  leading: string;
  trailing: string;
}

export type MirrorNode = MirrorElement | MirrorText;

const EMPTY: readonly MirrorElement[] = Object.freeze([]);

/** Text node. `data` is already whitespace-collapsed when the mirror is built. */
export class MirrorText {
  readonly nodeType = 3;
  readonly nodeName = '#text';
  parentNode: MirrorElement | null = null;
  nextSibling: MirrorNode | null = null;
  previousSibling: MirrorNode | null = null;
  // Set by turndown on every node it converts.
  isBlock = false;
  isCode = false;
  isBlank = false;
  flankingWhitespace: FlankingWhitespace | null = null;
  private text: string;

  constructor(data: string) {
    this.text = data;
  }

  get data(): string {
    return this.text;
  }

  set data(value: string) {
    if (value === this.text) return;
    this.text = value;
    this.parentNode?.textChanged();
  }

  get nodeValue(): string {
    return this.text;
  }

  get textContent(): string {
    return this.text;
  }

  get firstChild(): null {
    return null;
  }
}

/** Element (nodeType 1) or the fragment at the root of a mirror (nodeType 11). */
export class MirrorElement {
  readonly nodeType: 1 | 11;
  /** Upper-case tag name, as a browser reports it for HTML elements. */
  readonly nodeName: string;
  /** Lower-case tag name (what the rules compare). */
  readonly tag: string;
  readonly attribs: Readonly<Record<string, string>>;
  childNodes: MirrorNode[] = [];
  parentNode: MirrorElement | null = null;
  nextSibling: MirrorNode | null = null;
  previousSibling: MirrorNode | null = null;
  // Set by turndown on every node it converts.
  isBlock = false;
  isCode = false;
  isBlank = false;
  flankingWhitespace: FlankingWhitespace | null = null;
  /** Bit set (see tagBit) of the tag names of all descendants. */
  descendantTags = 0;
  /** Markdown state computed while mirroring, read by the rules (see build-mirror.ts). */
  readonly info: ElementInfo;
  private text: string | null = null;

  constructor(tag: string, attribs: Readonly<Record<string, string>>, info: ElementInfo, fragment = false) {
    this.nodeType = fragment ? 11 : 1;
    this.tag = tag;
    this.nodeName = fragment ? '#document-fragment' : upperName(tag);
    this.attribs = attribs;
    this.info = info;
  }

  /**
   * The fragment at the root reports none: turndown's whitespace pass starts with
   * `if (!element.firstChild) return` and would find nothing to do, since buildMirror already collapsed
   * the whitespace the same way; turndown converts through `childNodes`.
   */
  get firstChild(): MirrorNode | null {
    return this.nodeType === 11 ? null : (this.childNodes[0] ?? null);
  }

  get lastChild(): MirrorNode | null {
    return this.childNodes[this.childNodes.length - 1] ?? null;
  }

  get lastElementChild(): MirrorElement | null {
    for (let i = this.childNodes.length - 1; i >= 0; i--) {
      const c = this.childNodes[i] as MirrorNode;
      if (c.nodeType === 1) return c;
    }
    return null;
  }

  get nodeValue(): null {
    return null;
  }

  /** Concatenated text of all descendants, computed once (and again only after a change below). */
  get textContent(): string {
    if (this.text === null) {
      let s = '';
      for (const c of this.childNodes) s += c.textContent;
      this.text = s;
    }
    return this.text;
  }

  getAttribute(name: string): string | null {
    return this.attribs[name.toLowerCase()] ?? null;
  }

  /** Descendant elements with this tag name (case-insensitive), in document order. */
  getElementsByTagName(name: string): readonly MirrorElement[] {
    const bit = tagBit(name);
    if (bit !== 0 && (this.descendantTags & bit) === 0) return EMPTY;
    const tag = name.toLowerCase();
    const out: MirrorElement[] = [];
    const stack: MirrorNode[] = [...this.childNodes].reverse();
    while (stack.length > 0) {
      const node = stack.pop() as MirrorNode;
      if (node.nodeType !== 1) continue;
      if (tag === '*' || node.tag === tag) out.push(node);
      for (let i = node.childNodes.length - 1; i >= 0; i--) stack.push(node.childNodes[i] as MirrorNode);
    }
    return out;
  }

  removeChild<T extends MirrorNode>(child: T): T {
    const i = this.childNodes.indexOf(child);
    if (i < 0) throw new Error('removeChild: not a child of this node');
    this.childNodes.splice(i, 1);
    const prev = child.previousSibling;
    const next = child.nextSibling;
    if (prev !== null) prev.nextSibling = next;
    if (next !== null) next.previousSibling = prev;
    child.parentNode = null;
    child.previousSibling = null;
    child.nextSibling = null;
    this.textChanged();
    return child;
  }

  /** Appends `child` (which must not have a parent yet) as the last child. */
  appendChild<T extends MirrorNode>(child: T): T {
    const last = this.childNodes[this.childNodes.length - 1];
    if (last !== undefined) {
      last.nextSibling = child;
      child.previousSibling = last;
    }
    child.parentNode = this;
    this.childNodes.push(child);
    this.textChanged();
    return child;
  }

  /** Drops the cached textContent of this element and its ancestors. */
  textChanged(): void {
    if (this.text === null) return;
    this.text = null;
    for (let el = this.parentNode; el !== null && el.text !== null; el = el.parentNode) el.text = null;
  }
}

/** Per-element facts the rules need, computed once while mirroring (see build-mirror.ts). */
export interface ElementInfo {
  /** Block-level for markdown (BLOCK_ELEMENTS): wrapped in blank lines. */
  readonly block: boolean;
  /** Emphasis, strong and strikethrough open around (and including) this element, as a bit set. */
  readonly marks: number;
  /** This element's own mark is already open around it (`<b><b>x</b></b>`): render its content only. */
  readonly repeatedMark: boolean;
  /** Lists and blockquotes open around (and including) this element. */
  readonly nest: number;
  /** Number of a list item in an ordered list (honours `start`), else -1. */
  readonly ordinal: number;
  /** Language of a `<pre>` code block ('' when unknown). */
  readonly language: string;
}
