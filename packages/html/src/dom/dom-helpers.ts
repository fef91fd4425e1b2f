import { Element, Text, type AnyNode, type ParentNode } from 'domhandler';

/**
 * Elements that start a new line of text (block formatting context). Used by the text extractor and
 * by the main-content scorer to cut the page into text blocks.
 */
export const BLOCK_TAGS: ReadonlySet<string> = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'br', 'caption', 'center', 'dd', 'details', 'dialog',
  'dir', 'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4',
  'h5', 'h6', 'header', 'hgroup', 'hr', 'html', 'li', 'main', 'menu', 'nav', 'ol', 'option', 'p', 'pre',
  'section', 'summary', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'ul', 'legend', 'iframe',
  'select', 'textarea', 'video', 'audio', 'noscript', 'title',
]);

/** True when the node is an element (tag, script or style), narrowing to domhandler's Element. */
export function isElement(node: AnyNode): node is Element {
  return node instanceof Element;
}

/** True when the node is a text node. */
export function isText(node: AnyNode): node is Text {
  return node instanceof Text;
}

/** Detaches a node from its parent, keeping sibling links consistent. */
export function removeNode(node: AnyNode): void {
  const parent = node.parent;
  if (parent) {
    const i = parent.children.indexOf(node as never);
    if (i >= 0) parent.children.splice(i, 1);
  }
  if (node.prev) node.prev.next = node.next;
  if (node.next) node.next.prev = node.prev;
  node.parent = null;
  node.prev = null;
  node.next = null;
}

/** Re-links `prev`/`next`/`parent` of the children of `parent` after bulk edits of its child array. */
export function relinkChildren(parent: ParentNode): void {
  const kids = parent.children;
  for (let i = 0; i < kids.length; i++) {
    const child = kids[i] as AnyNode;
    child.parent = parent;
    child.prev = (kids[i - 1] as AnyNode | undefined) ?? null;
    child.next = (kids[i + 1] as AnyNode | undefined) ?? null;
  }
}

/** Removes every child for which `drop` returns true, in one pass (linear, unlike repeated splices). */
export function filterChildren(parent: ParentNode, drop: (child: AnyNode) => boolean): void {
  const kids = parent.children;
  // Most parents lose no child: find the first one to drop before allocating anything.
  let first = 0;
  while (first < kids.length && !drop(kids[first] as AnyNode)) first++;
  if (first === kids.length) return;
  const kept: AnyNode[] = kids.slice(0, first);
  (kids[first] as AnyNode).parent = null;
  for (let i = first + 1; i < kids.length; i++) {
    const child = kids[i] as AnyNode;
    if (drop(child)) child.parent = null;
    else kept.push(child);
  }
  parent.children = kept as typeof parent.children;
  relinkChildren(parent);
}

/** Depth-first search for the first element with the given tag name. */
export function findFirstTag(root: AnyNode, tag: string): Element | null {
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (isElement(node)) {
      if (node.name === tag) return node;
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as AnyNode);
    } else if ('children' in node) {
      const kids = (node as ParentNode).children;
      for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i] as AnyNode);
    }
  }
  return null;
}

/** Collects every element below `root` (document order) whose tag name is in `tags`. */
export function findAllTags(root: AnyNode, tags: ReadonlySet<string>): Element[] {
  const out: Element[] = [];
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (isElement(node) && tags.has(node.name)) out.push(node);
    if ('children' in node) {
      const kids = (node as ParentNode).children;
      for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i] as AnyNode);
    }
  }
  return out;
}

/** All text below `root` (comments excluded), like the DOM's textContent. Iterative, unlike domutils'. */
export function textContent(root: AnyNode): string {
  let out = '';
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (isText(node)) out += node.data;
    else if ('children' in node) for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as AnyNode);
  }
  return out;
}
