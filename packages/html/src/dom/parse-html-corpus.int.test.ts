import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { corpusDirs, htmlFilesUnder } from '@trawl/testing';
import { parse } from 'parse5';
import { adapter } from 'parse5-htmlparser2-tree-adapter';
import { serializeTree } from './__fixtures__/html5lib-tree.js';
import { MAX_STANDARD_DEPTH, parseHtml } from './parse-html.js';
import { buildStandardDom, TOO_DEEP } from './standard-dom.js';

// The shared corpora (next to the repository on development machines, absent in CI).
const { dirs: DIRS, present: corporaPresent } = corpusDirs(['trafilatura-eval', 'readability']);
// parse5 once per page over 177 MB (parseHtml takes the fast builder on 99% of the pages): opt in with
// TRAWL_CORPUS_DIFF=1.
const present = corporaPresent && process.env['TRAWL_CORPUS_DIFF'] === '1';

(present ? describe : describe.skip)('parseHtml against parse5 over the corpus pages', () => {
  it('builds the tree of parse5 (htmlparser2 adapter) for every page nested within the depth cap', () => {
    const differ: string[] = [];
    const tooDeep: string[] = [];
    let n = 0;
    let fast = 0;
    for (const dir of DIRS) {
      for (const file of htmlFilesUnder(dir)) {
        const html = readFileSync(file, 'utf8');
        const r = buildStandardDom(html, MAX_STANDARD_DEPTH);
        if (r.doc !== null) fast++;
        n++;
        if (r.unsupported === TOO_DEEP) {
          // Parsed by the linear builder (see parseHtml): not the standard's tree.
          tooDeep.push(file);
          continue;
        }
        // parse5 with the htmlparser2 tree adapter: the domhandler tree keys attributes by local name, so an
        // SVG element with both `href` and `xlink:href` keeps one of them (4 corpus pages); parse5's
        // default tree keeps both, the differential would report the adapter, not the builder.
        if (serializeTree(parseHtml(html)) !== serializeTree(parse(html, { treeAdapter: adapter, scriptingEnabled: true }))) differ.push(file);
      }
    }
    expect(differ).toEqual([]);
    expect(n).toBeGreaterThan(1000);
    expect(tooDeep.length).toBeLessThan(n / 100);
    expect(fast).toBeGreaterThan(n * 0.95);
  });
});
