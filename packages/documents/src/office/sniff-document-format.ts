import type { DocumentFormat } from '../types.js';
import { ParseGuard } from './parse-guard.js';
import { attr, streamXml } from './xml-stream.js';
import { ZipArchive } from './zip-archive.js';

/** Inputs of {@link sniffDocumentFormat}. */
export interface SniffDocumentInput {
  /** The file (the first bytes decide; a ZIP's central directory and `[Content_Types].xml` are read). */
  bytes: Uint8Array;
  /** Declared media type (Content-Type without parameters, any case). */
  mimeType?: string;
  /** File name from the URL path or Content-Disposition. */
  filename?: string;
}

/** What {@link sniffDocumentFormat} recognizes: an office format, or a legacy binary Office file (not read). */
export type SniffedDocumentFormat = Exclude<DocumentFormat, 'pdf' | 'image'> | 'legacy-office';

const OLE2_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
/** Inflating more than this to sniff means something is wrong; the reader applies the real limit. */
const SNIFF_INFLATE_BYTES = 4 * 1024 * 1024;

const CSV_MIME = /^(?:text\/(?:csv|x-csv|comma-separated-values|tab-separated-values)|application\/(?:csv|x-csv))$/;
const OOXML_BY_MIME: Record<string, 'docx' | 'xlsx' | 'pptx'> = {
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'pptx',
};
const OOXML_BY_EXTENSION: Record<string, 'docx' | 'xlsx' | 'pptx'> = {
  docx: 'docx', docm: 'docx', dotx: 'docx', xlsx: 'xlsx', xlsm: 'xlsx', xltx: 'xlsx', pptx: 'pptx', pptm: 'pptx', ppsx: 'pptx', potx: 'pptx',
};

/**
 * The office format of a file: magic bytes first (ZIP packages by their content types or ODF
 * `mimetype`, `{\rtf`, OLE2), then a declared CSV/TSV media type, then a `.csv`/`.tsv` name. PDFs and
 * images are not recognized here. An OLE2 file holding an `EncryptedPackage` stream is a
 * password-protected OOXML file: it is reported as the OOXML format its type or name claims (default
 * `docx`), whose reader then fails with DOCUMENT_ENCRYPTED; any other OLE2 file is `legacy-office`.
 */
export function sniffDocumentFormat(input: SniffDocumentInput): SniffedDocumentFormat | undefined {
  const { bytes } = input;
  const mime = input.mimeType?.split(';')[0]?.trim().toLowerCase() ?? '';
  const ext = /\.([A-Za-z0-9]{1,5})$/.exec(input.filename ?? '')?.[1]?.toLowerCase() ?? '';
  if (bytes[0] === 0x50 && bytes[1] === 0x4b && (bytes[2] === 3 || bytes[2] === 5)) return sniffZip(bytes);
  if (startsWith(bytes, OLE2_MAGIC)) {
    if (!isEncryptedOoxml(bytes)) return 'legacy-office';
    return OOXML_BY_MIME[mime] ?? OOXML_BY_EXTENSION[ext] ?? 'docx';
  }
  const rtfAt = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  if (String.fromCharCode(...bytes.subarray(rtfAt, rtfAt + 5)) === '{\\rtf') return 'rtf';
  if ((CSV_MIME.test(mime) || ext === 'csv' || ext === 'tsv') && looksLikeText(bytes)) return 'csv';
  return undefined;
}

/** True for an OLE2 compound file with an `EncryptedPackage` stream (a password-protected OOXML file). */
export function isEncryptedOoxml(bytes: Uint8Array): boolean {
  if (!startsWith(bytes, OLE2_MAGIC)) return false;
  // Directory entry names are UTF-16LE; the directory can sit anywhere, so scan the file (linear, no allocation).
  const name = 'EncryptedPackage';
  outer: for (let i = 512; i + name.length * 2 <= bytes.length; i++) {
    for (let k = 0; k < name.length; k++) {
      if (bytes[i + 2 * k] !== name.charCodeAt(k) || bytes[i + 2 * k + 1] !== 0) continue outer;
    }
    return true;
  }
  return false;
}

/** True for an OLE2 compound file (legacy .doc/.xls/.ppt, or encrypted OOXML). */
export function isOle2(bytes: Uint8Array): boolean {
  return startsWith(bytes, OLE2_MAGIC);
}

function startsWith(bytes: Uint8Array, magic: readonly number[]): boolean {
  return magic.every((b, i) => bytes[i] === b);
}

function looksLikeText(bytes: Uint8Array): boolean {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) return true;
  const n = Math.min(bytes.length, 8192);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return false;
  return true;
}

function sniffZip(bytes: Uint8Array): SniffedDocumentFormat | undefined {
  const guard = new ParseGuard({ deadline: Number.POSITIVE_INFINITY, signal: new AbortController().signal });
  let zip: ZipArchive;
  try {
    zip = ZipArchive.open(bytes, { format: 'zip', maxInflatedBytes: SNIFF_INFLATE_BYTES, guard });
  } catch {
    return undefined;
  }
  try {
    if (zip.has('mimetype')) {
      const mimetype = zip.readText('mimetype').trim();
      if (mimetype.startsWith('application/vnd.oasis.opendocument.text')) return 'odt';
      if (mimetype.startsWith('application/vnd.oasis.opendocument.spreadsheet')) return 'ods';
      if (mimetype.startsWith('application/vnd.oasis.opendocument.presentation')) return 'odp';
    }
    if (zip.has('[Content_Types].xml')) {
      let found: 'docx' | 'xlsx' | 'pptx' | undefined;
      streamXml(zip, '[Content_Types].xml', {
        open(tag) {
          const type = tag.local === 'Override' ? attr(tag, 'ContentType') : undefined;
          if (found || !type?.endsWith('.main+xml')) return;
          if (/wordprocessingml|ms-word/.test(type)) found = 'docx';
          else if (/spreadsheetml|ms-excel/.test(type) && !type.includes('binary')) found = 'xlsx';
          else if (/presentationml|ms-powerpoint/.test(type)) found = 'pptx';
        },
      }, { guard });
      if (found) return found;
    }
  } catch {
    // An unreadable part: fall back to the part names below.
  }
  if (zip.has('word/document.xml')) return 'docx';
  if (zip.has('xl/workbook.xml')) return 'xlsx';
  if (zip.has('ppt/presentation.xml')) return 'pptx';
  return undefined;
}
