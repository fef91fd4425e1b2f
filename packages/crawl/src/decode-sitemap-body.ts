import { constants, gunzipSync } from 'node:zlib';
import { SitemapTooLargeError } from './sitemap-too-large-error.js';

/** Options of {@link decodeSitemapBody}. */
export interface DecodeSitemapBodyOptions {
  /** Largest body accepted, compressed and decompressed, in bytes. A positive integer. */
  maxBytes: number;
}

/** gzip layers undone at most: a `.xml.gz` served with `Content-Encoding: gzip` arrives gzipped twice. */
const MAX_GZIP_LAYERS = 2;

/**
 * Turns the bytes of a sitemap response into text. Bytes starting with the gzip magic number are
 * gunzipped whatever the Content-Type said (servers label `.xml.gz` every way), with the output capped
 * at `maxBytes` so a decompression bomb stops at the cap instead of filling memory. A truncated gzip
 * stream (a download cut short) yields what it holds; a corrupt one yields '' (parseSitemap then finds
 * nothing). Text is UTF-8 unless a BOM (UTF-8, UTF-16) or the XML declaration's `encoding` says
 * otherwise; a UTF-8 BOM is removed.
 * @throws SitemapTooLargeError when the body, compressed or not, is larger than `maxBytes`.
 * @throws RangeError when `maxBytes` is not a positive integer.
 */
export function decodeSitemapBody(bytes: Uint8Array, opts: DecodeSitemapBodyOptions): string {
  const { maxBytes } = opts;
  if (!Number.isSafeInteger(maxBytes) || maxBytes <= 0) throw new RangeError(`maxBytes must be a positive integer, got ${maxBytes}`);
  if (bytes.byteLength > maxBytes) throw new SitemapTooLargeError(maxBytes);
  let data = bytes;
  for (let layer = 0; layer < MAX_GZIP_LAYERS && isGzip(data); layer++) {
    const inflated = gunzip(data, maxBytes);
    if (inflated === null) return '';
    data = inflated;
  }
  return decodeText(data);
}

function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/** Gunzipped bytes, or null when the stream is corrupt. */
function gunzip(bytes: Uint8Array, maxBytes: number): Uint8Array | null {
  try {
    // Z_SYNC_FLUSH: a truncated stream returns what was inflated instead of throwing.
    return gunzipSync(bytes, { maxOutputLength: maxBytes, finishFlush: constants.Z_SYNC_FLUSH });
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') throw new SitemapTooLargeError(maxBytes, { cause: err });
    return null;
  }
}

function decodeText(bytes: Uint8Array): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return new TextDecoder('utf-8').decode(bytes);
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes);
  const label = declaredEncoding(bytes);
  if (label !== null && !/^utf-?8$/i.test(label)) {
    try {
      return new TextDecoder(label).decode(bytes);
    } catch {
      // Unknown label: RangeError from TextDecoder. Sitemaps are UTF-8 by the protocol; fall through.
    }
  }
  return new TextDecoder('utf-8').decode(bytes);
}

/** `encoding` of an XML declaration at the very start, read as ASCII. */
function declaredEncoding(bytes: Uint8Array): string | null {
  const head = String.fromCharCode(...bytes.subarray(0, 200));
  const match = /^\s*<\?xml[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head);
  return match?.[1] ?? null;
}
