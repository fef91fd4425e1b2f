import type { AnyNode } from 'domhandler';
import { BLOCK_TAGS, isElement, isText } from './dom-helpers.js';

const SKIP_TAGS: ReadonlySet<string> = new Set(['script', 'style', 'noscript', 'template', 'head', 'title']);

/**
 * Plain text of a DOM subtree, the way a browser's `innerText` roughly lays it out: inline elements
 * join without added spaces, block elements (p, div, li, td, headings, br, ...) start a new line,
 * whitespace runs collapse to one space, `<pre>` keeps its line breaks. Script, style and head content
 * is skipped. Used to score extraction quality and for text-only consumers.
 */
export function domToText(root: AnyNode): string {
  const parts: string[] = [];
  walk(root, parts, false);
  return parts
    .join('')
    .split('\n')
    .map((line) => line.replace(/[ \t\r\f\v\u00a0]+/g, ' ').trim())
    .filter((line) => line.length > 0)
    .join('\n');
}

/** Iterative walk (a stack instead of recursion: nesting depth is unbounded in real pages). */
function walk(root: AnyNode, parts: string[], inPre: boolean): void {
  // A string on the stack is output to emit when it is popped (the newline closing a block).
  const stack: Array<{ node: AnyNode; pre: boolean } | string> = [{ node: root, pre: inPre }];
  while (stack.length > 0) {
    const item = stack.pop() as { node: AnyNode; pre: boolean } | string;
    if (typeof item === 'string') {
      parts.push(item);
      continue;
    }
    const { node } = item;
    if (isText(node)) {
      parts.push(item.pre ? node.data : node.data.replace(/\s+/g, ' '));
      continue;
    }
    if (!('children' in node)) continue;
    let pre = item.pre;
    let block = false;
    if (isElement(node)) {
      if (SKIP_TAGS.has(node.name)) continue;
      block = BLOCK_TAGS.has(node.name);
      if (node.name === 'pre') pre = true;
      if (node.name === 'td' || node.name === 'th') {
        // Cells of one row read left to right; a tab keeps them apart without breaking the row.
        parts.push(' \t');
        block = false;
      }
    }
    if (block) {
      parts.push('\n');
      stack.push('\n');
    }
    for (let i = node.children.length - 1; i >= 0; i--) stack.push({ node: node.children[i] as AnyNode, pre });
  }
}
