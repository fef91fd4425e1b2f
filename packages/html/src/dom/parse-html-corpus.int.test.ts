import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'parse5';
import { serializeParse5Tree, serializeTree } from './__fixtures__/html5lib-tree.js';
import { parseHtml } from './parse-html.js';

// The shared corpora (next to the repository on development machines, absent in CI).
const CORPORA = join(dirname(fileURLToPath(import.meta.url)), '../../../../../shared/corpora');
const DIRS = ['trafilatura-eval', 'readability'].map((d) => join(CORPORA, d));
// About 14 minutes on a busy 2-core machine (parse5 twice per page over 177 MB): opt in with TRAWL_CORPUS_DIFF=1.
// Last run: 5 of 1292 pages differ (pages past parseHtml's nesting cap, parsed by the linear builder).
const present = DIRS.every((d) => existsSync(d)) && process.env['TRAWL_CORPUS_DIFF'] === '1';

function htmlFiles(dir: string, into: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) htmlFiles(p, into);
    else if (/\.html?$/.test(e.name)) into.push(p);
  }
  return into;
}

(present ? describe : describe.skip)('parseHtml against parse5 over the corpus pages', () => {
  it('builds parse5 default tree for every page', () => {
    const differ: string[] = [];
    let n = 0;
    for (const dir of DIRS) {
      for (const file of htmlFiles(dir)) {
        const html = readFileSync(file, 'utf8');
        if (serializeTree(parseHtml(html)) !== serializeParse5Tree(parse(html, { scriptingEnabled: true }) as never)) differ.push(file);
        n++;
      }
    }
    expect(differ).toEqual([]);
    expect(n).toBeGreaterThan(1000);
  });
});
