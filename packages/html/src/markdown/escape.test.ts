import { describe, expect, it } from '@jest/globals';
import { resolvePlaceholders } from './emphasis.js';
import { escapeLinkDestination, escapeLinkTitle, escapeMarkdown as escapeRaw } from './escape.js';

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
  it('escapes titles', () => {
    expect(escapeLinkTitle('say "hi"')).toBe('say \\"hi\\"');
  });
});
