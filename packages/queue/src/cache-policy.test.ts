import { describe, expect, it } from '@jest/globals';
import { scrapeRequestSchema } from '@trawl/api-schema';
import type { CachedPage } from './page-cache.js';
import { cacheKeyOf, cacheReadOf, derivableRequest, derivedOptionsHash, mayStore, parserSignature, unusableReason } from './cache-policy.js';

const req = (extra: Record<string, unknown> = {}) => scrapeRequestSchema.parse({ url: 'https://Example.com:443/a/./b?x=1#frag', ...extra });
const entry = (extra: Partial<CachedPage> = {}): CachedPage => ({
  kind: 'page', url: 'https://example.com/a/b?x=1', statusCode: 200, contentType: 'text/html', contentKind: 'html', cachedAt: 1_000_000,
  engine: 'http', proxyUsed: 'basic', body: '<p>x</p>', ...extra,
});

describe('cacheReadOf', () => {
  it('serves within maxAge by default, cache-only for lockdown and minAge', () => {
    expect(cacheReadOf(req())).toEqual({ mode: 'fresh', maxAgeMs: 172_800_000 });
    expect(cacheReadOf(req({ lockdown: true }))).toMatchObject({ mode: 'only', reason: 'lockdown', maxAgeMs: 63_072_000_000 });
    expect(cacheReadOf(req({ minAge: 5000 }))).toMatchObject({ mode: 'only', reason: 'minAge', minAgeMs: 5000 });
  });
  it('does not read for maxAge 0, sensitive requests or change tracking', () => {
    expect(cacheReadOf(req({ maxAge: 0 })).mode).toBe('off');
    expect(cacheReadOf(req({ headers: { cookie: 'a' } })).mode).toBe('off');
    expect(cacheReadOf(req({ profile: { name: 'p' } })).mode).toBe('off');
    expect(cacheReadOf(req({ formats: ['changeTracking'] })).mode).toBe('off');
  });
  it('neither reads nor stores a page fetched with credentials from the URL', () => {
    const withCredentials = scrapeRequestSchema.parse({ url: 'https://user:secret@example.com/a' });
    expect(cacheReadOf(withCredentials).mode).toBe('off');
    expect(mayStore(withCredentials, 200)).toBe(false);
  });
});

describe('cacheKeyOf', () => {
  it('is the same for equivalent URLs and post-fetch options, different for what changes the fetch', () => {
    const base = cacheKeyOf(req());
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    expect(cacheKeyOf(scrapeRequestSchema.parse({ url: 'https://example.com/a/b?x=1' }))).toBe(base);
    expect(cacheKeyOf(req({ onlyMainContent: false, includeTags: ['p'], formats: ['html'] }))).toBe(base);
    for (const other of [{ mobile: true }, { location: { country: 'DE' } }, { location: { country: 'US', languages: ['de'] } }, { waitFor: 100 }, { blockAds: false }, { skipTlsVerification: false }]) {
      expect(cacheKeyOf(req(other))).not.toBe(base);
    }
    expect(cacheKeyOf(scrapeRequestSchema.parse({ url: 'https://example.com/a/b?x=2' }))).not.toBe(base);
    expect(cacheKeyOf(req(), 'team-1')).not.toBe(base);
  });
  it('treats location.languages as a set: order and duplicates do not change the key', () => {
    const key = (languages: string[]) => cacheKeyOf(req({ location: { country: 'DE', languages } }));
    expect(key(['en', 'de'])).toBe(key(['de', 'en']));
    expect(key(['de', 'en', 'de'])).toBe(key(['de', 'en']));
    expect(key(['de'])).not.toBe(key(['de', 'en']));
  });
});

