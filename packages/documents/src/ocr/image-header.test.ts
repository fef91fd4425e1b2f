import { describe, expect, it } from '@jest/globals';
import { TrawlError } from '@trawl/api-schema';
import { checkImage, readImageHeader, sniffImageType } from './image-header.js';

const bytes = (...parts: (number[] | string)[]): Uint8Array =>
  Uint8Array.from(parts.flatMap((p) => (typeof p === 'string' ? [...p].map((c) => c.charCodeAt(0)) : p)));
const u16be = (n: number) => [n >> 8, n & 0xff];
const u16le = (n: number) => [n & 0xff, n >> 8];
const u32be = (n: number) => [n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
const u32le = (n: number) => u32be(n).reverse();
const u24le = (n: number) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff];

const png = (w: number, h: number) =>
  bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], u32be(13), 'IHDR', u32be(w), u32be(h), [8, 2, 0, 0, 0]);

const jpeg = (w: number, h: number, sof = 0xc0) =>
  bytes(
    [0xff, 0xd8],
    [0xff, 0xe0], u16be(16), 'JFIF', [0, 1, 1, 0, 0, 1, 0, 1, 0, 0], // APP0
    [0xff, 0xff], // a fill byte before the next marker
    [0xff, 0xc4], u16be(4), [0, 0], // DHT: in the C0..CF range but not a frame
    [0xff, sof], u16be(11), [8], u16be(h), u16be(w), [1, 1, 0x11, 0],
  );

const gif = (screen: [number, number], frame: [number, number]) =>
  bytes(
    'GIF89a', u16le(screen[0]), u16le(screen[1]), [0x81, 0, 0], // global color table of 4 entries
    [0, 0, 0, 255, 255, 255, 1, 2, 3, 4, 5, 6],
    [0x21, 0xf9, 4, 0, 0, 0, 0, 0], // graphic control extension
    [0x2c], u16le(0), u16le(0), u16le(frame[0]), u16le(frame[1]), [0],
  );

const tiffLe = (w: number, h: number, nextIfd = 0) =>
  bytes(
    'II', u16le(42), u32le(8),
    u16le(3),
    u16le(256), u16le(3), u32le(1), u16le(w), [0, 0], // ImageWidth as SHORT
    u16le(257), u16le(4), u32le(1), u32le(h), // ImageLength as LONG
    u16le(259), u16le(3), u32le(1), u16le(1), [0, 0], // Compression
    u32le(nextIfd),
  );
const tiffBe = (w: number, h: number) =>
  bytes('MM', u16be(42), u32be(8), u16be(2),
    u16be(256), u16be(4), u32be(1), u32be(w),
    u16be(257), u16be(3), u32be(1), u16be(h), [0, 0],
    u32be(0));

const webp = (chunk: string, payload: number[]) => bytes('RIFF', u32le(4 + 8 + payload.length), 'WEBP', chunk, u32le(payload.length), payload);
const webpLossy = (w: number, h: number) => webp('VP8 ', [0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a, ...u16le(w), ...u16le(h)]);
const webpLossless = (w: number, h: number) => webp('VP8L', [0x2f, ...u32le((w - 1) | ((h - 1) << 14))]);
const webpExtended = (w: number, h: number) => webp('VP8X', [0x10, 0, 0, 0, ...u24le(w - 1), ...u24le(h - 1)]);

const bmp = (w: number, h: number) => bytes('BM', u32le(54), u32le(0), u32le(54), u32le(40), u32le(w), u32le(h), u16le(1), u16le(24));
const bmpCore = (w: number, h: number) => bytes('BM', u32le(26), u32le(0), u32le(26), u32le(12), u16le(w), u16le(h), u16le(1), u16le(24));

describe('sniffImageType', () => {
  it.each([
    ['png', png(1, 1)],
    ['jpeg', jpeg(1, 1)],
    ['gif', gif([1, 1], [1, 1])],
    ['tiff', tiffLe(1, 1)],
    ['tiff', tiffBe(1, 1)],
    ['webp', webpLossy(1, 1)],
    ['bmp', bmp(1, 1)],
  ])('recognizes %s', (type, data) => {
    expect(sniffImageType(data)).toBe(type);
  });

  it.each([
    ['empty', bytes()],
    ['text', bytes('/etc/passwd\n')],
    ['a URL list', bytes('http://169.254.169.254/latest\n')],
    ['PDF', bytes('%PDF-1.7\n')],
    ['BM followed by text', bytes('BM is a nice band, they play on Fridays')],
    ['BigTIFF', bytes('II', u16le(43), u16le(8), u16le(0), u32le(16), u32le(0))],
    ['RIFF without WEBP', bytes('RIFF', u32le(4), 'WAVE')],
    ['truncated PNG signature', bytes([0x89, 0x50, 0x4e, 0x47])],
  ])('refuses %s', (_name, data) => {
    expect(sniffImageType(data)).toBeUndefined();
  });
});

