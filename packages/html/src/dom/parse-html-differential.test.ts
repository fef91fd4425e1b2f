import { describe, expect, it } from '@jest/globals';
import type { Element, ParentNode } from 'domhandler';
import { parse } from 'parse5';
import { datFiles, MINIMAL_CASES, readDatFile, serializeParse5Tree, serializeTree } from './__fixtures__/html5lib-tree.js';
import { isElement } from './dom-helpers.js';
import { parseHtml } from './parse-html.js';
import { buildStandardDom } from './standard-dom.js';

/*
 * parseHtml (domhandler tree: the fast builder's, or parse5's where it stops) against parse5's own default tree, both in the html5lib `| <tag>` format:
 * the domhandler tree must be the standard's tree, node for node. Over every document input of the
 * vendored html5lib suite and the five minimal cases of issue 21; the corpus pages are in
 * parse-html-corpus.int.test.ts.
 */
const same = (html: string): void => {
  expect(serializeTree(parseHtml(html))).toBe(serializeParse5Tree(parse(html, { scriptingEnabled: true }) as never));
};

describe('parseHtml against parse5', () => {
  it('builds the tree of the five minimal cases of issue 21', () => {
    for (const html of MINIMAL_CASES) same(html);
  });

  it('builds the tree of every html5lib document input', () => {
    let n = 0;
    let fast = 0;
    for (const file of datFiles()) {
      for (const c of readDatFile(file)) {
        if (c.fragment !== undefined) continue;
        same(c.data);
        n++;
        if (c.scripting !== 'off' && buildStandardDom(c.data).doc !== null) fast++;
      }
    }
    expect(n).toBeGreaterThan(1500);
    // The fast builder (standard-dom.ts) built 1019 of them itself at the time of writing, parse5 the
    // rest (foreign content, framesets, foster parenting, raw text cut off by the end of the input, NUL).
    expect(fast).toBeGreaterThan(1000);
  });
});

/** The wanted elements by a walk of the finished tree (what parseHtml's `collect` must hand back). */
function walkCollect(root: ParentNode, names: ReadonlySet<string>, skipInside: ReadonlySet<string>): Element[] {
  const out: Element[] = [];
  const visit = (parent: ParentNode): void => {
    for (const node of parent.children) {
      if (!isElement(node)) continue;
      if (names.has(node.name)) out.push(node);
      if (!skipInside.has(node.name)) visit(node);
    }
  };
  visit(root);
  return out;
}

describe('parseHtml collect', () => {
  it('hands back the elements a walk of the tree finds, in document order, for every html5lib document input', () => {
    // The metadata elements, plus names the adoption agency copies and moves, and names inside skipped elements.
    const names = new Set(['html', 'base', 'title', 'meta', 'link', 'template', 'b', 'a', 'p', 'div', 'svg', 'circle', 'td']);
    const skipInside = new Set(['script', 'style', 'template', 'svg', 'math', 'table']);
    let n = 0;
    for (const file of datFiles()) {
      for (const c of readDatFile(file)) {
        if (c.fragment !== undefined) continue;
        const into: Element[] = [];
        const doc = parseHtml(c.data, { collect: { names, skipInside, into } });
        const walked = walkCollect(doc, names, skipInside);
        // The same nodes (identity), in the same order.
        if (into.length !== walked.length || into.some((el, i) => el !== walked[i])) {
          throw new Error(`${c.file} #${c.index}: collected ${into.map((e) => e.name).join(' ')}; walk ${walked.map((e) => e.name).join(' ')}`);
        }
        n++;
      }
    }
    expect(n).toBeGreaterThan(1500);
  });
});
