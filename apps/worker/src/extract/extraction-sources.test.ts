import { describe, expect, it } from '@jest/globals';
import { extractionSources, isEmptyValue } from './extraction-sources.js';

const a = 'https://a.test/';
const b = 'https://a.test/b';
const c = 'https://a.test/c';

describe('extractionSources', () => {
  it('maps scalar fields to the pages that gave the merged value, objects to the pages that gave one', () => {
    const pages = [
      { url: a, value: { name: 'Acme', founded: null, address: { city: 'Paris' } } },
      { url: b, value: { name: 'Acme', founded: 1999, address: {} } },
      { url: c, value: { name: 'ACME Inc', founded: 1999 } },
    ];
    const merged = { name: 'Acme', founded: 1999, address: { city: 'Paris' }, missing: null };
    expect(extractionSources(pages, merged)).toEqual({ name: [a, b], founded: [b, c], address: [a] });
  });

  it('maps array fields to the pages that gave items, and each item to the pages that gave it', () => {
    const pages = [
      { url: a, value: { products: [{ n: 'x' }, { n: 'y' }] } },
      { url: b, value: { products: [] } },
      { url: c, value: { products: [{ n: 'y' }, { n: 'z' }] } },
    ];
    const merged = { products: [{ n: 'x' }, { n: 'y' }, { n: 'z' }] };
    expect(extractionSources(pages, merged)).toEqual({
      products: [a, c],
      'products[0]': [a],
      'products[1]': [a, c],
      'products[2]': [c],
    });
  });

  it('falls back to every page with a value when none gave the merged scalar exactly (a reduce rewrote it)', () => {
    const pages = [{ url: a, value: { title: 'One' } }, { url: b, value: { title: 'Two' } }, { url: c, value: {} }];
    expect(extractionSources(pages, { title: 'One or two' })).toEqual({ title: [a, b] });
  });

  it('keys the items of a top-level array result by index', () => {
    const pages = [{ url: a, value: ['x', 'y'] }, { url: b, value: ['y'] }];
    expect(extractionSources(pages, ['x', 'y'])).toEqual({ '[0]': [a], '[1]': [a, b] });
  });

  it('lists a URL once even when two pages share it, and nothing for a scalar result', () => {
    const pages = [{ url: a, value: { k: 1 } }, { url: a, value: { k: 1 } }];
    expect(extractionSources(pages, { k: 1 })).toEqual({ k: [a] });
    expect(extractionSources(pages, 'text')).toEqual({});
  });
});

describe('isEmptyValue', () => {
  it('treats null, empty strings, arrays and objects as empty; 0 and false are values', () => {
    expect([null, undefined, '', [], {}].every(isEmptyValue)).toBe(true);
    expect([0, false, 'x', [0], { a: null }].some(isEmptyValue)).toBe(false);
  });
});
