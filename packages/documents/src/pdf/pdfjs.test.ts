import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openPdf } from './pdfjs.js';

const fixture = (name: string): Uint8Array =>
  new Uint8Array(readFileSync(join(dirname(fileURLToPath(import.meta.url)), '__fixtures__', name)));

describe('pdf.js as patched (patches/pdfjs-dist@*.patch)', () => {
  it('answers link annotations without extracting the text under them a second time', async () => {
    const doc = await openPdf(fixture('text.pdf'));
    try {
      const page = await doc.getPage(1);
      const annotations = (await page.getAnnotations({ intent: 'display' })) as Array<{ subtype?: string; url?: string; overlaidText?: string }>;
      const links = annotations.filter((a) => a.subtype === 'Link');
      expect(links.map((a) => a.url)).toEqual(['https://example.com/docs/manual']);
      // Unpatched, pdf.js 5.3+ re-reads the page's whole text to fill this in (mozilla/pdf.js#21442).
      expect(links[0]!.overlaidText).toBeUndefined();
    } finally {
      await doc.destroy();
    }
  });
});
