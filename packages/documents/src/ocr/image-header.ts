import { TrawlError } from '@trawl/api-schema';

/** The raster formats the image reader and the OCR engine accept. */
export type ImageType = 'png' | 'jpeg' | 'gif' | 'tiff' | 'webp' | 'bmp';

/** What an image's header says, read without decoding any pixel. */
export interface ImageHeader {
  type: ImageType;
  /** Width in pixels. */
  width: number;
  /** Height in pixels. */
  height: number;
  /** TIFF only: true when the file has more than one frame (only the first is read). */
  multiFrame?: boolean;
}

/**
 * Images larger than this many pixels are refused before decoding. 100 megapixels is more than a 600 dpi
 * scan of an A3 sheet (70 megapixels); decoded as 32-bit pixels it is already 400 MB.
 */
export const DEFAULT_MAX_IMAGE_PIXELS = 100_000_000;

const startsWith = (b: Uint8Array, sig: readonly number[], at = 0): boolean =>
  b.length >= at + sig.length && sig.every((v, i) => b[at + i] === v);
const ascii = (s: string): number[] => [...s].map((c) => c.charCodeAt(0));

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const BMP_HEADER_SIZES = new Set([12, 40, 52, 56, 64, 108, 124]);

/**
 * The image type by magic bytes, or undefined. Only classic TIFF is accepted (not BigTIFF), and BMP
 * needs a known info-header size as well as `BM`: every accepted signature is one leptonica (the image
 * library of tesseract) recognizes too, which matters because tesseract reads bytes it cannot
 * recognize as a list of file names or URLs to open (see `TesseractOcrEngine`).
 */
export function sniffImageType(bytes: Uint8Array): ImageType | undefined {
  if (startsWith(bytes, PNG)) return 'png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'))) return 'gif';
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a])) return 'tiff';
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return 'webp';
  if (startsWith(bytes, ascii('BM')) && bytes.length >= 18) {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (BMP_HEADER_SIZES.has(view.getUint32(14, true))) return 'bmp';
  }
  return undefined;
}

/** Bounds-checked reads: every reader returns undefined on a truncated header instead of throwing. */
class Reader {
  private readonly view: DataView;
  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  has(at: number, len: number): boolean {
    return at >= 0 && at + len <= this.bytes.length;
  }
  u8(at: number): number | undefined {
    return this.has(at, 1) ? this.view.getUint8(at) : undefined;
  }
  u16(at: number, le: boolean): number | undefined {
    return this.has(at, 2) ? this.view.getUint16(at, le) : undefined;
  }
  u24le(at: number): number | undefined {
    return this.has(at, 3) ? this.view.getUint16(at, true) + this.view.getUint8(at + 2) * 0x10000 : undefined;
  }
  u32(at: number, le: boolean): number | undefined {
    return this.has(at, 4) ? this.view.getUint32(at, le) : undefined;
  }
  i32le(at: number): number | undefined {
    return this.has(at, 4) ? this.view.getInt32(at, true) : undefined;
  }
  tag(at: number): string {
    return this.has(at, 4) ? String.fromCharCode(...this.bytes.subarray(at, at + 4)) : '';
  }
}

type Size = { width: number; height: number; multiFrame?: boolean };
const size = (width: number | undefined, height: number | undefined): Size | undefined =>
  width === undefined || height === undefined ? undefined : { width, height };

function pngSize(r: Reader): Size | undefined {
  if (r.tag(12) !== 'IHDR') return undefined;
  return size(r.u32(16, false), r.u32(20, false));
}

// SOF markers carry the frame size; C4 (DHT), C8 (JPG) and CC (DAC) share the range but are not frames.
const JPEG_SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

function jpegSize(r: Reader): Size | undefined {
  let at = 2;
  while (r.has(at, 4)) {
    if (r.u8(at) !== 0xff) return undefined;
    const marker = r.u8(at + 1) ?? 0;
    // Fill bytes, and markers without a length (TEM, RSTn).
    if (marker === 0xff) { at += 1; continue; }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) { at += 2; continue; }
    if (marker === 0xd9 || marker === 0xda) return undefined; // EOI or scan data before any frame header
    const len = r.u16(at + 2, false) ?? 0;
    if (len < 2) return undefined;
    if (JPEG_SOF.has(marker)) return size(r.u16(at + 7, false), r.u16(at + 5, false));
    at += 2 + len;
  }
  return undefined;
}