describe('readImageHeader', () => {
  it.each([
    ['png', png(1234, 567)],
    ['jpeg (baseline)', jpeg(1234, 567)],
    ['jpeg (progressive)', jpeg(1234, 567, 0xc2)],
    ['gif', gif([1234, 567], [10, 10])],
    ['tiff (little-endian)', tiffLe(1234, 567)],
    ['tiff (big-endian)', tiffBe(1234, 567)],
    ['webp (lossy)', webpLossy(1234, 567)],
    ['webp (lossless)', webpLossless(1234, 567)],
    ['webp (extended)', webpExtended(1234, 567)],
    ['bmp', bmp(1234, 567)],
    ['bmp (OS/2 core header)', bmpCore(1234, 567)],
  ])('reads the size of %s', (_name, data) => {
    expect(readImageHeader(data)).toMatchObject({ width: 1234, height: 567 });
  });

  it('reads a top-down BMP (negative height)', () => {
    expect(readImageHeader(bytes('BM', u32le(54), u32le(0), u32le(54), u32le(40), u32le(300), u32le(-200 >>> 0), u16le(1))))
      .toEqual({ type: 'bmp', width: 300, height: 200 });
  });

  it('takes the first GIF frame when it is larger than the logical screen', () => {
    expect(readImageHeader(gif([1, 1], [40_000, 30_000]))).toEqual({ type: 'gif', width: 40_000, height: 30_000 });
  });

  it('reads WebP extended canvases beyond 16383 pixels', () => {
    expect(readImageHeader(webpExtended(100_000, 50_000))).toMatchObject({ width: 100_000, height: 50_000 });
  });

  it('says whether a TIFF has more than one frame', () => {
    expect(readImageHeader(tiffLe(10, 10))?.multiFrame).toBe(false);
    expect(readImageHeader(tiffLe(10, 10, 200))?.multiFrame).toBe(true);
  });

  it.each([
    ['png cut in IHDR', png(10, 10).subarray(0, 20)],
    ['png without IHDR first', bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], u32be(13), 'IDAT', u32be(1), u32be(1))],
    ['jpeg without a frame header', bytes([0xff, 0xd8], [0xff, 0xe0], u16be(4), [0, 0], [0xff, 0xd9])],
    ['jpeg with scan data first', bytes([0xff, 0xd8, 0xff, 0xda], u16be(8), [1, 2, 3, 4, 5, 6])],
    ['jpeg with garbage between markers', bytes([0xff, 0xd8, 0xff, 0xe0], u16be(4), [0, 0, 0x12, 0x34])],
    ['jpeg cut in the frame header', jpeg(10, 10).subarray(0, 35)],
    ['gif cut before the first frame', gif([10, 10], [10, 10]).subarray(0, 20)],
    ['tiff whose IFD points outside the file', bytes('II', u16le(42), u32le(9999))],
    ['tiff without width', bytes('II', u16le(42), u32le(8), u16le(1), u16le(257), u16le(3), u32le(1), u16le(5), [0, 0], u32le(0))],
    ['webp lossy without start code', webp('VP8 ', [0, 0, 0, 1, 2, 3, 4, 5, 6, 7])],
    ['webp with an unknown chunk', webp('ALPH', [0, 0, 0, 0])],
    ['bmp with negative width', bytes('BM', u32le(54), u32le(0), u32le(54), u32le(40), u32le(-5 >>> 0), u32le(5))],
    ['zero-size png', png(0, 10)],
  ])('refuses %s', (_name, data) => {
    expect(readImageHeader(data)).toBeUndefined();
  });
});

describe('checkImage', () => {
  const codeOf = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      return err instanceof TrawlError ? { code: err.code, details: err.details } : err;
    }
    return undefined;
  };

  it('returns the header of an acceptable image', () => {
    expect(checkImage(png(2000, 3000))).toEqual({ type: 'png', width: 2000, height: 3000 });
  });

  it('refuses a decompression bomb by its header', () => {
    expect(codeOf(() => checkImage(png(20_000, 20_000)))).toEqual({
      code: 'DOCUMENT_TOO_LARGE',
      details: { limit: 'pixels', width: 20_000, height: 20_000, maxPixels: 100_000_000 },
    });
    expect(codeOf(() => checkImage(png(101, 100), 10_000))).toMatchObject({ code: 'DOCUMENT_TOO_LARGE' });
    expect(checkImage(png(100, 100), 10_000)).toMatchObject({ width: 100 });
  });

  it('refuses non-images and damaged headers as corrupt images', () => {
    expect(codeOf(() => checkImage(bytes('hello')))).toEqual({ code: 'DOCUMENT_CORRUPT', details: { format: 'image' } });
    expect(codeOf(() => checkImage(png(1, 1).subarray(0, 18)))).toEqual({ code: 'DOCUMENT_CORRUPT', details: { format: 'image', imageType: 'png' } });
  });
});
