import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { decodeText, normalizeCharsetLabel, prescanMetaCharset, sniffCharset } from './charset.js';

// Byte strings produced by Python's codecs (an encoder independent of ICU) from the text beside them.
const SAMPLES: ReadonlyArray<[label: string, expected: string, text: string, hex: string]> = [
  ['Shift_JIS', 'shift_jis', '日本語のテキスト', '93fa967b8cea82cc8365834c83588367'],
  ['x-sjis', 'shift_jis', '日本語のテキスト', '93fa967b8cea82cc8365834c83588367'],
  ['EUC-JP', 'euc-jp', '日本語のテキスト', 'c6fccbdcb8eca4cea5c6a5ada5b9a5c8'],
  ['GBK', 'gbk', '中文网页', 'd6d0cec4cdf8d2b3'],
  ['gb2312', 'gbk', '中文网页', 'd6d0cec4cdf8d2b3'],
  ['GB18030', 'gb18030', '中文\u0080😀', 'd6d0cec4813081309439fc36'],
  ['Big5', 'big5', '繁體中文', 'c163c5e9a4a4a4e5'],
  ['EUC-KR', 'euc-kr', '한국어 페이지', 'c7d1b1b9beee20c6e4c0ccc1f6'],
  ['windows-1251', 'windows-1251', 'Привет, мир', 'cff0e8e2e5f22c20ece8f0'],
  ['cp1251', 'windows-1251', 'Привет, мир', 'cff0e8e2e5f22c20ece8f0'],
  ['KOI8-R', 'koi8-r', 'Привет, мир', 'f0d2c9d7c5d42c20cdc9d2'],
  ['ISO-8859-2', 'iso-8859-2', 'Zażółć gęślą jaźń', '5a61bff3b3e62067eab66cb1206a61bcf1'],
  ['latin1', 'windows-1252', 'café – “quoted” €', '636166e92096209371756f746564942080'],
  ['iso-8859-1', 'windows-1252', 'café – “quoted” €', '636166e92096209371756f746564942080'],
];

function html(head: string, bodyHex: string): Buffer {
  return Buffer.concat([Buffer.from(`<html><head>${head}</head><body>`, 'latin1'), Buffer.from(bodyHex, 'hex'),
    Buffer.from('</body></html>', 'latin1')]);
}

describe('normalizeCharsetLabel', () => {
  it.each(SAMPLES.map(([label, expected]) => [label, expected]))('%s -> %s', (label, expected) => {
    expect(normalizeCharsetLabel(label)).toBe(expected);
  });
  it('accepts quotes and case, refuses unknown and replacement labels', () => {
    expect(normalizeCharsetLabel(' "UTF-8" ')).toBe('utf-8');
    expect(normalizeCharsetLabel('unicode-1-1-utf-8')).toBe('utf-8');
    expect(normalizeCharsetLabel('no-such-charset')).toBeUndefined();
    expect(normalizeCharsetLabel('iso-2022-kr')).toBeUndefined();
    expect(normalizeCharsetLabel('')).toBeUndefined();
  });
});

