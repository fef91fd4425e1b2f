import { describe, expect, it } from '@jest/globals';
import { parse } from 'parse5';
import { datFiles, MINIMAL_CASES, readDatFile, serializeParse5Tree, serializeTree } from './__fixtures__/html5lib-tree.js';
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
