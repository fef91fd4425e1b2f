import { describe, expect, it } from '@jest/globals';
import render from 'dom-serializer';
import { parseDocument } from 'htmlparser2';
import { serializeHtml } from './serialize-html.js';

const viaDomSerializer = (html: string): string => render(parseDocument(html).children, { encodeEntities: 'utf8' });

describe('serializeHtml', () => {
  it('writes what dom-serializer writes', () => {
    const html =
      '<!DOCTYPE html><p class="a&quot;b" hidden>x &amp; y&nbsp;<br><img src="i.png"></p><!-- c --><script>if (a < b) {}</script>' +
      '<svg viewBox="0 0 1 1"><path d="M0"/><foreignObject><div>z</div></foreignObject></svg>';
    expect(serializeHtml(parseDocument(html).children)).toBe(viaDomSerializer(html));
  });

  it('serializes markup nested far deeper than dom-serializer can', () => {
    const depth = 20000;
    const html = '<div class="d"><span>'.repeat(depth) + 'a &lt; b<br>' + '</span></div>'.repeat(depth);
    const out = serializeHtml(parseDocument(html).children);
    expect(out).toBe('<div class="d"><span>'.repeat(depth) + 'a &lt; b<br>' + '</span></div>'.repeat(depth));
  });

  it('hands shallow subtrees of a deep document to dom-serializer unchanged', () => {
    const inner = '<svg viewBox="0 0 1 1"><path d="M0"/></svg><p title="&quot;">t</p>';
    const html = '<div>'.repeat(1000) + inner + '</div>'.repeat(1000);
    expect(serializeHtml(parseDocument(html).children)).toBe('<div>'.repeat(1000) + viaDomSerializer(inner) + '</div>'.repeat(1000));
  });
});
