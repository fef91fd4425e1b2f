import type { SearchProvider } from './provider.js';
import { SearxngProvider } from './providers/searxng.js';

/**
 * Resolved search settings (`searchSettingsOf` of `@trawl/config`, restated here: this package is a
 * leaf and imports no other workspace package).
 */
export interface SearchProviderSettings {
  provider: 'searxng' | 'brave' | 'duckduckgo' | 'none';
  searxng?: { baseUrl: string; engines: string[]; categories: string[] };
  brave?: { apiKey: string; baseUrl: string };
  duckduckgo: { baseUrl: string; ratePerMin: number };
  /** Time one provider request may take, ms. */
  timeoutMs: number;
}

/** Options every provider takes. */
export interface CreateProviderOptions {
  /** Default the global fetch (tests may pass their own). */
  fetch?: typeof fetch;
}

/**
 * The provider the settings name, or undefined when search is off (`none`) or the named provider is
 * not part of this build yet (`brave`, `duckduckgo`: their files land with their own change).
 * @throws Error when the named provider lacks its setting (`searchSettingsOf` already refuses that).
 */
export function createSearchProvider(settings: SearchProviderSettings, opts: CreateProviderOptions = {}): SearchProvider | undefined {
  const common = { timeoutMs: settings.timeoutMs, ...(opts.fetch ? { fetch: opts.fetch } : {}) };
  switch (settings.provider) {
    case 'none':
      return undefined;
    case 'searxng':
      if (!settings.searxng) throw new Error('TRAWL_SEARXNG_URL: the searxng search provider needs the URL of a SearXNG instance');
      return new SearxngProvider(settings.searxng, common);
    case 'brave':
    case 'duckduckgo':
      return undefined;
  }
}
