import { describe, expect, it } from '@jest/globals';
import { domToText } from './dom-text.js';
import { findFirstTag } from './dom-helpers.js';
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
});
