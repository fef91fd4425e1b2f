import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { referenceIsBotWall } from './__fixtures__/bot-wall-reference.js';
import { isBotWall } from './page-signals.js';

// The shared corpora (next to the repository on development machines, absent in CI).
const CORPORA = join(dirname(fileURLToPath(import.meta.url)), '../../../../../shared/corpora');
const DIRS = ['readability', 'trafilatura-eval', 'site-jena'].map((d) => join(CORPORA, d));
const present = DIRS.every((d) => existsSync(d));

function htmlFiles(dir: string, into: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) htmlFiles(p, into);
    else if (/\.html?$/.test(e.name)) into.push(p);
  }
  return into;
}

(present ? describe : describe.skip)('isBotWall over the corpus pages', () => {
  it('answers as the unfiltered markers do on every page, as a 200 answer', () => {
    const differ: string[] = [];
    let pages = 0;
    let walls = 0;
    for (const dir of DIRS) {
      for (const file of htmlFiles(dir)) {
        const html = readFileSync(file, 'utf8');
        pages++;
        // Every status but 401/403/429 reaches the markers alike (page-signals.test.ts covers those).
        const expected = referenceIsBotWall(200, html);
        if (expected) walls++;
        if (isBotWall(200, html) !== expected) differ.push(file);
      }
    }
    expect(pages).toBeGreaterThan(1000);
    expect(walls).toBeGreaterThan(0); // the corpora hold a few pages the markers take for walls
    expect(differ).toEqual([]);
  });
});
