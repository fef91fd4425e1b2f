import { TrawlError } from '@trawl/api-schema';
import { pagesToHtml } from '../layout/index.js';
import type { PageText, ParsedDocument, ParseDocumentOptions, TextRun } from '../types.js';
import { pdfMetadata } from './pdf-metadata.js';
import { checkPdfStreams } from './stream-budget.js';
import { openPdf, type PdfDocument, type PdfPage } from './pdfjs.js';
import { pageHasGraphics, renderPageToPng } from './render-page.js';
import { annotationsToLinks, textItemToRun, type PdfTextItem, type PdfTextStyle, type PdfViewport } from './text-layer.js';

/** A page with fewer visible characters than this counts as "no text" for `auto` mode. */
const MIN_TEXT_CHARS = 16;

/** Throws when the parse is past its deadline or aborted: checked before each page. */
function checkBudget(options: ParseDocumentOptions, pageNumber: number): void {
  const now = options.now ?? Date.now;
  if (options.signal.aborted) {
    if (options.signal.reason instanceof TrawlError) throw options.signal.reason;
    throw new TrawlError('SCRAPE_TIMEOUT', 'The PDF parse was aborted.', { details: { format: 'pdf', pageNumber } });
  }
  if (now() >= options.deadline) {
    throw new TrawlError('SCRAPE_TIMEOUT', 'The PDF parse did not finish within its timeout.', { details: { format: 'pdf', pageNumber } });
  }
}

/** The font name pdf.js loaded for an item, when an operator list already sent it (commonObjs). */
function loadedFontName(page: PdfPage, loadedName: string): string | undefined {
  try {
    if (!page.commonObjs.has(loadedName)) return undefined;
    const font = page.commonObjs.get(loadedName) as { name?: unknown } | null;
    return typeof font?.name === 'string' ? font.name : undefined;
  } catch {
    return undefined;
  }
}

/** The text layer of one page: runs and links in top-left page units. */
async function readTextLayer(page: PdfPage, pageNumber: number): Promise<PageText> {
  const viewport = page.getViewport({ scale: 1 }) as unknown as PdfViewport;
  const content = await page.getTextContent();
  const styles = content.styles as Record<string, PdfTextStyle>;
  const runs: TextRun[] = [];
  // Looked up once per font of the page, not once per item.
  const fontNames = new Map<string, string | undefined>();
  for (const raw of content.items) {
    if (!('str' in raw)) continue;
    const item = raw as unknown as PdfTextItem;
    let name = fontNames.get(item.fontName);
    if (name === undefined && !fontNames.has(item.fontName)) fontNames.set(item.fontName, (name = loadedFontName(page, item.fontName)));
    const run = textItemToRun(item, styles[item.fontName], viewport, name);
    if (run) runs.push(run);
  }
  const links = annotationsToLinks(await page.getAnnotations({ intent: 'display' }), viewport);
  return { pageNumber, width: viewport.width, height: viewport.height, runs, links, source: 'text-layer' };
}

const visibleChars = (page: PageText): number => page.runs.reduce((n, r) => n + r.text.replace(/\s/g, '').length, 0);

/** Renders a page, OCRs it, and scales the engine's pixel units back to page units. */
async function ocrPage(doc: PdfDocument, page: PdfPage, textLayer: PageText, options: ParseDocumentOptions): Promise<PageText> {
  const engine = options.ocr!;
  const { png, scale } = await renderPageToPng(doc, page);
  const remaining = Math.max(0, options.deadline - (options.now ?? Date.now)());
  const signal = AbortSignal.any([options.signal, AbortSignal.timeout(remaining)]);
  const ocr = await engine.recognize(png, { languages: options.ocrLanguages, signal, pageNumber: textLayer.pageNumber });
  const sx = ocr.width > 0 ? textLayer.width / ocr.width : 1 / scale;
  const sy = ocr.height > 0 ? textLayer.height / ocr.height : 1 / scale;
  const runs = ocr.runs.map((r) => ({ ...r, x: r.x * sx, y: r.y * sy, width: r.width * sx, height: r.height * sy, fontSize: r.fontSize * sy }));
  return { ...textLayer, runs, source: 'ocr' };
}

