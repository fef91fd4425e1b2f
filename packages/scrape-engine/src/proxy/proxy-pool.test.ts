import { describe, expect, it } from '@jest/globals';
import { parseProxyList, ProxyPools, redactProxyUrl, type ProxyEndpoint } from './proxy-pool.js';

const hosts = (list: (ProxyEndpoint | null)[]): (string | null)[] => list.map((e) => e?.url.host ?? null);

describe('parseProxyList', () => {
  it('reads an empty or blank value as no proxy', () => {
    expect(parseProxyList('')).toEqual([]);
    expect(parseProxyList(' ,\n\t, ')).toEqual([]);
  });

  it('splits on commas and white space and reads countries and credentials', () => {
    const list = parseProxyList('http://a:1, US=http://user:p%40ss@b:2\nde=https://c:3  http://d');
    expect(list.map((e) => [e.country, e.url.href])).toEqual([
      [undefined, 'http://a:1/'],
      ['US', 'http://user:p%40ss@b:2/'],
      ['DE', 'https://c:3/'],
      [undefined, 'http://d/'],
    ]);
    expect(list[1]?.url.username).toBe('user');
    expect(decodeURIComponent(list[1]?.url.password ?? '')).toBe('p@ss');
    expect(list[0]).not.toHaveProperty('country');
  });

  it.each([
    ['not a URL', 'http://ok:1,nonsense', /proxy entry 2 \("nonsense"\) is not a URL/],
    ['an unsupported scheme', 'ftp://host:21', /entry 1 \("ftp:\/\/host:21"\) has the unsupported scheme "ftp:"/],
    ['socks (not supported yet)', 'socks5://host:1080', /unsupported scheme "socks5:"/],
    ['a path', 'http://host:1/path', /has a path, query or fragment/],
    ['a query', 'http://host:1?x=1', /has a path, query or fragment/],
    ['a password without user', 'http://:secret@host:1', /password but no user name/],
    ['a bad country prefix', 'USA=http://host:1', /entry 1 \("USA=http:\/\/host:1"\) is not a URL/],
  ])('rejects %s, naming the entry', (_label, value, message) => {
    expect(() => parseProxyList(value)).toThrow(message);
  });

  it('masks the password of a bad entry in the message', () => {
    expect(() => parseProxyList('http://user:hunter2@host:1/x')).toThrow('("http://user:***@host:1/x")');
    expect(() => parseProxyList('http://user:hunter2@host:1/x')).not.toThrow(/hunter2/);
  });
});

describe('redactProxyUrl', () => {
  it('masks the password and keeps the rest', () => {
    expect(redactProxyUrl(new URL('http://user:pw@h:8080'))).toBe('http://user:***@h:8080');
    expect(redactProxyUrl(new URL('https://h'))).toBe('https://h');
  });
});

describe('ProxyPools', () => {
  const pools = (basic: string, enhanced = ''): ProxyPools =>
    new ProxyPools({ basic: parseProxyList(basic), enhanced: parseProxyList(enhanced) });

  it('returns null (direct) for an empty tier', () => {
    const p = pools('http://b1:1');
    expect(p.pick({ tier: 'enhanced' })).toBeNull();
    expect(p.pick({ tier: 'enhanced', country: 'US' })).toBeNull();
    expect(p.has('enhanced')).toBe(false);
    expect(new ProxyPools().pick({ tier: 'basic' })).toBeNull();
  });

  it('rotates round-robin within a tier', () => {
    const p = pools('http://b1:1 http://b2:1 http://b3:1', 'http://e1:1');
    const picks = [1, 2, 3, 4].map(() => p.pick({ tier: 'basic' }));
    expect(hosts(picks)).toEqual(['b1:1', 'b2:1', 'b3:1', 'b1:1']);
    expect(hosts([p.pick({ tier: 'enhanced' })])).toEqual(['e1:1']);
  });

  it('prefers the requested country (any case), then a country-less endpoint, then any', () => {
    const p = pools('US=http://us1:1 http://g1:1 us=http://us2:1 DE=http://de1:1 http://g2:1');
    expect(hosts([1, 2, 3].map(() => p.pick({ tier: 'basic', country: 'us' })))).toEqual(['us1:1', 'us2:1', 'us1:1']);
    expect(hosts([p.pick({ tier: 'basic', country: 'DE' })])).toEqual(['de1:1']);
    expect(hosts([1, 2, 3].map(() => p.pick({ tier: 'basic', country: 'FR' })))).toEqual(['g1:1', 'g2:1', 'g1:1']);
    // No country asked: the general-purpose endpoints, not the country-specific ones.
    expect(hosts([p.pick({ tier: 'basic' })])).toEqual(['g2:1']);
    const onlyCountries = pools('US=http://us1:1 DE=http://de1:1');
    expect(hosts([1, 2].map(() => onlyCountries.pick({ tier: 'basic', country: 'FR' })))).toEqual(['us1:1', 'de1:1']);
    // The same fallback list keeps one rotation, whatever country was asked.
    expect(hosts([onlyCountries.pick({ tier: 'basic' })])).toEqual(['us1:1']);
  });

  it('describes the pools without credentials', () => {
    const p = pools('US=http://user:secret@b1:1', 'https://e1:443');
    expect(p.describe()).toEqual({ basic: ['US=http://user:***@b1:1'], enhanced: ['https://e1'] });
    expect(JSON.stringify(p.describe())).not.toContain('secret');
  });
});
