import { describe, expect, it } from '@jest/globals';
import { urlKey } from './url-key.js';

const similar = { ignoreQueryParameters: false, deduplicateSimilarURLs: true };
const exact = { ignoreQueryParameters: false, deduplicateSimilarURLs: false };

describe('urlKey', () => {
  it('is the canonical URL when similar URLs are not deduplicated', () => {
    expect(urlKey('HTTPS://www.Example.com/docs/#top', exact)).toBe('https://www.example.com/docs/');
    expect(urlKey('http://example.com/docs', exact)).not.toBe(urlKey('https://example.com/docs', exact));
  });

  it('makes www/non-www, http/https, trailing slash and index pages one page', () => {
    const variants = [
      'https://example.com/docs',
      'http://example.com/docs/',
      'https://www.example.com/docs/',
      'http://www.example.com/docs/index.html',
      'https://example.com/docs/INDEX.HTM',
      'https://example.com/docs/index.php',
      'https://example.com/docs/default.aspx',
      'https://example.com./docs//',
      'https://example.com/docs#fragment',
    ];
    const keys = new Set(variants.map((v) => urlKey(v, similar)));
    expect([...keys]).toEqual(['example.com/docs']);
  });

  it('keeps the root distinct and recognisable', () => {
    expect(urlKey('https://www.example.com', similar)).toBe('example.com/');
    expect(urlKey('http://example.com/index.html', similar)).toBe('example.com/');
  });

  it('keeps what tells pages apart: path case, other pages, ports, queries', () => {
    expect(urlKey('https://example.com/Docs', similar)).not.toBe(urlKey('https://example.com/docs', similar));
    expect(urlKey('https://example.com/docs/index2.html', similar)).toBe('example.com/docs/index2.html');
    expect(urlKey('https://example.com:8080/a', similar)).toBe('example.com:8080/a');
    expect(urlKey('https://example.com/a/?page=2', similar)).toBe('example.com/a?page=2');
    expect(urlKey('https://example.com/a?page=2', similar)).not.toBe(urlKey('https://example.com/a?page=3', similar));
  });

  it('drops the query for ignoreQueryParameters, in both modes', () => {
    expect(urlKey('https://example.com/a?utm_source=x', { ...similar, ignoreQueryParameters: true })).toBe('example.com/a');
    expect(urlKey('https://example.com/a?utm_source=x', { ...exact, ignoreQueryParameters: true })).toBe('https://example.com/a');
  });

  it('normalises percent-encoding case and unreserved escapes', () => {
    const a = urlKey('https://example.com/caf%c3%a9/%7Euser', similar);
    expect(a).toBe('example.com/caf%C3%A9/~user');
    expect(urlKey('https://example.com/café/~user', similar)).toBe(a);
    expect(urlKey('https://example.com/caf%c3%a9/%7Euser', exact)).toBe('https://example.com/caf%C3%A9/~user');
  });

  it('does not treat a www-like label elsewhere as www', () => {
    expect(urlKey('https://www2.example.com/', similar)).toBe('www2.example.com/');
    expect(urlKey('https://shop.www.example.com/', similar)).toBe('shop.www.example.com/');
  });

  it('is null for what cannot be crawled', () => {
    expect(urlKey('mailto:a@example.com', similar)).toBeNull();
    expect(urlKey('not a url', similar)).toBeNull();
  });
});
