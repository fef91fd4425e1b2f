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
  it('escapes pipes and keeps each cell on one line', () => {
    expect(md('<table><tr><th>a|b</th><th><p>x</p><p>y</p></th></tr></table>')).toBe('| a\\|b | x y |\n| --- | --- |');
  });
  it('flattens nested tables into their cell', () => {
    expect(md('<table><tr><td>a</td><td><table><tr><td>n1</td><td>n2</td></tr></table></td></tr></table>')).toBe(
      '| a | n1 n2 |\n| --- | --- |',
    );
  });
  it('renders pre inside a cell as inline code', () => {
    expect(md('<table><tr><td>a</td><td><pre>x\ny</pre></td></tr></table>')).toBe('| a | `x y` |\n| --- | --- |');
  });
  it('renders single-column tables as blocks', () => {
    expect(md('<table><tr><td><h2>T</h2></td></tr><tr><td>body</td></tr></table>')).toBe('## T\n\nbody');
  });
  it('ignores invalid spans', () => {
    expect(md('<table><tr><td colspan="x">a</td><td rowspan="-1">b</td></tr></table>')).toBe('| a | b |\n| --- | --- |');
  });
});
