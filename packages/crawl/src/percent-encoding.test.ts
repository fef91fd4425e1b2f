import { describe, expect, it } from '@jest/globals';
import { encodeForComparison, normalizePercentEncoding } from './percent-encoding.js';

describe('normalizePercentEncoding', () => {
  it.each([
    ['/caf%c3%a9', '/caf%C3%A9'],
    ['/%7Euser/%41%62%2d%5f%2E', '/~user/Ab-_.'],
    ['/a%2fb%3F%23%2b%25', '/a%2Fb%3F%23%2B%25'],
    ['/100%', '/100%'],
    ['/%zz%4', '/%zz%4'],
    ['/plain', '/plain'],
  ])('%s -> %s', (input, expected) => {
    expect(normalizePercentEncoding(input)).toBe(expected);
  });
});

describe('encodeForComparison', () => {
  it('encodes non-ASCII and unsafe characters as UTF-8, then normalises', () => {
    expect(encodeForComparison('/café dé')).toBe('/caf%C3%A9%20d%C3%A9');
    expect(encodeForComparison('/caf%c3%a9')).toBe('/caf%C3%A9');
    expect(encodeForComparison('/a"<>`{}|')).toBe('/a%22%3C%3E%60%7B%7D|');
    expect(encodeForComparison('/😀')).toBe('/%F0%9F%98%80');
    expect(encodeForComparison('/\uD800x')).toBe('/%EF%BF%BDx');
  });

  it('leaves robots.txt wildcards alone', () => {
    expect(encodeForComparison('/*.php$')).toBe('/*.php$');
  });
});
