import { describe, expect, it } from '@jest/globals';
import render from 'dom-serializer';
import { parseHtml } from '../dom/parse-html.js';
import { cleanHtml } from './clean-html.js';
import { BASE64_IMAGE_PLACEHOLDER, removeBase64Images } from './remove-base64-images.js';
import { excludeTags, includeTags } from './select-tags.js';

const clean = (html: string): string => render(cleanHtml(parseHtml(html), { baseUrl: 'https://e.com/a/' }).children, { encodeEntities: 'utf8' }).trim();

describe('cleanHtml', () => {
  it('removes head, script, style, noscript, meta, link, template and comments', () => {
    const out = clean(`<html><head><title>T</title><meta name="x" content="y"><link rel="stylesheet" href="s.css"></head>
      <body><script>alert(1)</script><style>p{}</style><noscript><p>no js</p></noscript><template><p>t</p></template>
      <!-- note --><p>Text</p><meta itemprop="x" content="y"></body></html>`);
    expect(out).toBe('<p>Text</p>');
  });

  it('keeps iframes (embedded media) with an absolute src, and drops inline event handlers', () => {
    expect(clean('<body><iframe src="/v/1"></iframe><p onclick="x()">a</p></body>')).toBe(
      '<iframe src="https://e.com/v/1"></iframe><p>a</p>',
    );
  });

  it('drops event handlers wherever the parser put them: copies of formatting elements, merged html/body, svg', () => {
    // Reconstructed formatting element (second paragraph) and the adoption agency's copy (inside the div).
    expect(clean('<body><p><b onclick="x()">a<p>b</p>')).toBe('<p><b>a</b></p><p><b>b</b></p>');
    expect(clean('<body><b onmouseover="x()" class="k"><div>c</b>d</div>')).toBe('<b class="k"></b><div><b class="k">c</b>d</div>');
    // A repeated <body>/<html> start tag adds its attributes to the first one.
    const doc = parseHtml('<html><body><p>e</p><body onload="x()" id="b"><html onscroll="y()" lang="en">');
    cleanHtml(doc, { baseUrl: 'https://e.com/' });
    const html = doc.children.find((n) => n.type === 'tag') as unknown as { attribs: Record<string, string>; children: { type: string; name: string; attribs: Record<string, string> }[] };
    expect(html.attribs).toEqual({ lang: 'en' });
    expect(html.children.find((n) => n.name === 'body')?.attribs).toEqual({ id: 'b' });
    expect(clean('<body><svg onload="x()" viewBox="0 0 1 1"><circle onclick="y()" r="1"/></svg>')).toBe(
      '<svg viewBox="0 0 1 1"><circle r="1"/></svg>',
    );
    // A page the fast builder hands to parse5 (MathML) is cleaned by the full walk.
    expect(clean('<body><math><mi onclick="x()">m</mi></math><p onclick="y()">f</p>')).toBe('<math><mi>m</mi></math><p>f</p>');
  });

  it('writes a lazy image\'s real URL into an <img> that had no attributes', () => {
    expect(clean('<body><img><noscript><img src="/real.jpg"></noscript></body>')).toBe('<img src="https://e.com/real.jpg">');
  });

  it('returns the document when there is no body element', () => {
    expect(clean('<p>fragment</p>')).toBe('<p>fragment</p>');
  });
});

describe('includeTags / excludeTags', () => {
  const page = '<body><div id="a"><p class="x">one</p></div><article><p class="x">two</p><span data-k="v">three</span></article></body>';

  it('keeps only matching elements, in document order, once', () => {
    const r = includeTags(parseHtml(page), ['span[data-k]', '.x', 'article']);
    expect(render(r.root, { encodeEntities: 'utf8' })).toBe('<p class="x">one</p><article><p class="x">two</p><span data-k="v">three</span></article>');
    expect(r.invalidSelectors).toEqual([]);
  });

  it('supports #id and yields an empty document when nothing matches', () => {
    expect(render(includeTags(parseHtml(page), ['#a']).root)).toBe('<div id="a"><p class="x">one</p></div>');
    expect(render(includeTags(parseHtml(page), ['table']).root)).toBe('');
  });

  it('removes matching elements', () => {
    const doc = parseHtml(page);
    excludeTags(doc, ['.x', 'span']);
    expect(render(doc)).toBe('<html><head></head><body><div id="a"></div><article></article></body></html>');
  });

  it('reports invalid selectors instead of throwing', () => {
    const r = excludeTags(parseHtml(page), ['p[', '.x']);
    expect(r.invalidSelectors).toEqual(['p[']);
    expect(render(r.root)).not.toContain('one');
  });
});

describe('removeBase64Images', () => {
  it('replaces data: image URLs and keeps alt', () => {
    const doc = parseHtml('<img alt="chart" src="data:image/png;base64,iVBORw0KGgo="><img src="https://e.com/x.png">');
    removeBase64Images(doc);
    expect(render(doc, { encodeEntities: 'utf8' })).toBe(
      `<html><head></head><body><img alt="chart" src="${BASE64_IMAGE_PLACEHOLDER}"><img src="https://e.com/x.png"></body></html>`,
    );
  });
});
