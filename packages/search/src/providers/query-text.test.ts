import { describe, expect, it } from '@jest/globals';
import { freshnessOf } from './brave.js';
import { targetOf } from './duckduckgo-html.js';
import { dateFilterOf, regionOf } from './duckduckgo.js';
import { categoryOf, queryWithOperators, timeWindowOf } from './query-text.js';

describe('search query text', () => {
  it('reads tbs', () => {
    expect(timeWindowOf('qdr:d')).toEqual({ kind: 'past', unit: 'd' });
    expect(timeWindowOf('cdr:1,cd_min:3/4/2024,cd_max:')).toEqual({ kind: 'range', from: '2024-03-04', to: '2100-12-31' });
    expect(timeWindowOf('sbd:1')).toBeUndefined();
    expect(timeWindowOf(undefined)).toBeUndefined();
    expect(freshnessOf('qdr:y')).toBe('py');
    expect(dateFilterOf('qdr:h')).toBe('d');
  });

  it('builds operators for domains and categories', () => {
    expect(queryWithOperators({ query: ' q ', categories: ['github', 'pdf'], excludeDomains: ['x.com'] })).toBe('q site:github.com filetype:pdf -site:x.com');
    expect(categoryOf('https://docs.github.com/a', ['github'])).toBe('github');
    expect(categoryOf('https://x.org/a.PDF', ['pdf'])).toBe('pdf');
    expect(categoryOf('https://x.org/a', ['pdf'])).toBeUndefined();
  });

  it('maps country and language to DuckDuckGo regions', () => {
    expect(regionOf('us', undefined)).toBe('us-en');
    expect(regionOf('ch', 'fr')).toBe('ch-fr');
    expect(regionOf('ch', 'en')).toBe('ch-de');
    expect(regionOf('zz', 'en')).toBeUndefined();
    expect(regionOf(undefined, 'en')).toBeUndefined();
  });

  it('decodes DuckDuckGo redirect links and drops ad links', () => {
    expect(targetOf('//duckduckgo.com/l/?uddg=https%3A%2F%2Fa.example%2Fp%3Fx%3D1%26y%3D2&rut=abc')).toBe('https://a.example/p?x=1&y=2');
    expect(targetOf('https://duckduckgo.com/y.js?ad_domain=ads.example')).toBeUndefined();
    expect(targetOf('https://b.example/')).toBe('https://b.example/');
    expect(targetOf('javascript:alert(1)')).toBeUndefined();
  });
});
