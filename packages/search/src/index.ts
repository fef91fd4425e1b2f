export {
  SearchProviderError,
  type SearchCategory, type SearchItems, type SearchProvider, type SearchProviderErrorKind, type SearchQuery, type SearchSource,
  type WebSearchItem, type NewsSearchItem, type ImageSearchItem,
} from './provider.js';
export { BraveProvider, type BraveOptions, type BraveSettings } from './providers/brave.js';
export { DuckDuckGoProvider, type DuckDuckGoOptions, type DuckDuckGoSettings } from './providers/duckduckgo.js';