/** Reads one page per the mode; OCR failures other than the deadline become warnings. */
async function readPage(doc: PdfDocument, pageNumber: number, options: ParseDocumentOptions, warnings: string[]): Promise<PageText> {
  const page = await doc.getPage(pageNumber);
  try {
    const textLayer = await readTextLayer(page, pageNumber);
    const wantsOcr = options.pdfMode === 'ocr' || (options.pdfMode === 'auto' && visibleChars(textLayer) < MIN_TEXT_CHARS && (await pageHasGraphics(page)));
    if (!wantsOcr) return textLayer;
    if (!options.ocr) {
      warnings.push(`page ${pageNumber}: no text layer and no OCR engine; page left without text`);
      return textLayer;
    }
    try {
      return await ocrPage(doc, page, textLayer, options);
    } catch (err) {
      checkBudget(options, pageNumber);
      warnings.push(`page ${pageNumber}: OCR failed (${err instanceof Error ? err.message : String(err)})`);
      return textLayer;
    }
  } finally {
    page.cleanup();
  }
}

/**
 * Reads a PDF into semantic HTML: the text layer of each page (`fast`), plus OCR of pages that have
 * no text but draw images or outlines (`auto`), or OCR of every page (`ocr`); then the shared layout
 * step. Reads at most `limits.maxPages` pages (more is not an error: `numPages` < `totalPages`).
 *
 * Throws TrawlError: DOCUMENT_ENCRYPTED (password needed), DOCUMENT_CORRUPT (not a readable PDF, or
 * no page readable), DOCUMENT_OCR_UNAVAILABLE (`ocr` mode without an engine), SCRAPE_TIMEOUT (deadline
 * passed or signal aborted, checked before each page).
 */
export async function readPdf(bytes: Uint8Array, options: ParseDocumentOptions): Promise<ParsedDocument> {
  if (options.pdfMode === 'ocr' && !options.ocr) {
    throw new TrawlError('DOCUMENT_OCR_UNAVAILABLE', 'OCR mode needs an OCR engine and this deployment has none.', { details: { format: 'pdf', reason: 'no-engine' } });
  }
  checkBudget(options, 0);
  await checkPdfStreams(bytes, { perStream: options.limits.maxInflatedBytes, total: 4 * options.limits.maxInflatedBytes }, () => checkBudget(options, 0));
  const doc = await openPdf(bytes);
  try {
    const totalPages = doc.numPages;
    const numPages = Math.max(0, Math.min(totalPages, Math.floor(options.limits.maxPages)));
    const { title, metadata } = pdfMetadata(await doc.getMetadata().catch(() => ({})));
    const warnings: string[] = [];
    const pages: PageText[] = [];
    let failed = 0;
    for (let n = 1; n <= numPages; n++) {
      checkBudget(options, n);
      try {
        pages.push(await readPage(doc, n, options, warnings));
      } catch (err) {
        if (err instanceof TrawlError) throw err;
        failed++;
        warnings.push(`page ${n}: unreadable (${err instanceof Error ? err.message : String(err)})`);
      }
    }
    if (numPages > 0 && failed === numPages) {
      throw new TrawlError('DOCUMENT_CORRUPT', 'No page of the PDF could be read.', { details: { format: 'pdf' } });
    }
    const ocrPages = pages.filter((p) => p.source === 'ocr').length;
    // One page laid out alone keeps its running header and footer: furniture is recognized across pages.
    const perPage = options.perPage === true ? { pages: pages.map((p) => ({ pageNumber: p.pageNumber, html: pagesToHtml([p]) })) } : {};
    return { format: 'pdf', html: pagesToHtml(pages, { title }), title, metadata, numPages, totalPages, ocrPages, warnings, ...perPage };
  } finally {
    await doc.destroy();
  }
}
