import render from 'dom-serializer';
import type { AnyNode, Element } from 'domhandler';
import { escapeAttribute } from 'entities';

const OPTIONS = { encodeEntities: 'utf8' } as const;

/**
 * dom-serializer recurses a few frames per level of nesting; subtrees up to this height are left to it
 * (it overflows the stack somewhere past 5,000 levels).
 */
const MAX_RENDER_HEIGHT = 400;

/** Void elements: dom-serializer writes no closing tag for them in HTML mode. */
const VOID = new Set([
  'area', 'base', 'basefont', 'br', 'col', 'command', 'embed', 'frame', 'hr', 'img', 'input', 'isindex', 'keygen',
  'link', 'meta', 'param', 'source', 'track', 'wbr',
]);

const isElement = (node: AnyNode): node is Element =>
  node.type === 'tag' || node.type === 'script' || node.type === 'style';

/** Deepest nesting of nodes with children below `top` (0 for a leaf); walks parent links, no allocation. */
function depth(top: AnyNode): number {
  let max = 0;
  let level = 0;
  let node: AnyNode = top;
  for (;;) {
    if ('children' in node && node.children.length > 0) {
      node = node.children[0] as AnyNode;
      level++;
      if (level > max) max = level;
      continue;
    }
    // Up until a node with a next sibling, never above `top`.
    while (node !== top && node.next === null) {
      node = node.parent as AnyNode;
      level--;
    }
    if (node === top) return max;
    node = node.next as AnyNode;
  }
}

/** Height (levels of elements below and including it) of every element of a subtree, iteratively. */
function heights(nodes: readonly AnyNode[]): Map<Element, number> {
  const of = new Map<Element, number>();
  // Post-order: an element is pushed twice, its height is known on the second pop.
  const stack: [AnyNode, boolean][] = nodes.map((n) => [n, false]);
  while (stack.length > 0) {
    const [node, done] = stack.pop() as [AnyNode, boolean];
    if (!('children' in node)) continue;
    if (!done) {
      stack.push([node, true]);
      for (const c of node.children) stack.push([c, false]);
      continue;
    }
    let h = 0;
    for (const c of node.children) if (isElement(c)) h = Math.max(h, of.get(c) ?? 0);
    if (isElement(node)) {
      h += 1;
      of.set(node, h);
    }
  }
  return of;
}

function openTag(el: Element): string {
  let tag = `<${el.name}`;
  for (const [key, value] of Object.entries(el.attribs)) tag += value === '' ? ` ${key}` : ` ${key}="${escapeAttribute(value)}"`;
  return tag + '>';
}

/**
 * Serializes nodes as HTML (UTF-8, only `&<>"` and nbsp escaped), exactly as dom-serializer does, at any
 * nesting depth: subtrees of ordinary height go to dom-serializer, the levels above them are written
 * iteratively. (SVG or MathML nested deeper than MAX_RENDER_HEIGHT is written in HTML mode.)
 */
export function serializeHtml(nodes: readonly AnyNode[]): string {
  if (nodes.every((n) => depth(n) <= MAX_RENDER_HEIGHT)) return render(nodes as AnyNode[], OPTIONS);
  const of = heights(nodes);
  let out = '';
  const stack: (AnyNode | string)[] = [...nodes].reverse();
  while (stack.length > 0) {
    const item = stack.pop() as AnyNode | string;
    if (typeof item === 'string') {
      out += item;
    } else if (isElement(item) && (of.get(item) ?? 0) > MAX_RENDER_HEIGHT) {
      out += openTag(item);
      if (!VOID.has(item.name)) stack.push(`</${item.name}>`);
      for (let i = item.children.length - 1; i >= 0; i--) stack.push(item.children[i] as AnyNode);
    } else if (item.type === 'root') {
      for (let i = item.children.length - 1; i >= 0; i--) stack.push(item.children[i] as AnyNode);
    } else {
      out += render(item, OPTIONS);
    }
  }
  return out;
}
