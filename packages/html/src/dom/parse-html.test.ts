import { describe, expect, it } from '@jest/globals';
import { domToText } from './dom-text.js';
import { findFirstTag } from './dom-helpers.js';
import type { Element } from 'domhandler';
import { runHtmlPipeline } from '../pipeline.js';
import { MINIMAL_CASES } from './__fixtures__/html5lib-tree.js';
import { parseHtml } from './parse-html.js';

describe('parseHtml', () => {
  it('starts the body at the first element that cannot be in head when </head><body> are omitted', () => {
    const doc = parseHtml('<html><head><title>T</title><meta charset="utf-8"><div id="a"><p>Article text.</p></div><script>x()</script></html>');
    const head = findFirstTag(doc, 'head');
    const body = findFirstTag(doc, 'body');
    expect(head?.children.map((c) => (c as { name?: string }).name)).toEqual(['title', 'meta']);
    expect(body).not.toBeNull();
    expect(domToText(doc)).toBe('Article text.');
    expect(findFirstTag(body as never, 'script')).not.toBeNull();
  });

  it('puts stray head content before the existing body', () => {
    const doc = parseHtml('<html><head><title>T</title><p>First</p></head><body><p>Second</p></body></html>');
    expect(domToText(findFirstTag(doc, 'body') as never)).toBe('First\nSecond');
  });

  it('leaves a well-formed page alone', () => {
    const doc = parseHtml('<html><head><title>T</title><style>p{}</style></head><body><p>Text</p></body></html>');
    expect(findFirstTag(doc, 'head')?.children).toHaveLength(2);
    expect(domToText(doc)).toBe('Text');
  });

  it('collects the wanted elements in document order, not inside skipped ones', () => {
    const into: Element[] = [];
    parseHtml('<title>T</title><meta name=a content=1><svg><title>no</title></svg><p><meta name=b content=2>', {
      collect: { names: new Set(['title', 'meta', 'html']), skipInside: new Set(['svg']), into },
    });
    expect(into.map((e) => e.name)).toEqual(['html', 'title', 'meta', 'meta']);
    expect(into.map((e) => e.attribs['name'])).toEqual([undefined, undefined, 'a', 'b']);
  });

  it('keeps noscript markup as text (scripting on) and template content in a fragment', () => {
    const doc = parseHtml('<body><noscript><img src=a.png></noscript><template><p>T</p></template><p>Text</p>');
    const noscript = findFirstTag(doc, 'noscript');
    expect(noscript?.children.map((c) => c.type)).toEqual(['text']);
    expect(findFirstTag(doc, 'img')).toBeNull();
    expect(findFirstTag(doc, 'template')?.children.map((c) => c.type)).toEqual(['root']);
    expect(domToText(doc)).toBe('Text');
  });
});

describe('the five minimal cases of issue 21 through runHtmlPipeline', () => {
  for (const html of MINIMAL_CASES) {
    for (const onlyMainContent of [false, true]) {
      it(`${html} (onlyMainContent: ${String(onlyMainContent)})`, () => {
        const { markdown } = runHtmlPipeline(html, { url: 'https://example.com/', formats: { markdown: true }, onlyMainContent });
        if (html.includes('Title')) expect(markdown).toMatch(/^# Title$/m);
        expect(markdown).toMatch(/^Text$/m);
        if (html.includes('cell')) expect(markdown).toContain('cell');
      });
    }
  }
});
