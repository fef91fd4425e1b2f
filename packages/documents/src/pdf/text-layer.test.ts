import { describe, expect, it } from '@jest/globals';
import { annotationsToLinks, textItemToRun, type PdfViewport } from './text-layer.js';

/** A Letter page at scale 1: PDF user space (y up) -> top-left page units (y down). */
const viewport: PdfViewport = {
  transform: [1, 0, 0, -1, 0, 792],
  width: 612,
  height: 792,
  convertToViewportRectangle: (r) => [r[0]!, 792 - r[1]!, r[2]!, 792 - r[3]!],
};
const item = (extra: object) => ({ str: 'Hello', dir: 'ltr', transform: [12, 0, 0, 12, 72, 700], width: 30, height: 12, fontName: 'f1', ...extra });

describe('textItemToRun', () => {
  it('places horizontal text by its baseline, ascent and descent', () => {
    const run = textItemToRun(item({}), { ascent: 0.75, descent: -0.25, fontFamily: 'sans-serif' }, viewport, 'ABCDEF+Arial-BoldMT');
    expect(run).toMatchObject({ text: 'Hello', x: 72, y: 92 - 9, width: 30, height: 12, fontSize: 12, bold: true, italic: false, fontName: 'ABCDEF+Arial-BoldMT' });
  });
  it('gives rotated text the box of its rotated rectangle, and marks rtl', () => {
    const run = textItemToRun(item({ transform: [0, 12, -12, 0, 40, 100], dir: 'rtl' }), undefined, viewport);
    expect(run!.fontSize).toBeCloseTo(12);
    expect(run!.height).toBeCloseTo(30);
    expect(run!.width).toBeCloseTo(12);
    expect(run!.rtl).toBe(true);
  });
  it('skips empty and degenerate items', () => {
    expect(textItemToRun(item({ str: '' }), undefined, viewport)).toBeUndefined();
    expect(textItemToRun(item({ transform: [0, 0, 0, 0, 1, 1] }), undefined, viewport)).toBeUndefined();
    expect(textItemToRun(item({ transform: [NaN, 0, 0, 12, 1, 1] }), undefined, viewport)).toBeUndefined();
  });
});

describe('annotationsToLinks', () => {
  it('keeps link annotations with a validated URL, in top-left units', () => {
    const links = annotationsToLinks(
      [
        { subtype: 'Link', url: 'https://example.com/', rect: [72, 700, 172, 712] },
        { subtype: 'Link', unsafeUrl: 'javascript:alert(1)', rect: [0, 0, 1, 1] },
        { subtype: 'Link', dest: 'chapter-2', rect: [0, 0, 1, 1] },
        { subtype: 'Widget', url: 'https://example.com/form', rect: [0, 0, 1, 1] },
        null,
      ],
      viewport,
    );
    expect(links).toEqual([{ x: 72, y: 80, width: 100, height: 12, url: 'https://example.com/' }]);
  });
});
