import { PDFDateString } from './pdfjs.js';

/** What pdf.js returns from getMetadata(): the Info dictionary and the parsed XMP packet. */
export interface PdfMetadataSource {
  info?: unknown;
  metadata?: { get(name: string): unknown } | null;
}

/** Metadata keys of a PDF (strings, trimmed, dates as ISO 8601). */
export interface PdfMetadata {
  title?: string;
  metadata: Record<string, string>;
}

const MAX_LENGTH = 2000;

/** A clean string from a metadata value (strings, or the first entries of an XMP bag), else undefined. */
function clean(value: unknown): string | undefined {
  const s = Array.isArray(value) ? value.filter((v) => typeof v === 'string').join(', ') : value;
  if (typeof s !== 'string') return undefined;
  // eslint-disable-next-line no-control-regex -- metadata strings carry NULs and control bytes in the wild
  const out = s.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, '').replace(/\s+/g, ' ').trim().slice(0, MAX_LENGTH);
  return out === '' ? undefined : out;
}

/** A PDF date ("D:20090401163925-07'00'", the "D:" is optional) or an XMP date -> ISO 8601, else undefined. */
export function pdfDateToIso(value: unknown): string | undefined {
  const s = clean(value);
  if (!s) return undefined;
  const pdfDate = /^D:\d{4}/.test(s) || /^\d{8,14}([Zz+'-]|$)/.test(s) ? PDFDateString.toDateObject(s.startsWith('D:') ? s : `D:${s}`) : null;
  const date = pdfDate ?? new Date(Date.parse(s));
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** Info dictionary first, XMP when the Info entry is missing or empty. */
export function pdfMetadata(source: PdfMetadataSource): PdfMetadata {
  const info = (typeof source.info === 'object' && source.info !== null ? source.info : {}) as Record<string, unknown>;
  const xmp = (name: string): unknown => {
    try {
      return source.metadata?.get(name) ?? undefined;
    } catch {
      return undefined;
    }
  };
  const metadata: Record<string, string> = {};
  const put = (key: string, value: string | undefined) => {
    if (value !== undefined) metadata[key] = value;
  };
  put('title', clean(info.Title) ?? clean(xmp('dc:title')));
  put('author', clean(info.Author) ?? clean(xmp('dc:creator')));
  put('subject', clean(info.Subject) ?? clean(xmp('dc:description')));
  put('keywords', clean(info.Keywords) ?? clean(xmp('pdf:keywords')));
  put('creator', clean(info.Creator) ?? clean(xmp('xmp:creatortool')));
  put('producer', clean(info.Producer) ?? clean(xmp('pdf:producer')));
  put('creationDate', pdfDateToIso(info.CreationDate) ?? pdfDateToIso(xmp('xmp:createdate')));
  put('modDate', pdfDateToIso(info.ModDate) ?? pdfDateToIso(xmp('xmp:modifydate')));
  put('language', clean(info.Language) ?? clean(xmp('dc:language')));
  return { title: metadata.title, metadata };
}
