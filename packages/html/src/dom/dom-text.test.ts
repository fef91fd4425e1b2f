import { describe, expect, it } from '@jest/globals';
import { domToText } from './dom-text.js';
import { parseHtml } from './parse-html.js';

const text = (html: string): string => domToText(parseHtml(html));

describe('domToText', () => {
  it('joins inline elements without spaces and puts blocks on their own lines', () => {
    expect(text('<p>Hel<b>lo</b> <i>world</i></p><div>next<br>line</div>')).toBe('Hello world\nnext\nline');
  });
  it('collapses whitespace, keeps table cells of a row on one line, skips script and style', () => {
    expect(text('<p>  a \n b </p><table><tr><td>x</td><td>y</td></tr></table><script>z()</script><style>p{}</style>')).toBe('a b\nx y');
  });
  it('keeps the line breaks of pre', () => {
    expect(text('<pre>one\n  two</pre>')).toBe('one\ntwo');
  });
});
