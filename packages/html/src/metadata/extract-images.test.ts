import { describe, expect, it } from '@jest/globals';
import { parseDocument } from 'htmlparser2';
import { extractImages, largestSrcsetCandidate, parseSrcset } from './index.js';

describe('extractImages', () => {
  it('collects img, srcset, picture sources, posters and share images', () => {
    const html = `<head><meta property="og:image" content="/og.png"><meta name="twitter:image" content="/og.png">
      <link rel="image_src" href="/share.jpg"></head><body>
      <img src="a.png" srcset="a-1x.png 1x, a-2x.png 2x">
      <img src="data:image/gif;base64,AAAA" data-src="/lazy.png">
      <img src="data:image/png;base64,BBBB">
      <picture><source srcset="p-400.webp 400w, p-800.webp 800w" type="image/webp"><img src="p.jpg"></picture>
      <video poster="/poster.jpg"></video><img src="a.png"><img src="blob:https://ex.com/1"></body>`;
    expect(extractImages(parseDocument(html), 'https://ex.com/dir/')).toEqual([
      'https://ex.com/og.png',
      'https://ex.com/share.jpg',
      'https://ex.com/dir/a.png',
      'https://ex.com/dir/a-2x.png',
      'https://ex.com/lazy.png',
      'https://ex.com/dir/p-800.webp',
      'https://ex.com/dir/p.jpg',
      'https://ex.com/poster.jpg',
    ]);
  });
});

describe('srcset', () => {
  it('parses URLs with commas and all descriptor kinds', () => {
    expect(parseSrcset('https://cdn/x,w_100.jpg 100w, https://cdn/x,w_300.jpg 300w,plain.jpg')).toEqual([
      { url: 'https://cdn/x,w_100.jpg', width: 100 },
      { url: 'https://cdn/x,w_300.jpg', width: 300 },
      { url: 'plain.jpg', density: 1 },
    ]);
    expect(parseSrcset('a.jpg 1.5x, b.jpg')).toEqual([{ url: 'a.jpg', density: 1.5 }, { url: 'b.jpg', density: 1 }]);
  });
  it('picks the largest candidate', () => {
    expect(largestSrcsetCandidate('s.jpg 320w, l.jpg 1024w, m.jpg 640w')).toBe('l.jpg');
    expect(largestSrcsetCandidate('a.jpg, b.jpg 3x, c.jpg 2x')).toBe('b.jpg');
    expect(largestSrcsetCandidate('')).toBeUndefined();
  });
});
