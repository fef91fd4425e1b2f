import { describe, expect, it } from '@jest/globals';
import { parseDocument } from 'htmlparser2';
import { buildMirror, MAX_MIRROR_DEPTH } from './build-mirror.js';
import type { MirrorElement, MirrorNode } from './mirror-node.js';

const mirror = (html: string): MirrorElement => buildMirror(parseDocument(html));

function texts(root: MirrorElement): string[] {
  const out: string[] = [];
  const walk = (n: MirrorNode): void => {
    if (n.nodeType === 3) out.push(n.data);
    else n.childNodes.forEach(walk);
  };
  walk(root);
  return out;
}

/** Tag structure of a mirror, e.g. `p(#,b(#))`. */
function shape(n: MirrorNode): string {
  if (n.nodeType === 3) return '#';
  const inner = n.childNodes.map(shape).join(',');
  return n.nodeType === 11 ? inner : `${n.tag}(${inner})`;
}

describe('buildMirror whitespace', () => {
  it('collapses runs and trims at block edges', () => {
    expect(texts(mirror('<p>  a \n\t b  </p>'))).toEqual(['a b']);
  });
  it('drops a space that follows a space across inline elements', () => {
    expect(texts(mirror('<p>a <b> b</b> c</p>'))).toEqual(['a ', 'b', ' c']);
  });
  it('trims before <br> and blocks', () => {
    expect(texts(mirror('<div>a <br> b <p>c</p> d</div>'))).toEqual(['a', 'b', 'c', 'd']);
  });
  it('keeps <pre> text raw (minus its first newline) and spaces around images', () => {
    expect(texts(mirror('<pre>\n  x  <b>y</b></pre>'))).toEqual(['  x  y']);
    expect(texts(mirror('<p>a <img> b</p>'))).toEqual(['a ', ' b']);
  });
  it('keeps non-breaking spaces', () => {
    expect(texts(mirror('<p>a\u00a0 b</p>'))).toEqual(['a\u00a0 b']);
  });
  it('merges text split by a comment without doubling a space (turndown does not collapse the mirror again)', () => {
    expect(texts(mirror('<p>a<img>\n<!-- c -->\nb</p>'))).toEqual(['a', ' b']);
  });
  it('gives turndown a root without firstChild, so that its whitespace pass skips the mirror', () => {
    const root = mirror('<p>a</p>');
    expect(root.firstChild).toBeNull();
    expect(root.childNodes).toHaveLength(1);
  });
});

describe('buildMirror structure', () => {
  it('leaves out non-content elements and unwraps elements that add no markdown', () => {
    expect(shape(mirror('<div><div><p>a <span>b <font>c</font></span></p><script>x</script></div></div>'))).toBe('p(#)');
    expect(texts(mirror('<p>a <span>b <font>c</font></span></p>'))).toEqual(['a b c']);
  });
  it('keeps a div that separates inline content', () => {
    expect(shape(mirror('<div>a<div>b</div></div>'))).toBe('div(#,div(#))');
  });
  it('answers getElementsByTagName from the tags below', () => {
    const root = mirror('<p><a href="x"><img src="y"></a></p>');
    expect(root.getElementsByTagName('IMG')).toHaveLength(1);
    expect(root.getElementsByTagName('TABLE')).toHaveLength(0);
    expect(root.getElementsByTagName('p')).toHaveLength(1);
  });
  it('caches textContent and drops the cache when text changes', () => {
    const root = mirror('<p>a<b>b</b></p>');
    expect(root.textContent).toBe('ab');
    const b = root.getElementsByTagName('b')[0] as MirrorElement;
    (b.firstChild as { data: string }).data = 'c';
    expect(root.textContent).toBe('ac');
    b.parentNode?.removeChild(b);
    expect(root.textContent).toBe('a');
  });
  it('stops mirroring elements past the depth limit but keeps their text', () => {
    const depth = MAX_MIRROR_DEPTH * 4;
    const root = mirror('<blockquote>'.repeat(depth) + '<a href="x">deep</a>' + '</blockquote>'.repeat(depth));
    let levels = 0;
    for (let n: MirrorNode | null = root; n !== null && n.nodeType !== 3; n = n.firstChild) levels++;
    expect(levels).toBeLessThanOrEqual(MAX_MIRROR_DEPTH + 2);
    expect(root.getElementsByTagName('a')).toHaveLength(1);
    expect(root.textContent).toBe('deep');
  });
});
