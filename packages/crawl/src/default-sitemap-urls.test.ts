import { describe, expect, it } from '@jest/globals';
import { defaultSitemapUrls } from './default-sitemap-urls.js';

describe('defaultSitemapUrls', () => {
  it('lists the usual locations on the seed origin', () => {
    expect(defaultSitemapUrls('https://Example.com:8443/docs/intro?x=1#y')).toEqual([
      'https://example.com:8443/sitemap.xml',
      'https://example.com:8443/sitemap_index.xml',
      'https://example.com:8443/sitemap-index.xml',
      'https://example.com:8443/sitemap.xml.gz',
    ]);
  });

  it('keeps the scheme and drops a default port', () => {
    expect(defaultSitemapUrls('http://www.example.com:80/')[0]).toBe('http://www.example.com/sitemap.xml');
  });

  it('is empty for a seed that is not an absolute http(s) URL', () => {
    expect(defaultSitemapUrls('ftp://example.com/')).toEqual([]);
    expect(defaultSitemapUrls('example.com')).toEqual([]);
  });
});
