import { describe, expect, it } from '@jest/globals';
import { rejection, testOptions, toMarkdown } from './__fixtures__/test-helpers.js';
import { readRtf } from './rtf-reader.js';
import { tokenizeRtf } from './rtf-tokenizer.js';

const latin1 = (s: string) => Buffer.from(s, 'latin1');

const SAMPLE = String.raw`{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0\froman Times;}{\f1\fcharset204 Arial Cyr;}}{\colortbl;\red0\green0\blue0;}
{\stylesheet{\s0 Normal;}{\s1\outlinelevel0 heading 1;}{\s2 heading 2;}}
{\info{\title My RTF}{\author Jane Doe}{\creatim\yr2024\mo3\dy5\hr10\min7}}
{\header Page header text\par}
{\pard\s1 Big Title\par}
{\pard\s2 Smaller\par}
\pard Hello {\b bold} and {\i italic\i0  plain}. Caf\'e9 \u8364? euro {\f1 \'cf\'f0\'e8} end.\line next\par
{\*\generator Foo;}{\field{\*\fldinst HYPERLINK "https://example.com/rtf"}{\fldrslt {\ul link text}}}\par
{\listtext\pard\plain \'b7\tab}\pard\ls1\ilvl0 first bullet\par
{\listtext\pard\plain \'b7\tab}\pard\ls1\ilvl1 nested bullet\par
{\listtext\pard\plain 1.\tab}\pard\ls2\ilvl0 numbered\par
\pard\par
\trowd\cellx1000\cellx2000\pard\intbl A\cell B\cell\row
\trowd\cellx1000\cellx2000\pard\intbl 1\cell 2\cell\row
\pard After table\par
{\pict\pngblip 89504e47}{\object\objemb{\*\objdata 0102}{\result shown result}}
}`;

describe('readRtf', () => {
  it('reads text, formatting, code pages, Unicode, headings, lists, links, tables and info', async () => {
    const doc = await readRtf(latin1(SAMPLE), testOptions());
    const { html } = doc;
    expect(html).toContain('<title>My RTF</title>');
    expect(html).toContain('<h1>Big Title</h1>');
    expect(html).toContain('<h2>Smaller</h2>');
    expect(html).toContain('<p>Hello <strong>bold</strong> and <em>italic</em> plain. Café € euro При end.<br>next</p>');
    expect(html).toContain('<a href="https://example.com/rtf">link text</a>');
    expect(html).toContain('<ul><li>first bullet<ul><li>nested bullet</li></ul></li></ul>');
    expect(html).toContain('<ol><li>numbered</li></ol>');
    expect(html).toContain('<tr><th>A</th><th>B</th></tr>\n<tr><td>1</td><td>2</td></tr>');
    expect(html).toContain('<p>After table</p>');
    expect(html).toContain('shown result');
    expect(html).not.toMatch(/Times|Arial|Foo|header text|89504e47|0102|Normal/);
    expect(doc).toMatchObject({ format: 'rtf', title: 'My RTF', metadata: { author: 'Jane Doe', created: '2024-03-05T10:07:00' }, numPages: 1 });
    const md = toMarkdown(html);
    expect(md).toContain('# Big Title');
    expect(md).toContain('| A | B |');
  });

  it('skips \\ucN fallback characters after \\uN, and decodes \\ansicpg1251 bytes', async () => {
    const doc = await readRtf(latin1(String.raw`{\rtf1\ansi\ansicpg1251 \uc2\u1046\'c6\'c6 x\uc0\u1046 y \'cf\'f0\'e8 {\ansicpg1252\'93}quoted\'94\par}`), testOptions());
    // The space after `\u1046` delimits the control word: it is not text.
    expect(doc.html).toContain('<p>Ж xЖy При “quoted”</p>');
  });

  it('survives 100,000 nested groups without recursion', async () => {
    const deep = `{\\rtf1\\ansi ${'{'.repeat(100_000)}deep text${'}'.repeat(100_000)}}`;
    const doc = await readRtf(latin1(deep), testOptions());
    expect(doc.html).toContain('<p>deep text</p>');
    // Unbalanced groups (a truncated file) are tolerated too.
    expect((await readRtf(latin1(`{\\rtf1 ${'{'.repeat(50_000)}cut`), testOptions())).html).toContain('<p>cut</p>');
  });

  it('throws SCRAPE_TIMEOUT past the deadline, also mid-file', async () => {
    expect((await rejection(readRtf(latin1(SAMPLE), testOptions({ deadline: 0 })))).code).toBe('SCRAPE_TIMEOUT');
    let calls = 0;
    const long = latin1(`{\\rtf1 ${'word \\b bold\\b0 \\par '.repeat(20_000)}}`);
    expect((await rejection(readRtf(long, testOptions({ deadline: 1000, now: () => (++calls > 2 ? 2000 : 0) })))).code).toBe('SCRAPE_TIMEOUT');
  });
});

describe('tokenizeRtf', () => {
  it('splits control words with parameters and their space delimiter, symbols, hex bytes and \\bin data', () => {
    const tokens = [...tokenizeRtf(latin1('{\\b1 x\\fs-20\\~\\\'e9\\bin3 {}}y}'))];
    expect(tokens).toEqual([
      { kind: 'groupStart' },
      { kind: 'word', word: 'b', param: 1 },
      { kind: 'text', bytes: latin1('x') },
      { kind: 'word', word: 'fs', param: -20 },
      { kind: 'symbol', symbol: '~' },
      { kind: 'hex', byte: 0xe9 },
      { kind: 'text', bytes: latin1('y') },
      { kind: 'groupEnd' },
    ]);
  });
});