/** GIF: the logical screen, or the first frame when that is larger (a frame may exceed the screen). */
function gifSize(r: Reader): Size | undefined {
  const screen = size(r.u16(6, true), r.u16(8, true));
  const flags = r.u8(10);
  if (!screen || flags === undefined) return undefined;
  let at = 13 + ((flags & 0x80) !== 0 ? 3 * 2 ** ((flags & 0x07) + 1) : 0);
  for (;;) {
    const block = r.u8(at);
    if (block === 0x2c) {
      const frame = size(r.u16(at + 5, true), r.u16(at + 7, true));
      if (!frame) return undefined;
      return { width: Math.max(screen.width, frame.width), height: Math.max(screen.height, frame.height) };
    }
    if (block !== 0x21) return block === 0x3b ? screen : undefined; // trailer: no frame at all
    // Extension: label, then sub-blocks until a zero length.
    at += 2;
    for (let len = r.u8(at); len !== 0; len = r.u8(at)) {
      if (len === undefined) return undefined;
      at += 1 + len;
    }
    at += 1;
  }
}

const TIFF_WIDTH = 256;
const TIFF_LENGTH = 257;

function tiffSize(r: Reader): Size | undefined {
  const le = r.u8(0) === 0x49;
  const ifd = r.u32(4, le);
  if (ifd === undefined) return undefined;
  const count = r.u16(ifd, le);
  if (count === undefined || !r.has(ifd + 2, count * 12 + 4)) return undefined;
  let width: number | undefined;
  let height: number | undefined;
  for (let i = 0; i < count; i++) {
    const entry = ifd + 2 + i * 12;
    const tag = r.u16(entry, le);
    if (tag !== TIFF_WIDTH && tag !== TIFF_LENGTH) continue;
    const type = r.u16(entry + 2, le);
    // SHORT (3) or LONG (4); the value sits in the entry itself (left-justified for a SHORT).
    const value = type === 3 ? r.u16(entry + 8, le) : type === 4 ? r.u32(entry + 8, le) : undefined;
    if (tag === TIFF_WIDTH) width = value;
    else height = value;
  }
  const found = size(width, height);
  return found && { ...found, multiFrame: (r.u32(ifd + 2 + count * 12, le) ?? 0) !== 0 };
}

function webpSize(r: Reader): Size | undefined {
  const chunk = r.tag(12);
  const data = 20;
  if (chunk === 'VP8 ') {
    // Key frame start code, then 14-bit width and height (2 bits of scaling above them).
    if (r.u8(data + 3) !== 0x9d || r.u8(data + 4) !== 0x01 || r.u8(data + 5) !== 0x2a) return undefined;
    const w = r.u16(data + 6, true);
    const h = r.u16(data + 8, true);
    return w === undefined || h === undefined ? undefined : { width: w & 0x3fff, height: h & 0x3fff };
  }
  if (chunk === 'VP8L') {
    if (r.u8(data) !== 0x2f) return undefined;
    const bits = r.u32(data + 1, true);
    return bits === undefined ? undefined : { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8X') {
    const w = r.u24le(data + 4);
    const h = r.u24le(data + 7);
    return w === undefined || h === undefined ? undefined : { width: w + 1, height: h + 1 };
  }
  return undefined;
}

function bmpSize(r: Reader): Size | undefined {
  // OS/2 BITMAPCOREHEADER has 16-bit sizes; the others 32-bit, height negative for top-down rows.
  if (r.u32(14, true) === 12) return size(r.u16(18, true), r.u16(20, true));
  const w = r.i32le(18);
  const h = r.i32le(22);
  return w === undefined || h === undefined || w < 0 ? undefined : { width: w, height: Math.abs(h) };
}

const READERS: Record<ImageType, (r: Reader) => Size | undefined> = {
  png: pngSize, jpeg: jpegSize, gif: gifSize, tiff: tiffSize, webp: webpSize, bmp: bmpSize,
};

/** The type and size of an image from its header, or undefined when the type is unknown or the header is truncated or damaged. */
export function readImageHeader(bytes: Uint8Array): ImageHeader | undefined {
  const type = sniffImageType(bytes);
  if (!type) return undefined;
  const found = READERS[type](new Reader(bytes));
  if (!found || found.width === 0 || found.height === 0) return undefined;
  return { type, ...found };
}

/**
 * Reads the header and refuses what must not reach a decoder: an unknown type or damaged header
 * (DOCUMENT_CORRUPT) or more than `maxPixels` pixels, a decompression bomb (DOCUMENT_TOO_LARGE).
 */
export function checkImage(bytes: Uint8Array, maxPixels: number = DEFAULT_MAX_IMAGE_PIXELS): ImageHeader {
  const header = readImageHeader(bytes);
  if (!header) {
    const type = sniffImageType(bytes);
    const message = type ? `The ${type.toUpperCase()} header is damaged or truncated.` : 'The file is not a PNG, JPEG, GIF, TIFF, WebP or BMP image.';
    throw new TrawlError('DOCUMENT_CORRUPT', message, { details: { format: 'image', ...(type && { imageType: type }) } });
  }
  const pixels = header.width * header.height;
  if (pixels > maxPixels) {
    throw new TrawlError('DOCUMENT_TOO_LARGE', `The image has ${header.width}x${header.height} pixels, more than the limit of ${maxPixels}.`, {
      details: { limit: 'pixels', width: header.width, height: header.height, maxPixels },
    });
  }
  return header;
}
