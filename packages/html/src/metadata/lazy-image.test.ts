import { describe, expect, it } from '@jest/globals';
import { runHtmlPipeline } from '../pipeline.js';

const URL_ = 'https://e.com/post';
const filler = `<p>${'Some article text that makes this the main content. '.repeat(12)}</p>`;

function run(images: string) {
  const html = `<html><body><article>${filler}${images}</article></body></html>`;
  return runHtmlPipeline(html, { url: URL_, formats: { markdown: true, html: true, images: true } });
}

describe('lazy-loaded images', () => {
  it.each([
    ['data-src behind a data: URI', '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" data-src="/a.jpg">'],
    ['data-lazy-src behind a spacer', '<img src="/img/spacer.gif" data-lazy-src="/a.jpg">'],
    ['data-original without src', '<img data-original="/a.jpg">'],
    ['data-srcset behind a placeholder name', '<img src="/placeholder.png" data-srcset="/a-small.jpg 100w, /a.jpg 800w">'],
    ['the noscript twin', '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" class="lazy"><noscript><img src="/a.jpg"></noscript>'],
  ])('takes the real URL from %s, in markdown, html and images alike', (_name, tag) => {
    const r = run(tag);
    expect(r.markdown).toContain('![](https://e.com/a.jpg)');
    expect(r.markdown?.match(/!\[/g)).toHaveLength(1);
    expect(r.html).toContain('src="https://e.com/a.jpg"');
    expect(r.html).not.toContain('data:image');
    expect(r.images).toEqual(['https://e.com/a.jpg']);
  });
  it('reads a noscript twin kept as raw text (scripting-on parsers)', async () => {
    const { lazyImageSrc } = await import('./lazy-image.js');
    const { Element, Text } = await import('domhandler');
    const img = new Element('img', { src: 'data:image/gif;base64,R0' });
    const noscript = new Element('noscript', {}, [new Text('<img src="/a.jpg?w=1&amp;h=2">')]);
    img.next = noscript;
    noscript.prev = img;
    expect(lazyImageSrc(img)).toBe('/a.jpg?w=1&h=2');
  });
  it('keeps a real src and a real inline data: image without alternative', () => {
    const r = run('<img src="/real.jpg" data-src="/other.jpg">');
    expect(r.markdown).toContain('![](https://e.com/real.jpg)');
    expect(r.images).toEqual(['https://e.com/real.jpg']);
  });
});

describe('isPlaceholderSrc', () => {
  it('knows placeholder file names without taking real images for them', async () => {
    const { isPlaceholderSrc } = await import('./lazy-image.js');
    for (const src of ['', 'data:image/gif;base64,R0', '/img/spacer.gif', '/blank.gif', '/p/placeholder-image.png?v=2', '/lazyload.svg', '/1x1.gif']) {
      expect(isPlaceholderSrc(src)).toBe(true);
    }
    for (const src of ['/photo.jpg', '/x/lazy-river.jpg', '/gray-whale.jpg', '/logo-transparent.png']) expect(isPlaceholderSrc(src)).toBe(false);
  });
});
