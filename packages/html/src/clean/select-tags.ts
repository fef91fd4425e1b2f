import { selectAll } from 'css-select';
import { Document, type AnyNode, type Element } from 'domhandler';
import * as DomUtils from 'domutils';
import { isElement, relinkChildren, removeNode } from '../dom/dom-helpers.js';

/** Result of applying user selectors: the selectors that could not be parsed are reported, not thrown. */
export interface SelectTagsResult {
  /** Root holding the selected content (a new Document for includeTags, else the input root). */
  root: AnyNode;
  /** Selectors that css-select rejected; they select nothing. */
  invalidSelectors: string[];
}

/**
 * domutils' findAll (what css-select searches with) shifts and unshifts its stack arrays, a cost
 * proportional to the depth for every node: seconds on a page nested 100,000 levels deep. This one
 * pushes and pops; same elements, same (document) order.
 */
function findAll(test: (el: Element) => boolean, nodes: AnyNode[]): Element[] {
  const out: Element[] = [];
  const stack: AnyNode[] = [];
  for (let i = nodes.length - 1; i >= 0; i--) stack.push(nodes[i] as AnyNode);
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (isElement(node) && test(node)) out.push(node);
    if ('children' in node) for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as AnyNode);
  }
  return out;
}

const SELECT_OPTIONS = { adapter: { ...DomUtils, findAll } };

/** css-select over `root` with the fast findAll; a selector it rejects is added to `invalid` and selects nothing. */
export function safeSelectAll(selector: string, root: AnyNode, invalid: string[]): Element[] {
  try {
    return selectAll<AnyNode, Element>(selector, root, SELECT_OPTIONS);
  } catch {
    invalid.push(selector);
    return [];
  }
}

function isInside(node: AnyNode, ancestors: ReadonlySet<AnyNode>): boolean {
  for (let p = node.parent; p; p = p.parent) if (ancestors.has(p)) return true;
  return false;
}

/**
 * Keeps only the elements matching any of `selectors` (CSS: tag names, .class, #id, attribute
 * selectors...), in document order, as children of a new Document. A match nested inside another
 * match is kept once, through its ancestor. No match yields an empty Document.
 */
export function includeTags(root: AnyNode, selectors: readonly string[]): SelectTagsResult {
  const invalid: string[] = [];
  const matched = new Set<AnyNode>();
  for (const sel of selectors) {
    if (sel.trim() === '') continue;
    for (const el of safeSelectAll(sel, root, invalid)) matched.add(el);
  }
  // selectAll returns document order per selector; merging selectors needs a global order.
  const order = new Map<AnyNode, number>();
  let n = 0;
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    order.set(node, n++);
    if ('children' in node) {
      const kids = (node as Element).children;
      for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i] as AnyNode);
    }
  }
  const outer = [...matched].filter((el) => !isInside(el, matched));
  outer.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
  for (const el of outer) removeNode(el);
  const doc = new Document(outer);
  relinkChildren(doc);
  return { root: doc, invalidSelectors: invalid };
}

/** Removes every element matching any of `selectors` from the tree (in place). */
export function excludeTags(root: AnyNode, selectors: readonly string[]): SelectTagsResult {
  const invalid: string[] = [];
  for (const sel of selectors) {
    if (sel.trim() === '') continue;
    for (const el of safeSelectAll(sel, root, invalid)) removeNode(el);
  }
  return { root, invalidSelectors: invalid };
}
