import { describe, expect, it } from '@jest/globals';
import { htmlToMarkdown } from './index.js';

const md = (html: string): string => htmlToMarkdown(html, {});

describe('GFM tables', () => {
  it('uses the first row as header even without th', () => {
    expect(md('<table><tr><td>a</td><td>b</td></tr><tr><td>1</td><td>2</td></tr></table>')).toBe(
      '| a | b |\n| --- | --- |\n| 1 | 2 |',
    );
  });
  it('puts thead rows first', () => {
    expect(md('<table><tbody><tr><td>1</td><td>2</td></tr></tbody><thead><tr><th>h1</th><th>h2</th></tr></thead></table>')).toBe(
      '| h1 | h2 |\n| --- | --- |\n| 1 | 2 |',
    );
  });
  it('puts tfoot rows last, as browsers show them, even when the source has tfoot before tbody', () => {
    expect(
      md('<table><thead><tr><th>h1</th><th>h2</th></tr></thead><tfoot><tr><td>f1</td><td>f2</td></tr></tfoot><tbody><tr><td>1</td><td>2</td></tr></tbody></table>'),
    ).toBe('| h1 | h2 |\n| --- | --- |\n| 1 | 2 |\n| f1 | f2 |');
  });
  it('escapes pipes and keeps each cell on one line', () => {
    expect(md('<table><tr><th>a|b</th><th>x<br>y</th></tr><tr><td>1</td><td>2</td></tr></table>')).toBe(
      '| a\\|b | x y |\n| --- | --- |\n| 1 | 2 |',
    );
  });
  it('flattens nested tables into their cell', () => {
    expect(md('<table><tr><td>a</td><td><table><tr><td>n1</td><td>n2</td></tr></table></td></tr><tr><td>b</td><td>c</td></tr></table>')).toBe(
      '| a | n1 n2 |\n| --- | --- |\n| b | c |',
    );
  });
  it('unwraps one-row tables and tables whose cells hold lists or paragraphs', () => {
    expect(md('<table><tr><td><p>Intro</p></td><td><p>Side</p></td></tr></table>')).toBe('Intro\n\nSide');
    expect(md('<table><tr><td><ul><li>a</li></ul></td><td>x</td></tr><tr><td>y</td><td>z</td></tr></table>')).toBe(
      '- a\n\nx\n\ny\n\nz',
    );
    expect(md('<table><tr><td><p>p1</p><p>p2</p></td><td>x</td></tr><tr><td>y</td><td>z</td></tr></table>')).toBe(
      'p1\n\np2\n\nx\n\ny\n\nz',
    );
  });
  it('keeps data tables whose cells wrap their text in one paragraph', () => {
    expect(md('<table><tr><th>A</th><th>B</th></tr><tr><td><p>1</p></td><td>2<br>3</td></tr></table>')).toBe(
      '| A | B |\n| --- | --- |\n| 1 | 2 3 |',
    );
  });
  it('renders pre inside a cell as inline code', () => {
    expect(md('<table><tr><td>a</td><td><pre>x\ny</pre></td></tr><tr><td>b</td><td>c</td></tr></table>')).toBe(
      '| a | `x y` |\n| --- | --- |\n| b | c |',
    );
  });
  it('renders single-column tables as blocks', () => {
    expect(md('<table><tr><td><h2>T</h2></td></tr><tr><td>body</td></tr></table>')).toBe('## T\n\nbody');
  });
  it('ignores invalid spans', () => {
    expect(md('<table><tr><td colspan="x">a</td><td rowspan="-1">b</td></tr><tr><td>c</td><td>d</td></tr></table>')).toBe(
      '| a | b |\n| --- | --- |\n| c | d |',
    );
  });
});

describe('table captions', () => {
  it('keeps a caption with a heading and a paragraph as separate blocks above the table', () => {
    expect(
      md('<table><caption><h4>Water level</h4><p>Source: river office</p></caption><tr><td>A</td><td>B</td></tr><tr><td>1</td><td>2</td></tr></table>'),
    ).toBe('#### Water level\n\nSource: river office\n\n| A | B |\n| --- | --- |\n| 1 | 2 |');
  });
  it('keeps a caption with blocks as separate blocks above a layout table', () => {
    expect(md('<table><caption><h4>Title</h4><p>Note</p></caption><tr><td>only</td></tr></table>')).toBe('#### Title\n\nNote\n\nonly');
  });
  it('keeps a plain caption as one line', () => {
    expect(md('<table><caption>Scores\n  of the week</caption><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>')).toBe(
      'Scores of the week\n\n| a | b |\n| --- | --- |\n| 1 | 2 |',
    );
  });
  it('keeps caption blocks apart when the outer table is unwrapped as layout', () => {
    expect(
      md('<table><tr><td>x</td><td><table><caption><h4>T</h4><p>N</p></caption><tr><td>1</td></tr></table></td></tr><tr><td>y</td><td>z</td></tr></table>'),
    ).toBe('x\n\n#### T\n\nN\n\n1\n\ny\n\nz');
  });
});
