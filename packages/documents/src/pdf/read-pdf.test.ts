import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TrawlError } from '@trawl/api-schema';
import type { OcrEngine, PageText, ParseDocumentOptions } from '../types.js';
import { openPdf } from './pdfjs.js';
import { readPdf } from './read-pdf.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '__fixtures__');
const fixture = (name: string): Uint8Array => new Uint8Array(readFileSync(join(fixtures, name)));

function options(extra: Partial<ParseDocumentOptions> = {}): ParseDocumentOptions {
  return {
    pdfMode: 'fast',
    limits: { maxPages: 100, maxInflatedBytes: 1e9, maxCells: 1e6 },
    deadline: Date.now() + 60_000,
    signal: new AbortController().signal,
    ocrLanguages: ['eng'],
    ...extra,
  };
}

/** Rejection of a promise as a TrawlError (fails the test when it resolves or throws something else). */
async function trawlError(p: Promise<unknown>): Promise<TrawlError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  if (!(err instanceof TrawlError)) throw new Error(`expected a TrawlError, got ${String(err)}`);
  return err;
}

/** An OCR engine that reads the image's size from its PNG header and "recognizes" two fixed words. */
class FixedWordsOcr implements OcrEngine {
  readonly calls: { pageNumber?: number; languages: string[]; width: number; height: number }[] = [];
  async languages(): Promise<string[]> {
    return ['eng'];
  }
  async recognize(image: Uint8Array, opts: { languages: string[]; signal: AbortSignal; pageNumber?: number }): Promise<PageText> {
    const view = new DataView(image.buffer, image.byteOffset, image.byteLength);
    expect(Array.from(image.subarray(1, 4))).toEqual([0x50, 0x4e, 0x47]);
    const width = view.getUint32(16);
    const height = view.getUint32(20);
    this.calls.push({ pageNumber: opts.pageNumber, languages: opts.languages, width, height });
    // 50 px at 300 dpi: a 12 pt font, the size of page 1's text once scaled back to page units.
    const word = (text: string, x: number) => ({ text, x, y: height * 0.1, width: width * 0.2, height: 50, fontSize: 50, bold: false, italic: false, confidence: 90 });
    return { pageNumber: opts.pageNumber ?? 1, width, height, runs: [word('RECOGNIZED', width * 0.1), word('WORDS', width * 0.35)], links: [], source: 'ocr' };
  }
}

