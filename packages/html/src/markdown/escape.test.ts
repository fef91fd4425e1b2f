import { describe, expect, it } from '@jest/globals';
import MarkdownIt from 'markdown-it';
import { resolvePlaceholders } from './emphasis.js';
import { escapeLinkDestination, escapeLinkTitle, escapeMarkdown as escapeRaw } from './escape.js';
import { htmlToMarkdown } from './index.js';

/** A text node's escaping as it ends up in a document where the text starts a line. */
const escapeMarkdown = (text: string): string => resolvePlaceholders(escapeRaw(text));

describe('escapeMarkdown', () => {
  it('leaves plain text untouched', () => {
    expect(escapeMarkdown('Hello, world. 3 - 2 = 1')).toBe('Hello, world. 3 - 2 = 1');
  });
  it('escapes emphasis, code and link syntax', () => {
    expect(escapeMarkdown('a*b* `c` [d](e) \\')).toBe('a\\*b\\* \\`c\\` \\[d\\](e) \\\\');
  });
  it('escapes underscores only where they can delimit emphasis', () => {
    expect(escapeMarkdown('snake_case _x_ trailing_')).toBe('snake_case \\_x\\_ trailing\\_');
  });
  it('escapes line-start markers only at the start', () => {
    expect(escapeMarkdown('# h')).toBe('\\# h');
    expect(escapeMarkdown('#hashtag')).toBe('#hashtag');
    expect(escapeMarkdown('- item')).toBe('\\- item');
    expect(escapeMarkdown('-5 degrees')).toBe('-5 degrees');
    expect(escapeMarkdown('+ item')).toBe('\\+ item');
    expect(escapeMarkdown('> q')).toBe('\\> q');
    expect(escapeMarkdown('2019. A year')).toBe('2019\\. A year');
    expect(escapeMarkdown('1) x')).toBe('1\\) x');
    expect(escapeMarkdown('~~~')).toBe('\\~~~');
    expect(escapeMarkdown('a - b # c')).toBe('a - b # c');
  });
  it('escapes < only before something tag-like', () => {
    expect(escapeMarkdown('<div> and 3 < 4')).toBe('\\<div> and 3 < 4');
  });
});

describe('link helpers', () => {
  it('escapes destinations', () => {
    expect(escapeLinkDestination('https://x/a_(b)')).toBe('https://x/a_\\(b\\)');
    expect(escapeLinkDestination('a b')).toBe('<a b>');
  });
  it('drops tabs and line breaks from destinations, as browsers do, so the link still parses', () => {
    expect(escapeLinkDestination('mailto:hi@example.com?body=Hello\nJohannes\t\t')).toBe('mailto:hi@example.com?body=HelloJohannes');
    expect(escapeLinkDestination('/page\r\n\n.html')).toBe('/page.html');
  });
  it('escapes titles', () => {
    expect(escapeLinkTitle('say "hi"')).toBe('say \\"hi\\"');
  });
});

describe('heading text ending in #', () => {
  const md = (html: string): string => htmlToMarkdown(html, {});
  const parsedHeading = (markdown: string): string => {
    const tokens = new MarkdownIt('commonmark').parse(markdown, {});
    return tokens[1]?.type === 'inline' ? tokens[1].content.replace(/\\#/g, '#') : '';
  };
  it('escapes a trailing run of # that CommonMark would take as the closing sequence', () => {
    expect(md('<h1>#</h1>')).toBe('# \\#');
    expect(md('<h1>Heading #</h1>')).toBe('# Heading \\#');
    expect(md('<h2>Heading ##</h2>')).toBe('## Heading #\\#');
    for (const text of ['#', 'Heading #', 'Heading ##', '# Heading #']) expect(parsedHeading(md(`<h1>${text}</h1>`))).toBe(text);
  });
  it('leaves a # that is no closing sequence', () => {
    expect(md('<h2>C#</h2>')).toBe('## C#');
    expect(md('<h2>Issue #12</h2>')).toBe('## Issue #12');
  });
});
