import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'htmlparser2';
import type { Element } from 'domhandler';
import { htmlToMarkdown } from './index.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '__fixtures__');
const BASE = 'https://example.com/base/index.html';

describe('htmlToMarkdown golden files', () => {
  const cases = readdirSync(fixtures).filter((f) => f.endsWith('.html'));
  it('has fixtures', () => expect(cases.length).toBeGreaterThan(3));
  for (const file of cases) {
    it(file, () => {
      const html = readFileSync(join(fixtures, file), 'utf8');
      const expected = readFileSync(join(fixtures, file.replace(/\.html$/, '.md')), 'utf8').replace(/\n$/, '');
      expect(htmlToMarkdown(html, { baseUrl: BASE })).toBe(expected);
    });
  }
});

describe('htmlToMarkdown', () => {
  it('returns empty string for empty and blank input', () => {
    expect(htmlToMarkdown('', {})).toBe('');
    expect(htmlToMarkdown('  <div> </div> <p></p>', {})).toBe('');
  });

  it('accepts a domhandler Document and does not mutate it', () => {
    const doc = parseDocument('<p>  a   <b>b</b>  </p>');
    const before = JSON.stringify((doc.children[0] as Element).children.map((c) => ('data' in c ? c.data : c.type)));
    expect(htmlToMarkdown(doc, {})).toBe('a **b**');
    const after = JSON.stringify((doc.children[0] as Element).children.map((c) => ('data' in c ? c.data : c.type)));
    expect(after).toBe(before);
  });

  it('converts an Element including itself', () => {
    const doc = parseDocument('<div><h2>T</h2><ul><li>x</li></ul></div>');
    const ul = (doc.children[0] as Element).children[1] as Element;
    expect(htmlToMarkdown(ul, {})).toBe('- x');
  });

  it('keeps URLs as written without a base, and resolves <base href> when present', () => {
    expect(htmlToMarkdown('<a href="/x">x</a>', {})).toBe('[x](/x)');
    const html = '<html><head><base href="https://cdn.example/sub/"></head><body><a href="p">p</a></body></html>';
    expect(htmlToMarkdown(html, { baseUrl: 'https://example.com/' })).toBe('[p](https://cdn.example/sub/p)');
  });

  it('survives an invalid base URL', () => {
    expect(htmlToMarkdown('<a href="/x">x</a>', { baseUrl: 'not a url' })).toBe('[x](/x)');
  });

  it('fences code with a longer fence than any inside and keeps the language', () => {
    const md = htmlToMarkdown('<pre><code class="lang-js">a\n```\nb</code></pre>', {});
    expect(md).toBe('````js\na\n```\nb\n````');
  });

  it('handles tables without rows, with ragged rows and with huge spans', () => {
    expect(htmlToMarkdown('<table><tr></tr></table>', {})).toBe('');
    const md = htmlToMarkdown('<table><tr><th>a</th></tr><tr><td>1</td><td>2</td><td colspan="100000">3</td></tr></table>', {});
    expect(md).toBe('| a |  |  |\n| --- | --- | --- |\n| 1 | 2 | 3 |');
  });

  it('never emits more than one blank line in a row outside code, nor whitespace-only lines', () => {
    const md = htmlToMarkdown('<p>a</p><br><br><br><div><p> </p></div><ul><li><p>x</p><br><br></li></ul><p>b</p>', {});
    expect(md).not.toMatch(/\n\n\n/);
    expect(md).not.toMatch(/\n[ \t]+\n/);
    expect(md.startsWith('a')).toBe(true);
    expect(md.endsWith('b')).toBe(true);
  });

  it('does not overflow the stack on deeply nested markup', () => {
    const depth = 20000;
    const html = '<div><span><b>'.repeat(depth) + 'deep' + '</b></span></div>'.repeat(depth);
    expect(htmlToMarkdown(html, {})).toBe('**deep**');
    const lists = '<ul><li>'.repeat(3000) + 'x' + '</li></ul>'.repeat(3000);
    expect(htmlToMarkdown(lists, {}).trim().endsWith('- x')).toBe(true);
    const tables = '<table><tr><td>a</td><td>'.repeat(500) + 'x' + '</td></tr></table>'.repeat(500);
    expect(htmlToMarkdown(tables, {})).toContain('x');
  });

  it('converts a 1 MB page', () => {
    const row = '<tr><td>cell <a href="/l">link</a></td><td><code>c_d</code> *x*</td></tr>';
    const para = '<p>Text with <em>emphasis</em>, <a href="/a">a link</a> and snake_case_words.</p>';
    const html = '<table>' + row.repeat(4000) + '</table>' + para.repeat(9000);
    expect(html.length).toBeGreaterThan(1_000_000);
    const md = htmlToMarkdown(html, { baseUrl: BASE });
    expect(md.split('\n').length).toBeGreaterThan(8000);
  });
});
