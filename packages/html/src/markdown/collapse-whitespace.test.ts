import { describe, expect, it } from '@jest/globals';
import { parseDocument } from 'htmlparser2';
import type { AnyNode, Text } from 'domhandler';
import { collapseWhitespace } from './collapse-whitespace.js';

function texts(html: string): string[] {
  const doc = parseDocument(html);
  const map = collapseWhitespace(doc);
  const out: string[] = [];
  const walk = (n: AnyNode): void => {
    if (n.type === 'text') out.push(map.get(n as Text) ?? '<none>');
    if ('children' in n) n.children.forEach(walk);
  };
  walk(doc);
  return out;
}

describe('collapseWhitespace', () => {
  it('collapses runs and trims at block edges', () => {
    expect(texts('<p>  a \n\t b  </p>')).toEqual(['a b']);
  });
  it('drops a space that follows a space across inline elements', () => {
    expect(texts('<p>a <b> b</b> c</p>')).toEqual(['a ', 'b', ' c']);
  });
  it('trims before <br> and blocks', () => {
    expect(texts('<div>a <br> b <p>c</p> d</div>')).toEqual(['a', 'b', 'c', 'd']);
  });
  it('leaves <pre> alone and keeps spaces around images', () => {
    expect(texts('<pre>  x  </pre>')).toEqual(['<none>']);
    expect(texts('<p>a <img> b</p>')).toEqual(['a ', ' b']);
  });
  it('keeps non-breaking spaces', () => {
    expect(texts('<p>a\u00a0 b</p>')).toEqual(['a\u00a0 b']);
  });
});
