import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { corpusDirs, htmlFilesUnder } from '@trawl/testing';
import { CRAFTED_PAGES, referenceIsBotWall } from './__fixtures__/bot-wall-reference.js';
import { isBotWall } from './page-signals.js';

// The shared corpora (next to the repository on development machines, absent in CI).
const { dirs: DIRS, present } = corpusDirs(['readability', 'trafilatura-eval', 'site-jena']);

(present ? describe : describe.skip)('isBotWall over the corpus pages', () => {
  it('answers as the unfiltered markers do on every page, as a 200 answer', () => {
    const differ: string[] = [];
    let pages = 0;
    let walls = 0;
    // No corpus page is a wall, so the prefilter is also checked on each page with a crafted wall's
    // markup placed after its first 2,000 characters (real content around it, two-byte text included).
    const crafted = CRAFTED_PAGES.filter((p) => p.wall && p.html.length < 4_000);
    let injectedWalls = 0;
    for (const dir of DIRS) {
      for (const file of htmlFilesUnder(dir)) {
        const html = readFileSync(file, 'utf8');
        // Every status but 401/403/429 reaches the markers alike (page-signals.test.ts covers those).
        const expected = referenceIsBotWall(200, html);
        if (expected) walls++;
        if (isBotWall(200, html) !== expected) differ.push(file);
        const injected = html.slice(0, 2_000) + crafted[pages % crafted.length]!.html + html.slice(2_000);
        const injectedExpected = referenceIsBotWall(200, injected);
        if (injectedExpected) injectedWalls++;
        if (isBotWall(200, injected) !== injectedExpected) differ.push(`${file} + ${crafted[pages % crafted.length]!.name}`);
        pages++;
      }
    }
    expect(injectedWalls).toBe(pages);
    expect(pages).toBeGreaterThan(1000);
    // Every corpus page is content; eight of them carry an anti-bot service's sensor (Cloudflare,
    // DataDome, Imperva), which is no wall.
    expect(walls).toBe(0);
    expect(differ).toEqual([]);
  });
});