describe('readPdf', () => {
  it('reads headings, paragraphs, lists, a table, a link, code and metadata from a text PDF', async () => {
    const doc = await readPdf(fixture('text.pdf'), options());
    expect(doc).toMatchObject({ format: 'pdf', title: 'Fixture Text Document', numPages: 1, totalPages: 1, ocrPages: 0, warnings: [] });
    expect(doc.metadata.title).toBe('Fixture Text Document');
    expect(doc.metadata.producer).toMatch(/Skia/);
    expect(doc.metadata.creationDate).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
    const html = doc.html;
    expect(html).toContain('<title>Fixture Text Document</title>');
    expect(html).toContain('<h1>Quarterly Fixture Report</h1>');
    expect(html).toContain('<h2>Findings of the Survey</h2>');
    // Lines of one paragraph are joined across the printed line breaks.
    expect(html).toContain('<p>Trawl reads documents the way a careful person would, line after line and column after column. Every paragraph in this fixture is long enough to wrap over several lines of the printed page. The layout step joins those lines again, so the text reads as it was written before printing.</p>');
    expect(html).toContain('<p>Read the <a href="https://example.com/docs/manual">online manual</a> for more details.</p>');
    expect(html).toContain('<ul><li>First bullet point about apples</li><li>Second bullet point about pears</li><li>Third bullet point about plums</li></ul>');
    expect(html).toContain('<ol><li>Open the archive</li><li>Read the index</li><li>Close the archive</li></ol>');
    expect(html).toContain('<tr><th>Fruit</th><th>Quantity</th><th>Price</th></tr><tr><td>Apple</td><td>3</td><td>1.20</td></tr>');
    expect(html).toContain("<pre><code>function greet(name) {\n  return 'hello ' + name;\n}</code></pre>");
  });

  it('reads two columns one after the other, below the full-width title', async () => {
    const { html } = await readPdf(fixture('two-column.pdf'), options());
    const body = html.slice(html.indexOf('<body>'));
    expect(body.indexOf('<h1>A Title Spanning Both Columns</h1>')).toBeGreaterThan(0);
    const names = ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo', 'Foxtrot'];
    const positions = names.map((n) => body.indexOf(`<p>${n} paragraph begins here.`));
    expect(positions.every((p) => p > body.indexOf('</h1>'))).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    for (const n of names) expect(body).toMatch(new RegExp(`<p>${n} paragraph begins here\\. [^<]*${n} paragraph ends here\\.</p>`));
  });

  it('drops running headers and page-number footers, and stops at maxPages', async () => {
    const all = await readPdf(fixture('multipage.pdf'), options());
    expect(all).toMatchObject({ numPages: 12, totalPages: 12 });
    expect(all.html).not.toContain('Trawl Fixture Handbook');
    expect(all.html).not.toMatch(/Page \d+ of 12/);
    expect(all.html.match(/<h1>Chapter \d+<\/h1>/g)).toHaveLength(12);
    const five = await readPdf(fixture('multipage.pdf'), options({ limits: { maxPages: 5, maxInflatedBytes: 1e9, maxCells: 1e6 } }));
    expect(five).toMatchObject({ numPages: 5, totalPages: 12, warnings: [] });
    expect(five.html).toContain('<h1>Chapter 5</h1>');
    expect(five.html).not.toContain('Chapter 6');
  });

  (existsSync(join(fixtures, 'rtl.pdf')) ? it : it.skip)('reads Arabic and Hebrew in logical order with dir="rtl"', async () => {
    const { html } = await readPdf(fixture('rtl.pdf'), options());
    expect(html).toContain('<p dir="rtl">مرحبا بالعالم هذا نص عربي</p>');
    expect(html).toContain('<p dir="rtl">שלום עולם זה טקסט בעברית</p>');
    expect(html).toContain('<p>English text after the right-to-left paragraphs.</p>');
  });

  it('throws DOCUMENT_ENCRYPTED for a user password, and reads an owner-password-only file', async () => {
    const err = await trawlError(readPdf(fixture('encrypted.pdf'), options()));
    expect(err.code).toBe('DOCUMENT_ENCRYPTED');
    const withPassword = await openPdf(fixture('encrypted.pdf'), { password: 'secret' });
    const page = await withPassword.getPage(1);
    const text = (await page.getTextContent()).items.map((i) => ('str' in i ? i.str : '')).join('');
    await withPassword.destroy();
    expect(text).toBe('Secret text inside');
    const owner = await readPdf(fixture('owner-only.pdf'), options());
    expect(owner.html).toContain('<p>Owner protected text</p>');
  });

  it('throws DOCUMENT_CORRUPT for a truncated file and for bytes that are not a PDF', async () => {
    for (const bytes of [fixture('truncated.pdf'), new TextEncoder().encode('hello, not a pdf'), new Uint8Array(0)]) {
      const err = await trawlError(readPdf(bytes, options()));
      expect(err.code).toBe('DOCUMENT_CORRUPT');
      expect(err.details).toEqual({ format: 'pdf' });
    }
  });

  it('throws SCRAPE_TIMEOUT past the deadline, when aborted, and between pages when time runs out', async () => {
    expect((await trawlError(readPdf(fixture('text.pdf'), options({ deadline: Date.now() - 1 })))).code).toBe('SCRAPE_TIMEOUT');
    const aborted = new AbortController();
    aborted.abort();
    expect((await trawlError(readPdf(fixture('text.pdf'), options({ signal: aborted.signal })))).code).toBe('SCRAPE_TIMEOUT');
    // A clock that advances 100 ms per reading: the deadline passes while pages are being read.
    let t = 0;
    const err = await trawlError(readPdf(fixture('multipage.pdf'), options({ deadline: 450, now: () => (t += 100) })));
    expect(err.code).toBe('SCRAPE_TIMEOUT');
    expect(err.details?.pageNumber).toBeGreaterThan(1);
  });

  it('in auto mode OCRs only the page without a text layer, in page units', async () => {
    const ocr = new FixedWordsOcr();
    const doc = await readPdf(fixture('image-page.pdf'), options({ pdfMode: 'auto', ocr, ocrLanguages: ['eng', 'deu'] }));
    expect(ocr.calls).toHaveLength(1);
    expect(ocr.calls[0]).toMatchObject({ pageNumber: 2, languages: ['eng', 'deu'] });
    // Letter at 300 dpi: 2550 x 3300 pixels.
    expect(ocr.calls[0]!.width).toBe(2550);
    expect(ocr.calls[0]!.height).toBe(3300);
    expect(doc).toMatchObject({ numPages: 2, ocrPages: 1, warnings: [] });
    expect(doc.html).toContain('<p>The first page has a text layer with enough words to read.</p>');
    // Same size as the text layer of page 1 once scaled: a paragraph, not a heading.
    expect(doc.html).toContain('<p>RECOGNIZED WORDS</p>');
  });

  it('in auto mode without an engine skips OCR with a warning', async () => {
    const doc = await readPdf(fixture('image-page.pdf'), options({ pdfMode: 'auto' }));
    expect(doc.ocrPages).toBe(0);
    expect(doc.warnings).toEqual([expect.stringMatching(/^page 2: .*no OCR engine/)]);
    expect(doc.html).not.toContain('RECOGNIZED');
  });

  it('in ocr mode OCRs every page, and needs an engine', async () => {
    const ocr = new FixedWordsOcr();
    const doc = await readPdf(fixture('image-page.pdf'), options({ pdfMode: 'ocr', ocr }));
    expect(ocr.calls.map((c) => c.pageNumber)).toEqual([1, 2]);
    expect(doc.ocrPages).toBe(2);
    const err = await trawlError(readPdf(fixture('image-page.pdf'), options({ pdfMode: 'ocr' })));
    expect(err.code).toBe('DOCUMENT_OCR_UNAVAILABLE');
  });

  it('leaves the caller\'s bytes intact', async () => {
    const bytes = fixture('text.pdf');
    const before = bytes.byteLength;
    await readPdf(bytes, options());
    expect(bytes.byteLength).toBe(before);
    expect(new TextDecoder().decode(bytes.subarray(0, 5))).toBe('%PDF-');
  });
});
