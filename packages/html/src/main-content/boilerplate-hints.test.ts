import { describe, expect, it } from '@jest/globals';
import type { Element } from 'domhandler';
import { parseHtml } from '../dom/parse-html.js';
import { findFirstTag } from '../dom/dom-helpers.js';
import { hintOf } from './boilerplate-hints.js';

function firstDiv(html: string): Element {
  const div = findFirstTag(parseHtml(html), 'div');
  if (!div) throw new Error('no div');
  return div;
}

describe('hintOf', () => {
  it('reads role words in classes and ids', () => {
    expect(hintOf(firstDiv('<div class="share-bar"><a href="/x">Share</a></div>'))).toBe('negative');
    expect(hintOf(firstDiv('<div id="comments"></div>'))).toBe('comment');
    expect(hintOf(firstDiv('<div class="entry-content"></div>'))).toBe('positive');
  });

  it('ignores an id that is the slug of the section heading', () => {
    expect(hintOf(firstDiv('<div id="sharing-with-a-single-developer"><h2>Sharing with a single developer¶</h2></div>'))).toBe('none');
    expect(hintOf(firstDiv('<div id="sharing-with-a-single-developer" class="section"><h2>Sharing with a single developer</h2></div>'))).toBe('none');
  });

  it('reads the text of a heading nested 100,000 levels deep', () => {
    const depth = 100000;
    const html = '<div id="one-two-three-four"><h2>' + '<span>'.repeat(depth) + 'One two three four' + '</span>'.repeat(depth) + '</h2></div>';
    expect(hintOf(firstDiv(html))).toBe('none');
  });
  it('keeps a slug-like id that does not name the heading', () => {
    expect(hintOf(firstDiv('<div id="social-share-buttons-top"><h2>Share this page</h2></div>'))).toBe('negative');
    expect(hintOf(firstDiv('<div id="more-related-posts-list"><ul><li>News</li></ul></div>'))).toBe('negative');
  });
});
