import { isAscii, isUtf8, transcode } from 'node:buffer';
import type { ContentKind } from './fetcher.js';

/** Where the encoding of a body came from, in WHATWG sniffing order. */
export type CharsetSource = 'bom' | 'header' | 'meta' | 'xml-declaration' | 'detected' | 'default';

/** The encoding chosen for a body and why. */
export interface SniffedCharset {
  /** WHATWG encoding name, as `TextDecoder.encoding` reports it (`utf-8`, `shift_jis`, `gbk`...). */
  encoding: string;
  source: CharsetSource;
  /** Length of the byte order mark to skip, in bytes (0 without one). */
  bomLength: number;
}

/** Inputs of {@link sniffCharset}. */
export interface SniffCharsetInput {
  /** The body (only the first 1024 bytes are scanned for declarations). */
  bytes: Uint8Array;
  /** `charset` parameter of the Content-Type header, if any (raw label). */
  headerCharset?: string;
  /** Kind of content: decides which declarations count and the default. */
  kind: ContentKind;
}

const PRESCAN_BYTES = 1024;

/**
 * Maps any encoding label a browser accepts (`x-sjis`, `gb2312`, `latin1`, `cp1251`...) to its
 * WHATWG name, or undefined when browsers do not know it. Node's full-ICU TextDecoder implements the
 * WHATWG label table; the `replacement` encodings (iso-2022-kr, hz-gb-2312) are not decodable and
 * come back undefined.
 */
export function normalizeCharsetLabel(label: string): string | undefined {
  const trimmed = label.trim().replace(/^["']|["']$/g, '');
  if (trimmed === '') return undefined;
  try {
    return new TextDecoder(trimmed).encoding;
  } catch {
    return undefined;
  }
}

function bomOf(bytes: Uint8Array): SniffedCharset | undefined {
  const [a, b, c] = bytes;
  if (a === 0xef && b === 0xbb && c === 0xbf) return { encoding: 'utf-8', source: 'bom', bomLength: 3 };
  if (a === 0xfe && b === 0xff) return { encoding: 'utf-16be', source: 'bom', bomLength: 2 };
  if (a === 0xff && b === 0xfe) return { encoding: 'utf-16le', source: 'bom', bomLength: 2 };
  return undefined;
}

/** `charset=` inside a meta `content` value (WHATWG "extracting a character encoding from a meta element"). */
export function charsetFromContentValue(content: string): string | undefined {
  const m = /charset\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s;"']+))/i.exec(content);
  return m ? (m[1] ?? m[2] ?? m[3]) : undefined;
}

const ATTRIBUTE = /([^\s=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]*)))?/g;

function metaDeclaration(attrs: string): string | undefined {
  let httpEquiv = false;
  let content: string | undefined;
  let charset: string | undefined;
  for (const m of attrs.matchAll(ATTRIBUTE)) {
    const name = (m[1] ?? '').toLowerCase();
    const value = m[2] ?? m[3] ?? m[4] ?? '';
    if (name === 'http-equiv') httpEquiv = value.trim().toLowerCase() === 'content-type';
    else if (name === 'content' && content === undefined) content = value;
    else if (name === 'charset' && charset === undefined) charset = value;
  }
  if (charset !== undefined) return charset;
  return httpEquiv && content !== undefined ? charsetFromContentValue(content) : undefined;
}

/**
 * The WHATWG prescan of the first 1024 bytes for `<meta charset>` or
 * `<meta http-equiv="content-type" content="...; charset=">`, skipping comments. As the spec says, a
 * declared UTF-16 means UTF-8 (the bytes were readable as ASCII) and x-user-defined means windows-1252.
 */
export function prescanMetaCharset(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.subarray(0, PRESCAN_BYTES)).toString('latin1');
  const withoutComments = head.replace(/<!--[\s\S]*?(?:-->|$)/g, '');
  for (const m of withoutComments.matchAll(/<meta[\s/]([^>]*)/gi)) {
    const label = metaDeclaration(m[1] ?? '');
    if (label === undefined) continue;
    const encoding = normalizeCharsetLabel(label);
    if (encoding === undefined) continue;
    if (encoding === 'utf-16le' || encoding === 'utf-16be') return 'utf-8';
    if (encoding === 'x-user-defined') return 'windows-1252';
    return encoding;
  }
  return undefined;
}

/** `encoding="..."` of an XML declaration at the very start of the body. */
export function xmlDeclarationCharset(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.subarray(0, PRESCAN_BYTES)).toString('latin1');
  const m = /^\s*<\?xml\s[^>]*?encoding\s*=\s*["']([^"']+)["']/.exec(head);
  return m?.[1] === undefined ? undefined : normalizeCharsetLabel(m[1]);
}

function isValidUtf8WithNonAscii(bytes: Uint8Array): boolean {
  return !isAscii(bytes) && isUtf8(bytes);
}

/**
 * Chooses the encoding of a body in browser order: BOM, then the Content-Type charset, then for
 * HTML the `<meta>` prescan and for XML/XHTML the XML declaration. Undeclared HTML and text that is
 * valid UTF-8 is read as UTF-8 (the detection step the spec allows; browsers do the same), otherwise
 * as windows-1252; undeclared JSON and XML are UTF-8.
 */
