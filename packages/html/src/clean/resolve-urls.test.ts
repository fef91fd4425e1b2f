import { describe, expect, it } from '@jest/globals';
import render from 'dom-serializer';
import { findFirstTag } from '../dom/dom-helpers.js';
import { parseHtml } from '../dom/parse-html.js';
import { absolutize, resolveBaseUrl, resolveUrls } from './resolve-urls.js';

function resolved(html: string, url = 'https://example.com/dir/page.html'): string {
  const doc = parseHtml(html);
  resolveUrls(doc, resolveBaseUrl(doc, url));
  // The body's content: the parser implies html, head and body around a fragment.
  return render(findFirstTag(doc, 'body')?.children ?? [], { encodeEntities: 'utf8' });
}

describe('resolveUrls', () => {
  it('makes href, src, poster and action absolute', () => {
    expect(resolved('<a href="../x">x</a>')).toBe('<a href="https://example.com/x">x</a>');
    expect(resolved('<img src="i.png">')).toBe('<img src="https://example.com/dir/i.png">');
    expect(resolved('<video poster="/p.jpg" src="v.mp4"></video>')).toBe(
      '<video poster="https://example.com/p.jpg" src="https://example.com/dir/v.mp4"></video>',
    );
    expect(resolved('<form action="send"></form>')).toBe('<form action="https://example.com/dir/send"></form>');
  });

  it('respects <base href>, itself relative to the page', () => {
    expect(resolved('<head><base href="/root/"></head><a href="x">x</a>')).toContain('href="https://example.com/root/x"');
  });

  it('leaves javascript:, mailto: and data: URLs and unparsable values alone', () => {
    expect(resolved('<a href="javascript:void(0)">j</a>')).toContain('href="javascript:void(0)"');
    expect(resolved('<a href="mailto:a@b.c">m</a>')).toContain('href="mailto:a@b.c"');
    expect(resolved('<a href="http://[bad">b</a>')).toContain('href="http://[bad"');
  });

  it('resolves srcset to the largest w candidate, else the largest density', () => {
    expect(resolved('<img src="s.jpg" srcset="a.jpg 300w, b.jpg 1200w, c.jpg 800w" sizes="50vw">')).toBe(
      '<img src="https://example.com/dir/b.jpg">',
    );
    expect(resolved('<img srcset="a.jpg, b.jpg 2x, c.jpg 1.5x">')).toBe('<img src="https://example.com/dir/b.jpg">');
    expect(resolved('<img srcset="https://cdn.example.com/w_100,h_50/a.jpg 100w, https://cdn.example.com/w_900,h_450/a.jpg 900w">')).toBe(
      '<img src="https://cdn.example.com/w_900,h_450/a.jpg">',
    );
  });

  it('resolves <source srcset> inside <picture> to one absolute URL', () => {
    expect(resolved('<picture><source srcset="a.webp 1x, b.webp 2x"></picture>')).toBe(
      '<picture><source srcset="https://example.com/dir/b.webp"></picture>',
    );
  });

  it('takes lazy-loaded data-src when src is a placeholder', () => {
    expect(resolved('<img src="data:image/gif;base64,R0lGOD" data-src="/real.jpg">')).toContain('src="https://example.com/real.jpg"');
  });

  it('drops iframe srcdoc', () => {
    expect(resolved('<iframe src="/embed" srcdoc="<script>x</script>"></iframe>')).toBe('<iframe src="https://example.com/embed"></iframe>');
  });
});

describe('absolutize', () => {
  it('returns null for empty and non-navigational schemes', () => {
    expect(absolutize('', 'https://e.com/')).toBeNull();
    expect(absolutize('data:image/png;base64,AA', 'https://e.com/')).toBeNull();
    expect(absolutize('/a', 'https://e.com/b')).toBe('https://e.com/a');
  });
});
