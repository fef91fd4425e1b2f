import { describe, expect, it } from '@jest/globals';
import type { PageText, TextRun } from '../types.js';
import { pagesToHtml } from './index.js';

/** Words of `text` as runs (one per word, as OCR gives them), half an em per character, quarter-em spaces. */
function words(text: string, x: number, y: number, opts: Partial<TextRun> & { size?: number } = {}): TextRun[] {
  const size = opts.size ?? 10;
  const runs: TextRun[] = [];
  let cx = x;
  for (const w of text.split(' ')) {
    const width = w.length * size * 0.5;
    runs.push({ text: w, x: cx, y, width, height: size, fontSize: size, bold: false, italic: false, ...opts });
    cx += width + size * 0.25;
  }
  return runs;
}

/** One run for a whole chunk of text (as a PDF text layer gives it). */
function chunk(text: string, x: number, y: number, opts: Partial<TextRun> & { size?: number } = {}): TextRun {
  const size = opts.size ?? 10;
  return { text, x, y, width: text.length * size * 0.5, height: size, fontSize: size, bold: false, italic: false, ...opts };
}

const page = (runs: TextRun[], pageNumber = 1, extra: Partial<PageText> = {}): PageText => ({ pageNumber, width: 612, height: 792, runs, links: [], source: 'text-layer', ...extra });
const body = (html: string): string => html.slice(html.indexOf('<body>') + 6, html.indexOf('</body>')).trim();
const lorem = 'the quick brown fox jumps over the lazy dog and keeps running';