export function sniffCharset(input: SniffCharsetInput): SniffedCharset {
  const bom = bomOf(input.bytes);
  if (bom) return bom;
  const fromHeader = input.headerCharset === undefined ? undefined : normalizeCharsetLabel(input.headerCharset);
  if (fromHeader !== undefined) return { encoding: fromHeader, source: 'header', bomLength: 0 };
  if (input.kind === 'json') return { encoding: 'utf-8', source: 'default', bomLength: 0 };
  if (input.kind === 'xml' || input.kind === 'xhtml') {
    const declared = xmlDeclarationCharset(input.bytes);
    if (declared !== undefined) return { encoding: declared, source: 'xml-declaration', bomLength: 0 };
    if (input.kind === 'xml') return { encoding: 'utf-8', source: 'default', bomLength: 0 };
  }
  if (input.kind === 'html' || input.kind === 'xhtml') {
    const meta = prescanMetaCharset(input.bytes);
    if (meta !== undefined) return { encoding: meta, source: 'meta', bomLength: 0 };
    if (input.kind === 'xhtml') return { encoding: 'utf-8', source: 'default', bomLength: 0 };
  }
  if (isValidUtf8WithNonAscii(input.bytes)) return { encoding: 'utf-8', source: 'detected', bomLength: 0 };
  return { encoding: 'windows-1252', source: 'default', bomLength: 0 };
}

// WHATWG windows-1252 for 0x80-0x9F; the other bytes equal their code points.
const WINDOWS_1252_HIGH = '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f'
  + '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

function decodeWindows1252(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString('latin1')
    .replace(/[\x80-\x9f]/g, (c) => WINDOWS_1252_HIGH[c.charCodeAt(0) - 0x80] ?? c);
}

/**
 * Decodes bytes in a WHATWG encoding. windows-1252 is done by hand: Node 20's TextDecoder takes a
 * latin1 fast path for it and turns 0x80-0x9F (curly quotes, dashes, the euro sign) into C1 controls.
 * Valid UTF-8 takes {@link decodeValidUtf8}.
 */
export function decodeBytes(bytes: Uint8Array, encoding: string): string {
  if (encoding === 'windows-1252') return decodeWindows1252(bytes);
  if (encoding === 'utf-8') return decodeUtf8(bytes).text;
  return decoderFor(encoding).decode(bytes);
}

/** UTF-8 bytes as text, and the bytes themselves (as a Buffer view) when they are valid UTF-8. */
function decodeUtf8(bytes: Uint8Array): { text: string; utf8?: Buffer } {
  if (!isUtf8(bytes)) return { text: decoderFor('utf-8').decode(bytes) };
  const utf8 = asBuffer(bytes);
  return { text: decodeValidUtf8(utf8), utf8 };
}

function decoderFor(encoding: string): InstanceType<typeof TextDecoder> {
  let decoder = decoders.get(encoding);
  if (!decoder) decoders.set(encoding, (decoder = new TextDecoder(encoding, { ignoreBOM: true })));
  return decoder;
}

/**
 * The text of bytes known to be valid UTF-8 (`isUtf8`), exactly as TextDecoder reads them (without
 * a BOM), at about twice its speed on Node 20, whose UTF-8 decoder builds a page of HTML at some
 * 250 MB/s: pure ASCII as a one-byte string (a copy), anything else through ICU's transcoder to
 * UTF-16 and one copy into the string (0.3 against 0.6 ms for a 150 KB corpus article; scratch
 * timing). A page's text is decoded here when its worker's event loop reads it (see `deferText`);
 * the HTML conversion threads decode the pages they get as bytes the same way (apps/worker
 * `html-thread.ts`, which does not load this package).
 */
export function decodeValidUtf8(bytes: Buffer): string {
  if (isAscii(bytes)) return bytes.toString('latin1');
  const utf16 = transcode(bytes, 'utf8', 'ucs2');
  return utf16.toString('ucs2');
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * One decoder per encoding, reused: a whole-buffer decode (no `stream`) keeps no state between
 * calls, and making a decoder cost about a seventh of decoding a 240 KB page (scratch timing).
 * Bounded by the WHATWG encodings (labels are normalized to their names before they get here).
 */
const decoders = new Map<string, InstanceType<typeof TextDecoder>>();

/**
 * Decodes a body as a browser would; see {@link sniffCharset}. Invalid sequences become U+FFFD.
 * `utf8`: the body's own bytes (after a BOM, a view, not a copy) when they are valid UTF-8, and so
 * exactly `text` encoded as UTF-8: whoever needs that (the page cache) need not encode `text` again.
 */
export function decodeText(input: SniffCharsetInput): { text: string; charset: SniffedCharset; utf8?: Buffer };
/**
 * `deferUtf8`: a body of valid UTF-8 is not decoded here: `utf8` without `text` (its text is exactly
 * those bytes decoded by {@link decodeValidUtf8}, whenever and on whatever thread someone needs it).
 */
export function decodeText(input: SniffCharsetInput, opts: { deferUtf8: true }): { text?: string; charset: SniffedCharset; utf8?: Buffer };
export function decodeText(input: SniffCharsetInput, opts: { deferUtf8?: boolean } = {}): { text?: string; charset: SniffedCharset; utf8?: Buffer } {
  const charset = sniffCharset(input);
  const bytes = input.bytes.subarray(charset.bomLength);
  if (charset.encoding !== 'utf-8') return { text: decodeBytes(bytes, charset.encoding), charset };
  if (opts.deferUtf8 === true && isUtf8(bytes)) return { charset, utf8: asBuffer(bytes) };
  return { ...decodeUtf8(bytes), charset };
}
