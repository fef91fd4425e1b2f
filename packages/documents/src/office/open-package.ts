import { TrawlError } from '@trawl/api-schema';
import type { ParseDocumentOptions } from '../types.js';
import { ParseGuard } from './parse-guard.js';
import { isEncryptedOoxml, isOle2 } from './sniff-document-format.js';
import { ZipArchive } from './zip-archive.js';

/**
 * Opens the ZIP package of an OOXML or ODF file with the parse's limits and guard. A password-protected
 * OOXML file is not a ZIP but an OLE2 file holding an `EncryptedPackage`: that is DOCUMENT_ENCRYPTED,
 * any other OLE2 file (a legacy .doc/.xls/.ppt under a new name) DOCUMENT_CORRUPT.
 */
export function openPackage(bytes: Uint8Array, format: string, options: ParseDocumentOptions): { zip: ZipArchive; guard: ParseGuard } {
  const guard = new ParseGuard(options);
  guard.check();
  if (isEncryptedOoxml(bytes)) {
    throw new TrawlError('DOCUMENT_ENCRYPTED', 'The document is password-protected.', { details: { format } });
  }
  if (isOle2(bytes)) {
    throw new TrawlError('DOCUMENT_CORRUPT', `The file is a legacy binary Office document, not ${format}.`, { details: { format, legacyOffice: true } });
  }
  const zip = ZipArchive.open(bytes, { format, maxInflatedBytes: options.limits.maxInflatedBytes, guard });
  return { zip, guard };
}