describe('pagesToHtml', () => {
  it('returns a full document with an escaped title and escaped text', () => {
    const html = pagesToHtml([page([chunk('a < b & "c"', 50, 50)])], { title: 'T <1>' });
    expect(html).toMatch(/^<!DOCTYPE html><html><head><meta charset="utf-8"><title>T &lt;1&gt;<\/title><\/head><body>/);
    expect(body(html)).toBe('<p>a &lt; b &amp; &quot;c&quot;</p>');
  });

  it('joins lines of a paragraph, removes line-end hyphenation, and splits paragraphs at gaps', () => {
    const runs = [
      ...words('This paragraph carries infor-', 50, 100),
      ...words('mation over two lines and a Well-', 50, 112),
      ...words('Known word.', 50, 124),
      ...words('A second paragraph after a gap.', 50, 150),
    ];
    expect(body(pagesToHtml([page(runs)]))).toBe(
      '<p>This paragraph carries information over two lines and a Well- Known word.</p>\n<p>A second paragraph after a gap.</p>',
    );
  });

  it('reads two columns column by column, with the full-width title first', () => {
    const runs: TextRun[] = [chunk('A Title Across The Page', 150, 40, { size: 20 })];
    for (let i = 0; i < 6; i++) {
      runs.push(chunk(`left ${i} ${lorem}`.slice(0, 44), 50, 100 + i * 12));
      runs.push(chunk(`right ${i} ${lorem}`.slice(0, 44), 320, 100 + i * 12));
    }
    const html = body(pagesToHtml([page(runs)]));
    expect(html.startsWith('<h1>A Title Across The Page</h1>')).toBe(true);
    const text = html.replace(/<[^>]+>/g, ' ');
    const order = [0, 5].flatMap((i) => [text.indexOf(`left ${i}`), text.indexOf(`right ${i}`)]);
    // left 0 < left 5 < right 0 < right 5
    expect(order[0]!).toBeLessThan(order[2]!);
    expect(order[2]!).toBeLessThan(order[1]!);
    expect(order[1]!).toBeLessThan(order[3]!);
  });

  it('ranks headings by font size against the body text', () => {
    const runs = [
      chunk('Document Title', 50, 40, { size: 24 }),
      chunk('Section One', 50, 80, { size: 16 }),
      ...words(lorem, 50, 110),
      ...words(lorem, 50, 122),
      chunk('Subsection', 50, 150, { size: 13 }),
      ...words(lorem, 50, 175),
      chunk('Section Two', 50, 200, { size: 16 }),
      ...words(lorem, 50, 230),
    ];
    const html = body(pagesToHtml([page(runs)]));
    expect(html).toContain('<h1>Document Title</h1>');
    expect(html.match(/<h2>[^<]*<\/h2>/g)).toEqual(['<h2>Section One</h2>', '<h2>Section Two</h2>']);
    expect(html).toContain('<h3>Subsection</h3>');
    expect(html.match(/<p>/g)).toHaveLength(3);
  });

  it('turns bold short lines into headings but keeps bold paragraphs as paragraphs', () => {
    const runs = [
      ...words('Bold Heading', 50, 60, { bold: true }),
      ...words(lorem, 50, 80),
      ...words(lorem, 50, 92),
      ...words('bold paragraph line one goes on and on', 50, 120, { bold: true }),
      ...words('bold paragraph line two goes on and on', 50, 132, { bold: true }),
      ...words('bold paragraph line three goes on', 50, 144, { bold: true }),
    ];
    const html = body(pagesToHtml([page(runs)]));
    expect(html).toContain('<h2>Bold Heading</h2>');
    expect(html).toContain('<p><strong>bold paragraph line one goes on and on bold paragraph line two goes on and on bold paragraph line three goes on</strong></p>');
  });

  it('reads bulleted and numbered lists, with hanging-indent continuation lines', () => {
    const runs = [
      ...words('Shopping list:', 50, 60),
      chunk('•', 60, 80), ...words('apples from the market', 72, 80),
      chunk('•', 60, 92), ...words('pears that wrap onto', 72, 92), ...words('a second line', 72, 104),
      ...words('Steps follow.', 50, 130),
      ...words('1. open the door', 60, 150),
      ...words('2. walk in', 60, 162),
      ...words('3. close it', 60, 174),
      ...words('a) first choice', 60, 200),
      ...words('b) second choice', 60, 212),
    ];
    const html = body(pagesToHtml([page(runs)]));
    expect(html).toContain('<ul><li>apples from the market</li><li>pears that wrap onto a second line</li></ul>');
    expect(html).toContain('<ol><li>open the door</li><li>walk in</li><li>close it</li></ol>');
    expect(html).toContain('<ol><li>first choice</li><li>second choice</li></ol>');
  });

  it('does not take a sentence that starts with a number for a list', () => {
    const runs = [...words('The answer is given below in short.', 50, 60), ...words('1. This line stands alone with no sibling item.', 50, 90)];
    const html = body(pagesToHtml([page(runs)]));
    expect(html).not.toContain('<ol>');
    expect(html).toContain('<p>1. This line stands alone with no sibling item.</p>');
  });

  it('reads aligned columns over several lines as a table', () => {
    const rows = [['Name', 'Qty', 'Price'], ['Apple', '3', '1.20'], ['Banana', '12', '0.25'], ['Cherry', '200', '9.99']];
    const runs = [...words('Prices of the week are listed here.', 50, 60)];
    rows.forEach((row, r) => {
      runs.push(chunk(row[0]!, 50, 90 + r * 14), chunk(row[1]!, 150, 90 + r * 14), chunk(row[2]!, 250, 90 + r * 14));
    });
    runs.push(...words('After the table the text goes on.', 50, 160));
    const html = body(pagesToHtml([page(runs)]));
    expect(html).toContain('<table><tr><th>Name</th><th>Qty</th><th>Price</th></tr><tr><td>Apple</td><td>3</td><td>1.20</td></tr><tr><td>Banana</td><td>12</td><td>0.25</td></tr><tr><td>Cherry</td><td>200</td><td>9.99</td></tr></table>');
    expect(html).toContain('<p>Prices of the week are listed here.</p>');
    expect(html).toContain('<p>After the table the text goes on.</p>');
  });

  it('keeps justified prose with wide word gaps as a paragraph, not a table', () => {
    // Word gaps of 1.2 em in some lines, at different places: no column runs through all lines.
    const runs = [
      chunk('The committee met on Monday', 50, 100), chunk('and agreed on the plan.', 202, 100),
      chunk('Nobody objected to the budget', 50, 112), chunk('nor to the calendar.', 222, 112),
      chunk('Work starts in', 50, 124), chunk('spring when the ground is soft.', 132, 124),
    ];
    const html = body(pagesToHtml([page(runs)]));
    expect(html).not.toContain('<table');
    expect(html).toBe('<p>The committee met on Monday and agreed on the plan. Nobody objected to the budget nor to the calendar. Work starts in spring when the ground is soft.</p>');
  });

  it('keeps two lines that merely share a gap as text', () => {
    const runs = [chunk('Invoice', 50, 100), chunk('2024-01-05', 400, 100), chunk('Customer', 50, 112), chunk('ACME Ltd', 400, 112)];
    expect(body(pagesToHtml([page(runs)]))).not.toContain('<table');
  });

  it('drops running headers, footers and page numbers repeated on most pages', () => {
    const pages = [1, 2, 3, 4].map((n) =>
      page([chunk('ACME Quarterly Report', 50, 20, { size: 8 }), ...words(`Body text of page ${n} is here.`, 50, 100), chunk(`Page ${n} of 4`, 280, 760, { size: 8 }), chunk(String(n), 560, 770, { size: 8 })], n),
    );
    const html = body(pagesToHtml(pages));
    expect(html).not.toContain('ACME');
    expect(html).not.toContain('Page ');
    expect(html.match(/<p>/g)).toHaveLength(4);
    expect(html).toContain('<p>Body text of page 3 is here.</p>');
  });

  it('keeps a one-page document whole, margins included', () => {
    const html = body(pagesToHtml([page([chunk('Header line', 50, 20), ...words('Body.', 50, 300), chunk('1', 300, 770)])]));
    expect(html).toContain('Header line');
    expect(html).toContain('<p>1</p>');
  });

  it('turns monospace lines into a code block keeping indentation', () => {
    const mono = { fontName: 'Courier' };
    const runs = [
      ...words('Example:', 50, 60),
      chunk('function f() {', 50, 80, mono),
      chunk('return 1;', 50 + 2 * 6, 92, { ...mono }),
      chunk('}', 50, 104, mono),
    ];
    const html = body(pagesToHtml([page(runs)]));
    expect(html).toContain('<pre><code>function f() {\n  return 1;\n}</code></pre>');
  });

  it('puts links over the runs they cover', () => {
    const runs = words('Read the manual for details.', 50, 100);
    // "manual" spans 90..120; the rectangle overhangs it by 2 units on each side.
    const link = { x: 88, y: 99, width: 34, height: 12, url: 'https://example.com/m?a=1&b=2' };
    const html = body(pagesToHtml([page(runs, 1, { links: [link] })]));
    expect(html).toBe('<p>Read the <a href="https://example.com/m?a=1&amp;b=2">manual</a> for details.</p>');
  });

  it('joins CJK runs and lines without spaces', () => {
    const runs = [chunk('日本語の', 50, 100), chunk('文章です', 90, 100), chunk('改行後も続く。', 50, 112)];
    expect(body(pagesToHtml([page(runs)]))).toBe('<p>日本語の文章です改行後も続く。</p>');
  });

  it('orders RTL runs right to left and marks the block rtl', () => {
    // Visual order on the page: "עולם" (left) then "שלום" (right); reading starts at the right.
    const runs = [chunk('עולם', 100, 100, { rtl: true }), chunk('שלום', 130, 100, { rtl: true })];
    expect(body(pagesToHtml([page(runs)]))).toBe('<p dir="rtl">שלום עולם</p>');
  });

  it('never throws on odd input', () => {
    const odd: TextRun[] = [
      { text: 'NaN run', x: NaN, y: 1, width: 1, height: 1, fontSize: 1, bold: false, italic: false },
      { text: 'zero', x: 10, y: 10, width: 0, height: 0, fontSize: 0, bold: false, italic: false },
      { text: 'inf', x: 10, y: 30, width: Infinity, height: -5, fontSize: Infinity, bold: false, italic: false },
      { text: '', x: 1, y: 1, width: 1, height: 1, fontSize: 1, bold: false, italic: false },
    ];
    const html = pagesToHtml([page([]), page(odd, 2), { ...page([], 3), width: NaN, height: NaN }]);
    expect(body(html)).toContain('zero');
    expect(body(html)).toContain('inf');
    expect(body(html)).not.toContain('NaN run');
    expect(body(pagesToHtml([]))).toBe('');
  });

  it('stays fast on a page with 50,000 runs', () => {
    const runs: TextRun[] = [];
    for (let i = 0; i < 50_000; i++) runs.push(chunk(`w${i}`, 40 + (i % 50) * 11, 20 + Math.floor(i / 50) * 0.7, { size: 0.6 }));
    const html = pagesToHtml([page(runs)]);
    expect(html).toContain('w49999');
  });
});
