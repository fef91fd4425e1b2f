import { TrawlError } from '@trawl/api-schema';
import type { DocumentFormat, ParseDocumentOptions, ParsedDocument } from '../types.js';
import { readCsv } from './csv-reader.js';
import { readDocx } from './docx-reader.js';
import { readOdf } from './odf-reader.js';
import { readPptx } from './pptx-reader.js';
import { readRtf } from './rtf-reader.js';
import { readXlsx } from './xlsx-reader.js';

/** The formats {@link readOfficeDocument} reads. */
export type OfficeFormat = Exclude<DocumentFormat, 'pdf' | 'image'>;

/** True for the formats this folder reads (everything but PDF and images). */
export function isOfficeFormat(format: DocumentFormat): format is OfficeFormat {
  return format !== 'pdf' && format !== 'image';
}

/**
 * Reads an office or text document (DOCX, XLSX, PPTX, ODT, ODS, ODP, RTF, CSV/TSV) into semantic
 * HTML. Throws DOCUMENT_CORRUPT, DOCUMENT_ENCRYPTED, DOCUMENT_TOO_LARGE or SCRAPE_TIMEOUT; PDF and
 * image formats are refused (other readers handle them).
 */
export async function readOfficeDocument(format: DocumentFormat, bytes: Uint8Array, options: ParseDocumentOptions): Promise<ParsedDocument> {
  switch (format) {
    case 'docx': return readDocx(bytes, options);
    case 'xlsx': return readXlsx(bytes, options);
    case 'pptx': return readPptx(bytes, options);
    case 'odt': case 'ods': case 'odp': return readOdf(format, bytes, options);
    case 'rtf': return readRtf(bytes, options);
    case 'csv': return readCsv(bytes, options);
    case 'pdf': case 'image':
      throw new TrawlError('SCRAPE_UNSUPPORTED_CONTENT', `The office reader does not read ${format} files.`, { details: { format } });
  }
}
