// Regenerates the OCR fixtures of this folder (run from the worktree root):
//   node packages/documents/src/ocr/__fixtures__/make-fixtures.mjs
// Chromium renders a small page of known text; its screenshot becomes `page.png` and `page.jpg`, and a
// page holding nothing but an <img> of that screenshot is printed to `image-only.pdf` (a PDF without a
// text layer, checked with pdfjs-dist below). The committed outputs are what the tests read; rerun this
// only when the text changes, and update `expected-text.json` with it.
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = dirname(fileURLToPath(import.meta.url));
// playwright-core is a dependency of @trawl/browser and pdfjs-dist of @trawl/documents, resolved from their folders.
const requireFromPackage = createRequire(join(here, '../../../package.json'));
const { chromium } = createRequire(join(here, '../../../../browser/package.json'))('playwright-core');

const expected = JSON.parse(await readFile(join(here, 'expected-text.json'), 'utf8'));

const escapeHtml = (s) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

const textPage = `<!DOCTYPE html><html><head><meta charset="utf-8"><style>
  html, body { margin: 0; background: #fff; color: #000; }
  body { width: 760px; padding: 24px 20px; font: 20px/1.4 "DejaVu Sans", "Liberation Sans", Arial, sans-serif; }
  h1 { font-size: 32px; margin: 0 0 16px; }
  p { margin: 0 0 14px; }
  ul { margin: 0; padding-left: 28px; }
</style></head><body>
<h1>${escapeHtml(expected.heading)}</h1>
${expected.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n')}
<ul>${expected.list.map((li) => `<li>${escapeHtml(li)}</li>`).join('')}</ul>
</body></html>`;

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
try {
  const page = await browser.newPage({ viewport: { width: 800, height: 600 }, deviceScaleFactor: 1 });
  await page.setContent(textPage);
  const body = page.locator('body');
  const png = await body.screenshot({ type: 'png' });
  const jpeg = await body.screenshot({ type: 'jpeg', quality: 80 });
  await writeFile(join(here, 'page.png'), png);
  await writeFile(join(here, 'page.jpg'), jpeg);

  // An A4 page whose only content is the screenshot: what a scanner or a "print as image" produces.
  const imagePage = `<!DOCTYPE html><html><head><style>@page { size: A4; margin: 12mm; } body { margin: 0; }
    img { width: 100%; display: block; }</style></head>
    <body><img src="data:image/png;base64,${png.toString('base64')}"></body></html>`;
  await page.setContent(imagePage);
  const pdf = await page.pdf({ format: 'A4', printBackground: true, preferCSSPageSize: true });
  await writeFile(join(here, 'image-only.pdf'), pdf);

  const pdfjs = await import(requireFromPackage.resolve('pdfjs-dist/legacy/build/pdf.mjs'));
  const doc = await pdfjs.getDocument({ data: new Uint8Array(pdf), useSystemFonts: false }).promise;
  let items = 0;
  for (let i = 1; i <= doc.numPages; i++) {
    const content = await (await doc.getPage(i)).getTextContent();
    items += content.items.filter((it) => 'str' in it && it.str.trim() !== '').length;
  }
  await doc.destroy();
  if (doc.numPages !== 1 || items !== 0) throw new Error(`image-only.pdf: expected 1 page without text, got ${doc.numPages} pages, ${items} text items`);
  console.log(`page.png ${png.length} B, page.jpg ${jpeg.length} B, image-only.pdf ${pdf.length} B (1 page, no text layer)`);
} finally {
  await browser.close();
}
