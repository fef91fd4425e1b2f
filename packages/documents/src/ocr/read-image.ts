import { TrawlError } from '@trawl/api-schema';
import { abortError } from '@trawl/scrape-engine';
import { pagesToHtml } from '../layout/index.js';
import type { PageText, ParseDocumentOptions, ParsedDocument } from '../types.js';
import { checkImage } from './image-header.js';

function deadlineError(deadline: number): TrawlError {
  return new TrawlError('SCRAPE_TIMEOUT', 'The document was not read within its timeout.', { details: { deadline } });
}

/**
 * An image (PNG, JPEG, GIF, TIFF, WebP, BMP) -> a one-page document of its OCR text. The header is
 * checked before anything is decoded (DOCUMENT_CORRUPT, DOCUMENT_TOO_LARGE above 100 megapixels);
 * without `options.ocr` the result is DOCUMENT_OCR_UNAVAILABLE. A multi-frame TIFF or animated GIF
 * gives the text of its first frame (with a warning for TIFF). Recognition is cancelled at
 * `options.deadline` (SCRAPE_TIMEOUT) or when `options.signal` fires.
 */
export async function readImage(bytes: Uint8Array, options: ParseDocumentOptions): Promise<ParsedDocument> {
  const now = options.now ?? Date.now;
  if (options.signal.aborted) throw abortError(options.signal);
  const header = checkImage(bytes);
  if (!options.ocr) {
    throw new TrawlError('DOCUMENT_OCR_UNAVAILABLE', 'Reading an image needs OCR, and this deployment has no OCR engine.', {
      details: { reason: 'noEngine' },
    });
  }
  const remainingMs = options.deadline - now();
  if (remainingMs <= 0) throw deadlineError(options.deadline);

  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(deadlineError(options.deadline)), remainingMs);
  let page: PageText;
  try {
    page = await options.ocr.recognize(bytes, {
      languages: options.ocrLanguages,
      signal: AbortSignal.any([options.signal, deadline.signal]),
      pageNumber: 1,
    });
  } finally {
    clearTimeout(timer);
  }

  const warnings: string[] = [];
  if (header.multiFrame) warnings.push('The TIFF has several pages; only the first was read.');
  if (page.runs.length === 0) warnings.push('OCR found no text in the image.');
  return {
    format: 'image',
    html: pagesToHtml([page], {}),
    metadata: {},
    numPages: 1,
    totalPages: 1,
    ocrPages: 1,
    warnings,
  };
}
