import { TrawlError } from '@trawl/api-schema';
import { isPdf } from '@trawl/scrape-engine';
import { readOfficeDocument, sniffDocumentFormat } from './office/index.js';
import { readImage, sniffImageType } from './ocr/index.js';
import type { DocumentFormat, ParseDocumentOptions, ParsedDocument } from './types.js';

/** A file to parse: its bytes and what its source said about it. */
export interface DocumentInput {
  bytes: Uint8Array;
  /** Declared MIME type without parameters, when known. */
  mimeType?: string;
  /** File name (an upload's, or the URL's last path segment), when known. */
  filename?: string;
}

/**
 * The document format of a file, from its magic bytes first, then its declared type and name; `legacy`
 * for the binary Office formats (doc, xls, ppt) this server does not read; undefined for anything that
 * is not a document (HTML, text, JSON, other binaries), which the page pipeline handles.
 */
export function detectDocumentFormat(input: DocumentInput): DocumentFormat | 'legacy-office' | undefined {
  if (isPdf(input.bytes)) return 'pdf';
  if (sniffImageType(input.bytes)) return 'image';
  return sniffDocumentFormat(input);
}

/**
 * Parses a document into semantic HTML and its facts. Throws TrawlError: DOCUMENT_ENCRYPTED,
 * DOCUMENT_CORRUPT, DOCUMENT_TOO_LARGE, DOCUMENT_OCR_UNAVAILABLE, SCRAPE_TIMEOUT, or
 * SCRAPE_UNSUPPORTED_CONTENT for a file that is no document this server reads.
 */
export async function parseDocument(input: DocumentInput, options: ParseDocumentOptions): Promise<ParsedDocument> {
  const format = detectDocumentFormat(input);
  switch (format) {
    case 'pdf': {
      // pdf.js is loaded on the first PDF only: a process that merely sniffs formats never loads it.
      const { readPdf } = await import('./pdf/index.js');
      return readPdf(input.bytes, options);
    }
    case 'image':
      return readImage(input.bytes, options);
    case undefined:
      throw new TrawlError('SCRAPE_UNSUPPORTED_CONTENT', `Not a document this server can read (${input.mimeType ?? 'unknown type'})`, {
        details: { contentType: input.mimeType ?? null },
      });
    case 'legacy-office':
      throw new TrawlError('SCRAPE_UNSUPPORTED_CONTENT', 'Legacy binary Office files (.doc, .xls, .ppt) are not supported; save them as .docx, .xlsx or .pptx', {
        details: { contentType: input.mimeType ?? null, format: 'legacy-office' },
      });
    default:
      return readOfficeDocument(format, input.bytes, options);
  }
}