describe('decodeText', () => {
  it.each(SAMPLES)('decodes %s from the HTTP header', (label, expected, text, hex) => {
    const out = decodeText({ bytes: html('', hex), headerCharset: label, kind: 'html' });
    expect(out.charset).toEqual({ encoding: expected, source: 'header', bomLength: 0 });
    expect(out.text).toBe(`<html><head></head><body>${text}</body></html>`);
  });

  it.each(SAMPLES)('decodes %s from <meta charset>', (label, expected, text, hex) => {
    const out = decodeText({ bytes: html(`<meta charset="${label}">`, hex), kind: 'html' });
    expect(out.charset.source).toBe('meta');
    expect(out.charset.encoding).toBe(expected);
    expect(out.text).toContain(`<body>${text}</body>`);
  });

  it.each(SAMPLES)('decodes %s from <meta http-equiv>', (label, expected, text, hex) => {
    const meta = `<META HTTP-EQUIV='Content-Type' CONTENT='text/html; charset=${label}'>`;
    const out = decodeText({ bytes: html(meta, hex), kind: 'html' });
    expect(out.charset.encoding).toBe(expected);
    expect(out.text).toContain(`<body>${text}</body>`);
  });

  it('lets the BOM win over the header and the header over the meta tag', () => {
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<meta charset="gbk">é', 'utf8')]);
    const viaBom = decodeText({ bytes: bom, headerCharset: 'windows-1251', kind: 'html' });
    expect(viaBom.charset.source).toBe('bom');
    expect(viaBom.text).toBe('<meta charset="gbk">é');
    const viaHeader = decodeText({ bytes: html('<meta charset="shift_jis">', 'cff0e8e2e5f2'), headerCharset: 'cp1251', kind: 'html' });
    expect(viaHeader.text).toContain('Привет');
  });

  it('keeps the bytes of a valid UTF-8 body as `text` encoded (after its BOM), and none for an invalid or other body', () => {
    const body = Buffer.from('<p>héllo ✓ 日本 😀</p>', 'utf8');
    const plain = decodeText({ bytes: body, headerCharset: 'utf-8', kind: 'html' });
    expect(plain.utf8?.equals(Buffer.from(plain.text, 'utf8'))).toBe(true);
    expect(plain.utf8?.buffer).toBe(body.buffer); // a view, not a copy
    const withBom = decodeText({ bytes: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]), kind: 'html' });
    expect(withBom.utf8?.equals(body)).toBe(true);
    // A truncated 4-byte sequence: one U+FFFD, three bytes as the input's three.
    const invalid = decodeText({ bytes: Buffer.concat([body, Buffer.from([0xf0, 0x9f, 0x98])]), headerCharset: 'utf-8', kind: 'html' });
    expect(invalid.text.endsWith('\ufffd')).toBe(true);
    expect(invalid.utf8).toBeUndefined();
    expect(decodeText({ bytes: Buffer.from('<p>caf\xe9</p>', 'latin1'), headerCharset: 'windows-1252', kind: 'html' }).utf8).toBeUndefined();
  });

  it('decodes UTF-8 bodies exactly as TextDecoder does, valid or not, ASCII or not, with or without a BOM', () => {
    // The fast path for valid UTF-8 (ICU's transcoder, latin1 for ASCII) against the WHATWG decoder.
    const reference = new TextDecoder('utf-8');
    const piece = fc.oneof(
      fc.string({ unit: 'grapheme-ascii' }).map((t) => Buffer.from(t, 'utf8')),
      fc.string({ unit: 'binary' }).map((t) => Buffer.from(t, 'utf8')), // any code point, lone surrogates as U+FFFD
      fc.uint8Array({ maxLength: 6 }).map((b) => Buffer.from(b)), // stray and truncated sequences
      fc.constant(Buffer.from([0xef, 0xbb, 0xbf])),
    );
    fc.assert(fc.property(fc.array(piece, { maxLength: 8 }), fc.boolean(), (pieces, declared) => {
      const bytes = Buffer.concat(pieces);
      const out = decodeText({ bytes, kind: 'html', ...(declared ? { headerCharset: 'utf-8' } : {}) });
      if (out.charset.encoding !== 'utf-8') return; // undeclared and not UTF-8: windows-1252, tested above
      expect(out.text).toBe(reference.decode(bytes));
      if (out.utf8) expect(Buffer.from(out.text, 'utf8').equals(out.utf8)).toBe(true);
    }), { numRuns: 3000, seed: 20261128 });
  });

  it('decodes UTF-16 with a BOM', () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<p>日本</p>', 'utf16le')]);
    expect(decodeText({ bytes, kind: 'html' })).toEqual({
      text: '<p>日本</p>', charset: { encoding: 'utf-16le', source: 'bom', bomLength: 2 },
    });
  });

  it('ignores a meta tag inside a comment and after the first 1024 bytes', () => {
    const commented = html('<!-- <meta charset="shift_jis"> -->', 'e9');
    expect(sniffCharset({ bytes: commented, kind: 'html' }).encoding).toBe('windows-1252');
    const late = html(`${' '.repeat(1100)}<meta charset="windows-1251">`, 'e9');
    expect(sniffCharset({ bytes: late, kind: 'html' })).toEqual({ encoding: 'windows-1252', source: 'default', bomLength: 0 });
  });

  it('reads a declared UTF-16 in a meta tag as UTF-8, per the spec', () => {
    expect(prescanMetaCharset(Buffer.from('<meta charset="utf-16">'))).toBe('utf-8');
  });

  it('uses UTF-8 for undeclared HTML that is valid UTF-8, windows-1252 otherwise', () => {
    expect(decodeText({ bytes: Buffer.from('<p>naïve 日本</p>'), kind: 'html' }).charset.source).toBe('detected');
    expect(decodeText({ bytes: Buffer.from('<p>na\xefve</p>', 'latin1'), kind: 'html' }).text).toBe('<p>naïve</p>');
  });

  it('uses the XML declaration for XML, UTF-8 by default', () => {
    const xml = Buffer.concat([Buffer.from('<?xml version="1.0" encoding="Shift_JIS"?><a>'), Buffer.from('93fa967b', 'hex'), Buffer.from('</a>')]);
    expect(decodeText({ bytes: xml, kind: 'xml' }).text).toBe('<?xml version="1.0" encoding="Shift_JIS"?><a>日本</a>');
    expect(sniffCharset({ bytes: Buffer.from('<a/>'), kind: 'xml' }).encoding).toBe('utf-8');
  });

  it('reads JSON as UTF-8 unless the header says otherwise', () => {
    expect(decodeText({ bytes: Buffer.from('{"a":"é"}'), kind: 'json' }).text).toBe('{"a":"é"}');
    expect(sniffCharset({ bytes: Buffer.from('{}'), kind: 'json', headerCharset: 'windows-1251' }).encoding).toBe('windows-1251');
  });

  it('falls back when the header names an unknown charset', () => {
    const out = decodeText({ bytes: html('<meta charset="koi8-r">', 'f0d2c9d7c5d4'), headerCharset: 'bogus', kind: 'html' });
    expect(out.text).toContain('Привет');
  });
});
