export {
  SearchProviderError,
  type SearchCategory, type SearchItems, type SearchProvider, type SearchProviderErrorKind, type SearchQuery, type SearchSource,
  type WebSearchItem, type NewsSearchItem, type ImageSearchItem,
} from './provider.js';
export { createSearchProvider, type CreateProviderOptions, type SearchProviderSettings } from './create-provider.js';
export { SearxngProvider, timeRangeOf, type SearxngProviderOptions, type SearxngSettings, type SearxngTimeRange } from './providers/searxng.js';
