import { describe, expect, it } from '@jest/globals';
import MarkdownIt from 'markdown-it';
import { htmlToMarkdown } from './html-to-markdown.js';

const parser = new MarkdownIt('commonmark').enable('table').enable('strikethrough');
parser.disable('text_join');

/** Unescaped `*`/`__` runs a CommonMark parser leaves as text (emphasis markers it could not read). */
function literalMarkers(md: string): string[] {
  const found: string[] = [];
  const walk = (tokens: ReturnType<typeof parser.parse>): void => {
    for (const t of tokens) {
      if (t.type === 'text' && /\*|(?<![\p{L}\p{N}])__|__(?![\p{L}\p{N}])/u.test(t.content)) found.push(t.content);
      if (t.children) walk(t.children);
    }
  };
  walk(parser.parse(md, {}));
  return found;
}

/** Converts and checks that the parse keeps no literal markers. */
function convert(html: string): string {
  const md = htmlToMarkdown(html);
  expect(literalMarkers(md)).toEqual([]);
  return md;
}

describe('emphasis a CommonMark parser reads', () => {
  it('merges adjacent runs of the same element', () => {
    expect(convert('<p><strong>Game D</strong><strong>ay</strong> today</p>')).toBe('**Game Day** today');
    expect(convert('<p><em>one</em> <em>two</em></p>')).toBe('*one two*');
  });
  it('moves edge whitespace outside the markers', () => {
    expect(convert('<p>a<b> bold </b>b</p>')).toBe('a **bold** b');
    expect(convert('<p>a<i>\u00a0it</i>b</p>')).toBe('a\u00a0*it*b');
  });
  it('keeps intraword emphasis with `*`', () => {
    expect(convert('<p>Game D<b>ay</b> and un<i>frigging</i>believable</p>')).toBe('Game D**ay** and un*frigging*believable');
  });
  it('drops emphasis that cannot parse next to punctuation inside a word', () => {
    expect(convert('<p>die Seite von Montauk<strong>.</strong></p>')).toBe('die Seite von Montauk.');
    expect(convert('<p>Say <b>"</b>The end"</p>')).toBe('Say "The end"');
  });
  it('keeps emphasis around punctuation where it parses', () => {
    expect(convert('<p>Say <b>"The end"</b> now</p>')).toBe('Say **"The end"** now');
  });
  it('drops emphasis around blocks (it cannot cross them)', () => {
    const md = convert('<b><p>one</p><p>two</p></b><i>a<br><br>b</i>');
    expect(md).not.toContain('*');
    expect(md).toContain('one\n\ntwo');
  });
  it('keeps emphasis across a single hard break', () => {
    expect(convert('<p><b>a<br>b</b></p>')).toBe('**a  \nb**');
  });
  it('never glues strikethrough to a literal tilde', () => {
    expect(convert('<p>~<strike>strike</strike> and <del>gone</del></p>')).toBe('~strike and ~~gone~~');
  });
  it('does not let page text forge the placeholders', () => {
    expect(convert('<p>x\uE000y\uE001z</p>')).toBe('xyz');
  });
});

describe('line-start escapes', () => {
  it('escapes a marker only where it starts a line', () => {
    expect(htmlToMarkdown('<p>Chapter <b>8.</b> begins</p>')).toBe('Chapter **8.** begins');
    expect(htmlToMarkdown('<p>see <span>8. here</span></p>')).toBe('see 8. here');
    expect(htmlToMarkdown('<p>8. not a list</p>')).toBe('8\\. not a list');
    expect(htmlToMarkdown('<p>a<br>- not a list</p>')).toBe('a  \n\\- not a list');
    expect(htmlToMarkdown('<ul><li># not a heading</li></ul>')).toBe('- \\# not a heading');
    expect(htmlToMarkdown('<blockquote><p>&gt; quoted</p></blockquote>')).toBe('> \\> quoted');
  });
});

describe('ruby and invisible paragraphs', () => {
  it('renders ruby as its base text, without the readings glued to it', () => {
    expect(htmlToMarkdown('<p><ruby>漢<rp>(</rp><rt>kan</rt><rp>)</rp>字<rt>ji</rt></ruby>です</p>')).toBe('漢字です');
    expect(htmlToMarkdown('<p>a <ruby><rb>東京</rb><rt>とうきょう</rt></ruby> b</p>')).toBe('a 東京 b');
  });
  it('drops paragraphs holding only zero-width or non-breaking spaces', () => {
    expect(htmlToMarkdown('<p>a</p><p>\u200B</p><p>&nbsp;\u200B\uFEFF</p><div>\u200D</div><p>b</p>')).toBe('a\n\nb');
  });
});

describe('lists directly inside lists', () => {
  it('nests them under the item before them', () => {
    expect(htmlToMarkdown('<ol><li>one</li><ul><li>sub</li></ul><li>two</li></ol>')).toBe('1. one\n   - sub\n2. two');
    expect(htmlToMarkdown('<ul><li>a</li><ol><li>x</li></ol><li>b</li></ul>')).toBe('- a\n  1. x\n- b');
  });
});

describe('content directly inside a list', () => {
  const parse = (md: string): string[] => new MarkdownIt('commonmark').parse(md, {}).map((t) => t.type);
  it('puts the item after stray text or inline content on its own line, so it stays a list item', () => {
    expect(htmlToMarkdown('<ul>text<li>item</li></ul>')).toBe('text\n\n- item');
    expect(htmlToMarkdown('<ol><li>one</li> stray <li>two</li></ol>')).toBe('1. one\nstray\n\n2. two');
    expect(htmlToMarkdown('<ul><span>note</span><li>item</li></ul>')).toBe('note\n\n- item');
    for (const html of ['<ul>text<li>item</li></ul>', '<ol><li>one</li> stray <li>two</li></ol>']) {
      expect(parse(htmlToMarkdown(html)).filter((t) => t === 'list_item_open')).toHaveLength(html.includes('two') ? 2 : 1);
    }
  });
  it('leaves lists without stray content tight', () => {
    expect(htmlToMarkdown('<ul>\n  <li>a</li>\n  <li>b</li>\n</ul>')).toBe('- a\n- b');
    expect(htmlToMarkdown('<ul><li>a</li><span></span><li>b</li></ul>')).toBe('- a\n- b');
  });
});

describe('breaks in blockquotes', () => {
  it('turns a run of <br> between paragraphs into one blank quote line', () => {
    expect(htmlToMarkdown('<blockquote><p>Start</p><br><br><br><p>End</p></blockquote>')).toBe('> Start\n>\n> End');
  });
});

describe('adjacent code elements', () => {
  it('writes them as one code span, which CommonMark reads without literal backticks', () => {
    expect(htmlToMarkdown('<p>before<code>A</code><code>B</code>after</p>')).toBe('before`AB`after');
    expect(htmlToMarkdown('<p><code>A</code><kbd>B</kbd><code></code><tt>C</tt></p>')).toBe('`ABC`');
    const inline = new MarkdownIt('commonmark').parseInline(htmlToMarkdown('<p>x <code>a</code><code>b</code> y</p>'), {})[0];
    expect(inline?.children?.filter((t) => t.type === 'code_inline').map((t) => t.content)).toEqual(['ab']);
  });
  it('keeps code elements apart when anything stands between them', () => {
    expect(htmlToMarkdown('<p><code>A</code> <code>B</code></p>')).toBe('`A` `B`');
    expect(htmlToMarkdown('<p><code></code><code>A</code>, <code>B</code></p>')).toBe('`A`, `B`');
  });
});
