import { describe, expect, it } from '@jest/globals';
import type { AnyNode } from 'domhandler';
import { parseDocument } from 'htmlparser2';
import { buildDom } from './build-dom.js';

/** The tree as one string: node types, names, attributes in order, data; and broken sibling links. Iterative. */
function dump(root: AnyNode): string {
  const out: string[] = [];
  const stack: (AnyNode | string)[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode | string;
    if (typeof node === 'string') {
      out.push(node);
    } else if (node.type === 'text' || node.type === 'comment') {
      out.push(`${node.type}${JSON.stringify(node.data)}`);
    } else if (node.type === 'directive') {
      out.push(`directive${JSON.stringify([node.name, node.data])}`);
    } else if ('children' in node) {
      out.push('name' in node ? `${node.type}:${node.name}${JSON.stringify(Object.entries(node.attribs))}(` : `${node.type}(`);
      stack.push(')');
      const kids = node.children;
      kids.forEach((kid, i) => {
        if (kid.parent !== node || kid.prev !== (kids[i - 1] ?? null) || kid.next !== (kids[i + 1] ?? null)) out.push('!links');
      });
      for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i] as AnyNode);
    }
  }
  return out.join('');
}

const same = (html: string): void => expect(dump(buildDom(html))).toBe(dump(parseDocument(html)));

/** Deterministic pseudo-random numbers (mulberry32). */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Markup made of pieces that exercise the tokenizer's states, implied end tags and foreign content. */
function generate(rnd: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const tags = ['div', 'p', 'span', 'a', 'li', 'ul', 'table', 'tr', 'td', 'th', 'tbody', 'tfoot', 'body', 'head', 'script', 'style',
    'title', 'textarea', 'xmp', 'svg', 'math', 'path', 'mi', 'foreignObject', 'br', 'img', 'input', 'select', 'option', 'dd', 'rt',
    'h1', 'hr', 'DIV', 'Script', 'x-y', 'scripts'];
  const space = (): string => pick(['', ' ', '\n', '\t', '\r\n']);
  const attribute = (): string => {
    const name = pick(['class', 'id', 'HREF', '=x', '"q"', 'a/b', '__proto__', 'constructor', 'x']);
    const value = pick(['v', 'a b', '&amp;', '&amp', '&#65;', '&', '>', '/', '<', '=', '']);
    return pick([name, `${name}${space()}=${space()}"${value}"`, `${name}='${value}'`, `${name}=${value.replace(/[\s>]/g, '')}`, `${name}=`]);
  };
  const piece = (): string => {
    const r = rnd();
    if (r < 0.3) {
      const attrs = Array.from({ length: Math.floor(rnd() * 3) }, () => pick([' ', '\n', '']) + attribute()).join('');
      return `<${pick(tags)}${attrs}${space()}${pick(['>', '>', '/>', ' />', ''])}`;
    }
    if (r < 0.5) return `</${space()}${pick(tags)}${pick(['>', ' >', ' x>', '', '/>'])}`;
    if (r < 0.7) return pick(['text', 'a b', ' ', '\n', '<', '< ', '<3', '>', '"', '&amp;', '&#65;', '&', '&#', '&nbsp;', '&lt;']);
    if (r < 0.85) {
      return pick(['<!--', '-->', '<!-- c -->', '<!-->', '<!--->', '<!', '<!-', '<!->x>', '<!>', '<!DOCTYPE html>', '<![CDATA[',
        ']]>', '<![CDATA[x]]>', '<![CDAT', '<?', '<?xml a?>']);
    }
    return pick(['</', '</>', '</ >', '</3', '</3x>', '</br>', '</p>', '</img>', '</svg>', '</title', '<s', '<x', '<t', '<scrip',
      '<title>a<&amp;</&lt;', '<svg><path/><g/>', '<b/', '<b a/']);
  };
  return Array.from({ length: 1 + Math.floor(rnd() * 12) }, piece).join('');
}

describe('buildDom', () => {
  it.each([
    ['text merging around dropped end tags', 'a</span>b</>c</ >d</img>e'],
    ['implied end tags', '<p>a<div>b</div><ul><li>1<li>2</ul><table><tr><td>x<td>y<tr><th>z</table><select><option>o<option>p</select>'],
    ['unmatched </p> and </br>', '<div>x</p>y</br>z</div>'],
    ['raw text elements', '<script>if (a<b) {}</scripts></SCRIPT ><style>p>a{}</style ><title>a&amp;b</title><textarea>&amp;</textarea>'],
    ['comments, CDATA and declarations', '<!DOCTYPE html><!-- a -- b --><!---><!-->x<![CDATA[y]]><!x>z<?xml v?></3c>'],
    ['foreign content', '<svg><path d="M0"/><g/><foreignObject><div/>x</foreignObject></svg><svg/><div/>after'],
    ['attributes', '<a HREF="/x?a=1&amp;b=2" href=dup x=y/z e= f =g \'q\'=1 __proto__="p" constructor=c>t</a>'],
    ['markup cut off at the end', 'a<p>b<div/'],
    ['an end tag cut off at the end', 'a</div '],
    ['a raw text tag name cut off at the end', 'a<scri'],
    ['an unclosed comment', 'a<!-- b'],
    ['entities in text', 'a &amp b &notit; &#x41; &#65 &copy c &'],
  ])('builds what htmlparser2 builds: %s', (_name, html) => same(html));

  it('builds what htmlparser2 builds on generated markup', () => {
    const rnd = random(7);
    for (let i = 0; i < 3000; i++) same(generate(rnd));
  });

  it('leaves a legacy entity followed by a letter in an attribute as it is (as browsers do; htmlparser2 decodes it)', () => {
    const a = buildDom('<a href="/w?scode=2&ltid=3&amp;x=1">w</a>').children[0];
    expect(a?.type === 'tag' && a.attribs['href']).toBe('/w?scode=2&ltid=3&x=1');
  });

  it('builds a document nested 100,000 levels deep', () => {
    const depth = 100000;
    let node: AnyNode | undefined = buildDom('<div><span>'.repeat(depth) + 'x' + '</span></div>'.repeat(depth));
    let levels = 0;
    while (node !== undefined && 'children' in node && node.children.length > 0) {
      node = node.children[0];
      levels++;
    }
    expect(levels).toBe(2 * depth + 1);
  });
});
