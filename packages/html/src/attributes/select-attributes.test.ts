import { describe, expect, it } from '@jest/globals';
import { selectAttributes } from './select-attributes.js';

const PAGE = `<html><head><base href="/docs/"></head><body>
<a class="nav" href="intro">Intro</a><a class="nav" href="https://other.example/x" data-id="7">Other</a>
<a class="nav">No href</a><a class="nav" href="mailto:a@example.com">Mail</a>
<img src="/img/a.png" alt="A"><img data-src="lazy.png"></body></html>`;

describe('selectAttributes', () => {
  it('returns the values per selector in document order, URL attributes absolute', () => {
    expect(selectAttributes(PAGE, 'https://site.example/page', [
      { selector: 'a.nav', attribute: 'href' },
      { selector: 'a', attribute: 'data-id' },
      { selector: 'img', attribute: 'SRC' },
      { selector: 'img', attribute: 'data-src' },
    ])).toEqual([
      { selector: 'a.nav', attribute: 'href', values: ['https://site.example/docs/intro', 'https://other.example/x', 'mailto:a@example.com'] },
      { selector: 'a', attribute: 'data-id', values: ['7'] },
      { selector: 'img', attribute: 'SRC', values: ['https://site.example/img/a.png'] },
      { selector: 'img', attribute: 'data-src', values: ['lazy.png'] },
    ]);
  });

  it('an invalid selector matches nothing without failing the others', () => {
    expect(selectAttributes(PAGE, 'https://site.example/', [{ selector: 'a[', attribute: 'href' }, { selector: 'img', attribute: 'alt' }]))
      .toEqual([{ selector: 'a[', attribute: 'href', values: [] }, { selector: 'img', attribute: 'alt', values: ['A'] }]);
  });
});