describe('unusableReason', () => {
  const fresh = { mode: 'fresh' as const, maxAgeMs: 1000 };
  it('checks age, minAge, parser settings and screenshot options', () => {
    expect(unusableReason(entry(), req(), fresh, 1_000_500)).toBeNull();
    expect(unusableReason(entry(), req(), fresh, 1_002_000)).toBe('too-old');
    expect(unusableReason(entry(), req(), { mode: 'only', reason: 'minAge', maxAgeMs: Infinity, minAgeMs: 5000 }, 1_001_000)).toBe('too-young');
    const doc = entry({ kind: 'document', document: { format: 'pdf', parser: 'pdf:auto:all', numPages: 1, metadata: {}, warnings: [] } });
    expect(unusableReason(doc, req(), fresh, 1_000_000)).toBeNull();
    expect(unusableReason(doc, req({ parsers: [{ type: 'pdf', mode: 'fast' }] }), fresh, 1_000_000)).toBe('other-parser');
    const shot = req({ formats: [{ type: 'screenshot', fullPage: true }] });
    expect(unusableReason(entry(), shot, fresh, 1_000_000)).toBe('no-screenshot');
    const withShot = entry({ screenshot: { data: Buffer.from('x'), contentType: 'image/png', fullPage: true } });
    expect(unusableReason(withShot, shot, fresh, 1_000_000)).toBeNull();
    expect(unusableReason(withShot, req({ formats: [{ type: 'screenshot' }] }), fresh, 1_000_000)).toBe('no-screenshot');
  });
  it('never answers an enhanced request with a page fetched by a basic attempt', () => {
    const enhanced = req({ proxy: 'enhanced' });
    expect(unusableReason(entry({ proxyUsed: 'basic' }), enhanced, fresh, 1_000_000)).toBe('basic-fetch');
    expect(unusableReason(entry({ proxyUsed: 'enhanced' }), enhanced, fresh, 1_000_000)).toBeNull();
    expect(unusableReason(entry({ proxyUsed: 'enhanced' }), req({ proxy: 'basic' }), fresh, 1_000_000)).toBeNull();
    expect(unusableReason(entry({ proxyUsed: 'basic' }), req({ proxy: 'auto' }), fresh, 1_000_000)).toBeNull();
  });
  it('names parser settings and stores 2xx pages the request allows to keep', () => {
    expect(parserSignature(req({ parsers: [{ type: 'pdf', mode: 'ocr', maxPages: 3 }] }))).toBe('pdf:ocr:3');
    expect(parserSignature(req({ parsers: [] }))).toBe('raw');
    expect(mayStore(req(), 200)).toBe(true);
    expect(mayStore(req(), 404)).toBe(false);
    expect(mayStore(req({ storeInCache: false }), 200)).toBe(false);
    expect(mayStore(req({ zeroDataRetention: true }), 200)).toBe(false);
  });
});

describe('derived entries (answered at the gateway)', () => {
  it('are for cache readers asking only for formats the HTML pipeline derives, without retention limits or LLM work', () => {
    expect(derivableRequest(req())).toBe(true);
    expect(derivableRequest(req({ formats: ['markdown', 'html', 'rawHtml', 'links', 'images'], minAge: 1000 }))).toBe(true);
    expect(derivableRequest(req({ maxAge: 0 }))).toBe(false);
    expect(derivableRequest(req({ zeroDataRetention: true }))).toBe(false);
    expect(derivableRequest(req({ lockdown: true }))).toBe(false);
    expect(derivableRequest(req({ headers: { cookie: 'a' } }))).toBe(false);
    expect(derivableRequest(req({ formats: ['markdown', 'changeTracking'] }))).toBe(false);
    expect(derivableRequest(req({ formats: ['markdown', 'screenshot'] }))).toBe(false);
    expect(derivableRequest(req({ formats: ['summary'] }))).toBe(false);
    expect(derivableRequest(req({ onlyCleanContent: true }))).toBe(false);
    expect(derivableRequest(req({ redactPII: true }))).toBe(false);
  });
  it('hash every option that shapes the formats, and none of the cache controls', () => {
    const base = derivedOptionsHash(req());
    expect(base).toMatch(/^[0-9a-f]{32}$/);
    expect(derivedOptionsHash(req({ maxAge: 5, timeout: 9000, storeInCache: false, origin: 'sdk', url: 'https://other.example/' }))).toBe(base);
    for (const other of [{ onlyMainContent: false }, { includeTags: ['main'] }, { excludeTags: ['nav'] }, { removeBase64Images: false },
      { formats: ['html'] }, { formats: ['markdown', 'links'] }, { parsers: [] }, { proxy: 'basic' }]) {
      expect(derivedOptionsHash(req(other))).not.toBe(base);
    }
  });
});
