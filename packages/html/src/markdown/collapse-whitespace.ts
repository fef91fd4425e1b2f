import type { AnyNode, Element, Text } from 'domhandler';
import { BLOCK_ELEMENTS, SKIPPED_ELEMENTS, VOID_ELEMENTS } from './elements.js';

const NEEDS_COLLAPSE = /[\r\n\t]| {2}/;

/**
 * Computes the browser-like collapsed text of every text node under `root`, without mutating the DOM.
 *
 * Same algorithm as turndown's collapseWhitespace (from collapse-whitespace): runs of ASCII whitespace
 * become one space, a space following a space (across inline element boundaries) is dropped, and text is
 * trimmed next to block elements and `<br>`. `<pre>` content is left alone (the converter reads it raw).
 * Iterative so that pathologically deep documents cannot overflow the call stack.
 *
 * @returns map from text node to its collapsed text ('' for text that disappears).
 */
export function collapseWhitespace(root: AnyNode): Map<Text, string> {
  const out = new Map<Text, string>();
  let prevText: Text | null = null;
  let prevEndsWithSpace = false;
  let keepLeadingWs = false;

  const trimPrev = (): void => {
    if (prevText !== null && prevEndsWithSpace) {
      const t = out.get(prevText) ?? '';
      out.set(prevText, t.slice(0, -1));
    }
  };
  // An element is visited on entry and again on exit (turndown's traversal does the same).
  const visitElement = (name: string): void => {
    if (BLOCK_ELEMENTS.has(name) || name === 'br') {
      trimPrev();
      prevText = null;
      prevEndsWithSpace = false;
      keepLeadingWs = false;
    } else if (name === 'input') {
      // Only checkboxes render (as `[x] `, space included), so the space after them would double.
      prevText = null;
      prevEndsWithSpace = false;
      keepLeadingWs = false;
    } else if (VOID_ELEMENTS.has(name) || name === 'pre') {
      prevText = null;
      prevEndsWithSpace = false;
      keepLeadingWs = true;
    } else if (prevText !== null) {
      keepLeadingWs = false;
    }
  };

  // Stack of [parent, next child index]; exit handling happens when a parent runs out of children.
  const parents: Element[] = [];
  const indexes: number[] = [];
  const start = (node: AnyNode): void => {
    if (node.type === 'text') {
      handleText(node);
    } else if (node.type === 'tag' || node.type === 'script' || node.type === 'style') {
      enter(node);
    } else if (node.type === 'root') {
      parents.push(node as unknown as Element); // root only needs `children`; it is never "visited"
      indexes.push(0);
    }
  };
  const handleText = (node: Text): void => {
    // Most text needs no collapsing; testing first avoids allocating a copy of every text node.
    let text = NEEDS_COLLAPSE.test(node.data) ? node.data.replace(/[ \r\n\t]+/g, ' ') : node.data;
    if ((prevText === null || prevEndsWithSpace) && !keepLeadingWs && text.charCodeAt(0) === 32) {
      text = text.slice(1);
    }
    out.set(node, text);
    if (text.length === 0) return;
    prevText = node;
    prevEndsWithSpace = text.charCodeAt(text.length - 1) === 32;
  };
  const enter = (el: Element): void => {
    const name = el.name;
    if (SKIPPED_ELEMENTS.has(name)) return;
    visitElement(name);
    if (name === 'pre' || el.children.length === 0) {
      // Turndown visits a childless element again on exit only through its parent; emulate the exit for
      // non-void childless elements so that blocks still trim on both sides.
      if (name !== 'pre' && !VOID_ELEMENTS.has(name)) visitElement(name);
      return;
    }
    parents.push(el);
    indexes.push(0);
  };

  start(root);
  while (parents.length > 0) {
    const top = parents.length - 1;
    const parent = parents[top] as Element;
    const i = indexes[top] as number;
    const child = parent.children[i];
    if (child === undefined) {
      parents.pop();
      indexes.pop();
      if (parent.type !== ('root' as string)) visitElement(parent.name);
      continue;
    }
    indexes[top] = i + 1;
    if (child.type === 'text') handleText(child);
    else if (child.type === 'tag' || child.type === 'script' || child.type === 'style') enter(child);
  }
  if (prevText !== null && prevEndsWithSpace) trimPrev();
  return out;
}
