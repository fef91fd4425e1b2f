import { describe, expect, it } from '@jest/globals';
import { htmlToMarkdown } from './index.js';

const md = (html: string): string => htmlToMarkdown(html, {});

describe('block content inside links and headings', () => {
  it('writes a link around one heading as a heading holding the link', () => {
    expect(md('<a href="/p.html"><h2>Heading 2</h2></a>')).toBe('## [Heading 2](/p.html)');
    expect(md('<p>a</p><a href="/p" title="T">\n  <h3> Title <em>x</em></h3>\n</a><p>b</p>')).toBe('a\n\n### [Title *x*](/p "T")\n\nb');
  });
  it('turns headings inside a link around several blocks into strong text, never a literal #', () => {
    expect(md('<a href="/p"><h4>Heading A</h4><h3>Heading B</h3></a>')).toBe('[**Heading A Heading B**](/p)');
    expect(md('<a href="/n"><h4>Title</h4><p>Teaser text.</p></a>')).toBe('[**Title** Teaser text.](/n)');
  });
  it('drops a thematic break inside a heading or a link', () => {
    expect(md('<h4><hr>More posts</h4>')).toBe('#### More posts');
    expect(md('<h4><span>\n<hr>\nMore posts\n</span></h4>')).toBe('#### More posts');
    expect(md('<a href="/p"><p>One</p><hr><p>Two</p></a>')).toBe('[One Two](/p)');
  });
  it('drops quote markers of a blockquote inside a link', () => {
    expect(md('<a href="/l"><div><blockquote><p>A1</p><p>A2</p></blockquote></div></a>')).toBe('[A1 A2](/l)');
  });
});

describe('adjacent ordered lists', () => {
  it('writes an ordered list with `)` when the ordered list before it would otherwise renumber its items', () => {
    expect(md('<ol><li>a</li></ol><ol><li>b</li></ol>')).toBe('1. a\n\n1) b');
    expect(md('<ol start="8"><li>a</li><li>b</li></ol><!-- x --><ol start="9"><li>c</li></ol>')).toBe('8. a\n9. b\n\n9) c');
    expect(md('<div><ol><li>a</li></ol></div><div><ol><li>b</li></ol></div><ol><li>c</li></ol>')).toBe('1. a\n\n1) b\n\n1. c');
    expect(md('<div><ol><li>a</li></ol><p>  </p><ol><li>b</li></ol><p><br></p><ol><li>c</li></ol></div>')).toBe('1. a\n\n1) b\n\n1. c');
    expect(md('<ul><li>x<ol><li>a</li></ol><ol><li>b</li></ol></li></ul>')).toBe('- x\n\n  1. a\n\n  1) b');
  });
  it('keeps `.` when something stands between, the numbering continues, or the kinds differ', () => {
    expect(md('<ol><li>a</li></ol><p>x</p><ol><li>b</li></ol>')).toBe('1. a\n\nx\n\n1. b');
    expect(md('<ol><li>a</li></ol><ol start="2"><li>b</li></ol>')).toBe('1. a\n\n2. b');
    expect(md('<ul><li>a</li></ul><ol><li>b</li></ol>')).toBe('- a\n\n1. b');
    expect(md('<ul><li>a</li></ul><ul><li>b</li></ul>')).toBe('- a\n\n- b');
  });
});

describe('link destinations with line breaks in the source', () => {
  it('are written without them, so the link and the image parse', () => {
    expect(md('<p><a href="/page\n\n.html">broken link</a> <img src="/a\n.png" alt="x"></p>')).toBe('[broken link](/page.html) ![x](/a.png)');
  });
});

describe('nested lists', () => {
  it('keep the outer list tight when an item ends with a nested list', () => {
    expect(md('<ul><li>A<ul><li>x</li><li>y</li></ul></li><li>B</li></ul>')).toBe('- A\n  - x\n  - y\n- B');
    expect(md('<ol><li><a href="/a">A</a>\n<ul>\n<li>x</li>\n</ul>\n</li>\n<li>B</li></ol>')).toBe('1. [A](/a)\n   - x\n2. B');
  });
  it('keep loose items loose', () => {
    expect(md('<ul><li><p>A</p><ul><li>x</li></ul></li><li><p>B</p></li></ul>')).toBe('- A\n\n  - x\n- B');
  });
});

describe('links with nothing visible inside', () => {
  it('take their aria-label or title as text, else are dropped', () => {
    expect(md('<p><a aria-label="Homepage" title="GitHub" href="https://github.com"><svg><path d="x"/></svg></a></p>')).toBe(
      '[Homepage](https://github.com "GitHub")',
    );
    expect(md('<p>See <a title="the *docs*" href="/d"> </a>here</p>')).toBe('See [the \\*docs\\*](/d "the *docs*")here');
    expect(md('<p>x <a href="/d"></a>y</p>')).toBe('x y');
  });
});

describe('alt and label text', () => {
  it('leaves no placeholder character behind for a line-start marker', () => {
    expect(md('<p><img src="/a.png" alt="- dash"></p>')).toBe('![- dash](/a.png)');
    expect(md('<p><a href="/a" aria-label="# tag"></a></p>')).toBe('[# tag](/a)');
  });
});
