import { describe, expect, it } from '@jest/globals';
import { parseDocument } from 'htmlparser2';
import { extractLinks } from './index.js';

describe('extractLinks', () => {
  it('returns absolute, deduplicated http(s) and mailto links in document order', () => {
    const html = `<a href="/b">b</a><a href="https://other.com/x#frag">x</a><a href="/b">again</a>
      <a href="#top">top</a><a href="javascript:void(0)">js</a><a href="mailto:a@b.c">mail</a>
      <a href="tel:+123">tel</a><a href="data:text/html,x">data</a><a>none</a><a href="  rel/c  ">c</a>
      <map><area href="/area"></map><a href="http://[bad">bad</a>`;
    expect(extractLinks(parseDocument(html), 'https://ex.com/dir/page')).toEqual([
      'https://ex.com/b',
      'https://other.com/x#frag',
      'mailto:a@b.c',
      'https://ex.com/dir/rel/c',
      'https://ex.com/area',
    ]);
  });

  it('respects <base href>', () => {
    const html = '<head><base href="/root/"></head><a href="x">x</a>';
    expect(extractLinks(parseDocument(html), 'https://ex.com/a/b')).toEqual(['https://ex.com/root/x']);
  });

  it('ignores links inside templates and scripts', () => {
    expect(extractLinks(parseDocument('<template><a href="/t">t</a></template><script>"<a href=/s>"</script>'), 'https://ex.com/')).toEqual([]);
  });
});
