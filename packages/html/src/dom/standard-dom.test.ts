import { describe, expect, it } from '@jest/globals';
import { parse } from 'parse5';
import { MINIMAL_CASES, serializeParse5Tree, serializeTree } from './__fixtures__/html5lib-tree.js';
import { domToText } from './dom-text.js';
import { parseHtml } from './parse-html.js';
import { buildStandardDom, TOO_DEEP } from './standard-dom.js';

const parse5Tree = (html: string): string => serializeParse5Tree(parse(html, { scriptingEnabled: true }) as never);

/*
 * The fast builder either builds parse5's tree node for node or stops (parseHtml then runs parse5).
 * parse-html-differential.test.ts checks parseHtml's trees over the html5lib suite (and that the fast
 * builder takes most of it); this checks common page markup and where the fast builder stops.
 */
describe('buildStandardDom', () => {
  it('builds the five minimal cases of issue 21 itself', () => {
    for (const html of MINIMAL_CASES) {
      const r = buildStandardDom(html);
      if (r.doc === null) {
        // Foster parenting (text directly in a table) is parse5's.
        expect(r.unsupported).toMatch(/foster/);
        continue;
      }
      expect(serializeTree(r.doc)).toBe(parse5Tree(html));
    }
  });

  it('builds the common markup of pages: implied tbody, p and li closing, stray end tags, formatting across blocks', () => {
    const cases = [
      '<!DOCTYPE html><html><head><title>T</title><meta charset=utf-8></head><body><p>a<p>b<ul><li>x<li>y</ul></body></html>',
      '<table><tr><td>a<td>b</tr><tr><th>c</table><p>after',
      '<div><b>bold<p>para</b>rest</p></div></span></div>',
      '<p>one<div>two</div><a href=x>link<div>block</div></a>',
      '<head><link rel=x></head> <script>if (a<b) {}</script><body class=c><svg viewBox="0 0 1 1"><path d=M0/></svg>',
      '<select><option>a<option>b</select><template><tr><td>t</td></tr></template>',
      '<body></body><div>after body</div></html> <!-- c -->',
    ];
    for (const html of cases) {
      const r = buildStandardDom(html);
      expect(r.unsupported).toBeNull();
      expect(serializeTree(r.doc as never)).toBe(parse5Tree(html));
    }
  });

  it('builds stray end-tag syntax, comments cut off by the end or closed by --!>, and raw end tags with attributes', () => {
    const cases = [
      '<p>a</>b</ x>c</3 y=">">d',
      '<p>a<!--b--!>c<!----!>d<!--e---!>f<!--g--!-->h',
      '<p>a<!--b',
      '<p>a<!--b-',
      '<p>a<!--b--',
      '<p>a<!--b---',
      '<p>a<!--b<!--',
      '<p>a<!--',
      '<p>a<!---',
      '<script>x</script foo="a>b" bar>after<style>s</style >more<title>t</title/>end',
    ];
    for (const html of cases) {
      const r = buildStandardDom(html);
      expect(r.unsupported).toBeNull();
      expect(serializeTree(r.doc as never)).toBe(parse5Tree(html));
    }
  });

  it('stops where its rules end', () => {
    expect(buildStandardDom('<table>text<tr><td>x</table>').unsupported).toBe('foster text');
    expect(buildStandardDom('<frameset><frame></frameset>').unsupported).toBe('<frameset>');
    expect(buildStandardDom('<math><mi>x</mi></math>').unsupported).toBe('<math>');
    expect(buildStandardDom('<p>a\0b').unsupported).toBe('nul or bom');
    expect(buildStandardDom('<p>a<!--b--!').unsupported).toBe('unclosed comment');
    expect(buildStandardDom('<div>'.repeat(50), 40).unsupported).toBe(TOO_DEEP);
  });

  it('hands a page nested past the standard depth cap to the linear builder, content kept', () => {
    const depth = 20000;
    const doc = parseHtml(`${'<div>'.repeat(depth)}deep${'</div>'.repeat(depth)}`);
    expect(domToText(doc)).toContain('deep');
  });
});
