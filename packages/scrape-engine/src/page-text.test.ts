import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { decodeText } from './charset.js';
import type { FetchResult } from './fetcher.js';
import { deferText, textHead, undecodedUtf8, utf8Head } from './page-text.js';

/** A fetched HTML page whose text is `text`, not decoded yet (as the HTTP engine leaves valid UTF-8). */
function deferred(text: string): FetchResult {
  const page: FetchResult = {
    requestedUrl: 'http://a.example/', url: 'http://a.example/', statusCode: 200, headers: {}, contentType: 'text/html',
    kind: 'html', redirects: [], timings: { ttfbMs: 1, totalMs: 1 },
  };
  deferText(page, Buffer.from(text, 'utf8'));
  return page;
}

// One-, two-, three- and four-byte characters (U+1F600 is a surrogate pair: two code units).
const MIXED = 'a<p>\u00e9\u00e8 \u6f22\u5b57\u304b\u306a \u{1f600}\u{1f4a9} ok</p>';

describe('utf8Head', () => {
  it('is the first code units of the whole text, wherever the prefix cuts a character', () => {
    const text = MIXED.repeat(50);
    const bytes = Buffer.from(text, 'utf8');
    for (let chars = 0; chars <= text.length + 3; chars++) expect(utf8Head(bytes, chars)).toBe(text.slice(0, chars));
  });

  it('reads further than its first guess when the text is mostly three-byte characters', () => {
    const text = '\u6f22\u5b57'.repeat(20_000);
    expect(utf8Head(Buffer.from(text, 'utf8'), 16 * 1024)).toBe(text.slice(0, 16 * 1024));
  });

  it('agrees with the whole decode on any text and length', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 300 }), fc.nat(400), (s, chars) => {
      // Valid UTF-8 only: lone surrogates become U+FFFD when encoded, as a fetched page never has them.
      const text = Buffer.from(s, 'utf8').toString('utf8');
      expect(utf8Head(Buffer.from(text, 'utf8'), chars)).toBe(text.slice(0, chars));
    }));
  });
});

describe('deferText', () => {
  it('decodes the text when it is first read, exactly as decodeText does', () => {
    const page = deferred(MIXED);
    const bytes = undecodedUtf8(page);
    expect(bytes?.toString('utf8')).toBe(MIXED);
    expect(page.text).toBe(decodeText({ bytes: bytes!, kind: 'html' }).text);
    expect(undecodedUtf8(page)).toBeUndefined();
    expect(page.text).toBe(MIXED);
  });

  it('keeps the text in copies: spread, JSON, structured clone', () => {
    expect({ ...deferred(MIXED) }.text).toBe(MIXED);
    expect((JSON.parse(JSON.stringify(deferred(MIXED))) as FetchResult).text).toBe(MIXED);
    expect(structuredClone(deferred(MIXED)).text).toBe(MIXED);
    expect(Object.keys(deferred(MIXED))).toContain('text');
  });

  it('takes an assigned text in place of its bytes, undefined too', () => {
    const page = deferred(MIXED);
    page.text = 'replaced';
    expect(page.text).toBe('replaced');
    expect(undecodedUtf8(page)).toBeUndefined();
    const dropped = deferred(MIXED);
    dropped.text = undefined;
    expect(dropped.text).toBeUndefined();
    expect(textHead(dropped, 10)).toBeUndefined();
  });

  it('textHead reads the head without decoding the page; after a read, from the text', () => {
    const text = MIXED.repeat(100);
    const page = deferred(text);
    expect(textHead(page, 100)).toBe(text.slice(0, 100));
    expect(undecodedUtf8(page)).toBeDefined();
    expect(page.text).toBe(text);
    expect(textHead(page, 100)).toBe(text.slice(0, 100));
    expect(textHead({ ...page, text: undefined }, 100)).toBeUndefined();
  });
});
