import { describe, expect, it } from '@jest/globals';
import { gzipSync } from 'node:zlib';
import { decodeSitemapBody } from './decode-sitemap-body.js';
import { SitemapTooLargeError } from './sitemap-too-large-error.js';

const XML = '<?xml version="1.0" encoding="UTF-8"?><urlset><url><loc>https://example.com/café</loc></url></urlset>';
const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('decodeSitemapBody', () => {
  it('decodes UTF-8 and removes a BOM', () => {
    expect(decodeSitemapBody(utf8(XML), { maxBytes: 10_000 })).toBe(XML);
    expect(decodeSitemapBody(new Uint8Array([0xef, 0xbb, 0xbf, ...utf8(XML)]), { maxBytes: 10_000 })).toBe(XML);
  });

  it('gunzips whenever the gzip magic bytes are there, also twice-gzipped bodies', () => {
    const once = gzipSync(utf8(XML));
    expect(decodeSitemapBody(once, { maxBytes: 10_000 })).toBe(XML);
    expect(decodeSitemapBody(gzipSync(once), { maxBytes: 10_000 })).toBe(XML);
  });

  it('stops a decompression bomb at maxBytes', () => {
    const bomb = gzipSync(new Uint8Array(5_000_000));
    expect(bomb.length).toBeLessThan(10_000);
    expect(() => decodeSitemapBody(bomb, { maxBytes: 1_000_000 })).toThrow(SitemapTooLargeError);
    try {
      decodeSitemapBody(bomb, { maxBytes: 1_000_000 });
    } catch (err) {
      expect((err as SitemapTooLargeError).maxBytes).toBe(1_000_000);
      expect((err as SitemapTooLargeError).name).toBe('SitemapTooLargeError');
    }
  });

  it('accepts a body of exactly maxBytes and refuses one byte more', () => {
    const body = utf8('a'.repeat(1000));
    expect(decodeSitemapBody(body, { maxBytes: 1000 })).toHaveLength(1000);
    expect(decodeSitemapBody(gzipSync(body), { maxBytes: 1000 })).toHaveLength(1000);
    expect(() => decodeSitemapBody(utf8('a'.repeat(1001)), { maxBytes: 1000 })).toThrow(SitemapTooLargeError);
    expect(() => decodeSitemapBody(gzipSync(utf8('a'.repeat(1001))), { maxBytes: 1000 })).toThrow(SitemapTooLargeError);
  });

  it('returns what a truncated gzip stream holds', () => {
    const lines = Array.from({ length: 2000 }, (_, i) => `https://example.com/page/${i * 7919}`).join('\n');
    const gz = gzipSync(utf8(lines));
    const text = decodeSitemapBody(gz.subarray(0, Math.floor(gz.length / 2)), { maxBytes: 1_000_000 });
    expect(text.length).toBeGreaterThan(0);
    expect(lines.startsWith(text)).toBe(true);
  });

  it('returns an empty string for a corrupt gzip stream', () => {
    expect(decodeSitemapBody(new Uint8Array([0x1f, 0x8b, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]), { maxBytes: 1000 })).toBe('');
  });

  it('honours UTF-16 BOMs and a declared legacy encoding', () => {
    const le = new Uint8Array([0xff, 0xfe, ...Array.from('<a>é</a>').flatMap((c) => [c.charCodeAt(0), 0])]);
    expect(decodeSitemapBody(le, { maxBytes: 1000 })).toBe('<a>é</a>');
    const be = new Uint8Array([0xfe, 0xff, ...Array.from('<a>é</a>').flatMap((c) => [0, c.charCodeAt(0)])]);
    expect(decodeSitemapBody(be, { maxBytes: 1000 })).toBe('<a>é</a>');
    const latin1 = new Uint8Array([...utf8('<?xml version="1.0" encoding="ISO-8859-1"?><loc>caf'), 0xe9, ...utf8('</loc>')]);
    expect(decodeSitemapBody(latin1, { maxBytes: 1000 })).toContain('<loc>café</loc>');
    const unknown = utf8('<?xml version="1.0" encoding="x-no-such-charset"?><loc>café</loc>');
    expect(decodeSitemapBody(unknown, { maxBytes: 1000 })).toContain('<loc>café</loc>');
  });

  it('replaces invalid UTF-8 instead of throwing', () => {
    expect(decodeSitemapBody(new Uint8Array([0x61, 0xff, 0x62]), { maxBytes: 10 })).toBe('a\uFFFDb');
  });

  it('rejects a maxBytes that is not a positive integer', () => {
    expect(() => decodeSitemapBody(utf8('x'), { maxBytes: 0 })).toThrow(RangeError);
    expect(() => decodeSitemapBody(utf8('x'), { maxBytes: Number.NaN })).toThrow(RangeError);
  });
});
