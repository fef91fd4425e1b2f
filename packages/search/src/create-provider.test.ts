import { describe, expect, it } from '@jest/globals';
import { createSearchProvider, type SearchProviderSettings } from './create-provider.js';

const base: SearchProviderSettings = { provider: 'duckduckgo', duckduckgo: { baseUrl: 'https://html.duckduckgo.com', ratePerMin: 20 }, timeoutMs: 10_000 };

describe('createSearchProvider', () => {
  it('builds the provider the settings name, none for `none`', () => {
    expect(createSearchProvider(base)?.name).toBe('duckduckgo');
    expect(createSearchProvider({ ...base, provider: 'searxng', searxng: { baseUrl: 'http://searxng:8080', engines: [], categories: [] } })?.name).toBe('searxng');
    expect(createSearchProvider({ ...base, provider: 'brave', brave: { apiKey: 'k', baseUrl: 'https://api.search.brave.com/res/v1' } })?.name).toBe('brave');
    expect(createSearchProvider({ ...base, provider: 'none' })).toBeUndefined();
  });

  it('refuses a named provider without its setting', () => {
    expect(() => createSearchProvider({ ...base, provider: 'searxng' })).toThrow(/TRAWL_SEARXNG_URL/);
    expect(() => createSearchProvider({ ...base, provider: 'brave' })).toThrow(/TRAWL_BRAVE_API_KEY/);
  });
});
