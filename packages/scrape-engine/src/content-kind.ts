import type { ContentKind } from './fetcher.js';

/** Inputs of {@link detectContentKind}. */
export interface DetectContentKindInput {
  /** Declared MIME type without parameters, lower-cased; undefined when the server sent none. */
  mimeType?: string;
  /** The (decompressed) body; magic bytes are looked for in it. */
  bytes: Uint8Array;
}

/** The kind of a body and the MIME type to report for it. */
export interface DetectedContentKind {
  kind: ContentKind;
  /** The declared type, or one that fits the sniffed kind when none was declared. */
  mimeType: string;
}

const SNIFF_BYTES = 1024;
const XHTML_NS = 'http://www.w3.org/1999/xhtml';
// WHATWG MIME sniffing "HTML" patterns, each followed by a space or `>`.
const HTML_START = /^<(?:!doctype\s+html|html|head|script|iframe|h1|div|font|table|a|style|title|b|body|br|p|!--)[\s>]/i;
const OFFICE_MIME = /^application\/(?:msword|rtf|vnd\.ms-(?:excel|powerpoint|word)[\w.-]*|vnd\.openxmlformats-officedocument\.[\w.-]+|vnd\.oasis\.opendocument\.[\w.-]+)$/;
const DEFAULT_MIME: Record<ContentKind, string> = {
  html: 'text/html', xhtml: 'application/xhtml+xml', text: 'text/plain', json: 'application/json',
  xml: 'application/xml', pdf: 'application/pdf', document: 'application/octet-stream',
  binary: 'application/octet-stream',
};

function head(bytes: Uint8Array): string {
  return Buffer.from(bytes.subarray(0, SNIFF_BYTES)).toString('latin1');
}

/** The first 1024 bytes without BOM and leading whitespace. */
function trimmedHead(bytes: Uint8Array): string {
  return head(bytes).replace(/^(?:\xef\xbb\xbf|\xfe\xff|\xff\xfe)/, '').replace(/^[\t\n\f\r ]+/, '');
}

/** `%PDF-` in the first 1024 bytes (Acrobat accepts a prefix) and no markup before it. */
export function isPdf(bytes: Uint8Array): boolean {
  const text = head(bytes);
  const at = text.indexOf('%PDF-');
  return at !== -1 && !text.slice(0, at).includes('<');
}

function startsWith(bytes: Uint8Array, magic: readonly number[]): boolean {
  return magic.every((b, i) => bytes[i] === b);
}

function isOfficeDocument(bytes: Uint8Array): boolean {
  if (startsWith(bytes, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])) return true; // OLE2: doc, xls, ppt
  if (startsWith(bytes, [0x7b, 0x5c, 0x72, 0x74, 0x66])) return true; // {\rtf
  if (!startsWith(bytes, [0x50, 0x4b, 0x03, 0x04])) return false;
  // ZIP: entry names sit in the local headers, [Content_Types].xml usually first.
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return ['[Content_Types].xml', 'word/', 'xl/', 'ppt/', 'mimetypeapplication/vnd.oasis.opendocument']
    .some((name) => buf.includes(name, 0, 'latin1'));
}

function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, SNIFF_BYTES);
  for (let i = 0; i < n; i++) {
    const b = bytes[i] ?? 0;
    // WHATWG "binary data byte": controls other than TAB, LF, FF, CR and ESC.
    if (b <= 0x08 || b === 0x0b || (b >= 0x0e && b <= 0x1a) || (b >= 0x1c && b <= 0x1f)) return true;
  }
  return false;
}

function isXhtml(start: string): boolean {
  const root = /<html\b[^>]*>/i.exec(start);
  return root !== null && root[0].includes(XHTML_NS);
}

function looksJson(start: string): boolean {
  return /^(?:\{\s*(?:"|\})|\[)/.test(start);
}

/** Kind from the body alone, for missing, generic or wrong declared types. */
function sniffTextual(bytes: Uint8Array): ContentKind {
  const start = trimmedHead(bytes);
  if (start.startsWith('<?xml')) return isXhtml(start) ? 'xhtml' : HTML_START.test(start.replace(/^<\?xml[^>]*>\s*/, '')) ? 'html' : 'xml';
  if (HTML_START.test(start)) return 'html';
  if (looksBinary(bytes)) return 'binary';
  return looksJson(start) ? 'json' : 'text';
}

function fromDeclared(mime: string, bytes: Uint8Array): ContentKind | undefined {
  if (mime === 'text/html') return 'html';
  if (mime === 'application/xhtml+xml') return 'xhtml';
  if (mime === 'application/json' || mime === 'text/json' || mime.endsWith('+json')) return 'json';
  if (mime === 'application/xml' || mime === 'text/xml' || mime.endsWith('+xml')) {
    return isXhtml(trimmedHead(bytes)) ? 'xhtml' : 'xml';
  }
  if (mime === 'text/plain') {
    // Servers often label HTML as text/plain; JSON and the like stay text.
    const sniffed = sniffTextual(bytes);
    return sniffed === 'html' || sniffed === 'xhtml' ? sniffed : 'text';
  }
  if (mime.startsWith('text/') || mime === 'application/javascript' || mime === 'application/ecmascript') return 'text';
  if (mime === 'application/pdf' || OFFICE_MIME.test(mime)) {
    const sniffed = sniffTextual(bytes);
    // An HTML error page behind a document type is HTML; anything else goes to the document pipeline.
    if (sniffed === 'html') return 'html';
    return mime === 'application/pdf' ? 'pdf' : 'document';
  }
  if (/^(?:image|audio|video|font)\//.test(mime) || mime === 'application/zip' || mime === 'application/gzip') return 'binary';
  return undefined;
}

/**
 * Decides what a body is from its declared type and its bytes. Magic bytes win over the declared type
 * for PDF and office documents (a PDF served as text/html is a PDF); HTML is sniffed when the type is
 * missing, generic (`application/octet-stream`) or text/plain.
 */
export function detectContentKind(input: DetectContentKindInput): DetectedContentKind {
  const declared = input.mimeType?.trim().toLowerCase() || undefined;
  let kind: ContentKind;
  if (isPdf(input.bytes)) kind = 'pdf';
  else if (isOfficeDocument(input.bytes)) kind = 'document';
  else kind = (declared === undefined ? undefined : fromDeclared(declared, input.bytes)) ?? sniffTextual(input.bytes);
  return { kind, mimeType: declared ?? DEFAULT_MIME[kind] };
}
