import { describe, expect, it } from '@jest/globals';
import { metaKeys } from './index.js';

describe('metaKeys', () => {
  it('maps og and Dublin Core to camelCase', () => {
    expect(metaKeys('og:title')).toEqual(['ogTitle']);
    expect(metaKeys('OG:Site_Name')).toEqual(['ogSiteName']);
    expect(metaKeys('og:image:secure_url')).toEqual(['ogImageSecureUrl']);
    expect(metaKeys('DC.Title')).toEqual(['dcTitle']);
    expect(metaKeys('dcterms.created')).toEqual(['dcTermsCreated']);
  });
  it('keeps other names and adds Firecrawl article aliases', () => {
    expect(metaKeys('twitter:card')).toEqual(['twitter:card']);
    expect(metaKeys('article:tag')).toEqual(['article:tag', 'articleTag']);
  });
  it('drops prototype keys, reserved fields and empty names', () => {
    expect(metaKeys('__proto__')).toEqual([]);
    expect(metaKeys('prototype')).toEqual([]);
    expect(metaKeys('title')).toEqual([]);
    expect(metaKeys('statusCode')).toEqual([]);
    expect(metaKeys('  ')).toEqual([]);
    expect(metaKeys('og:locale:alternate')).toEqual(['ogLocaleAlternate']);
  });
});
