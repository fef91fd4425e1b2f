export {
  SearchProviderError,
  type SearchCategory, type SearchItems, type SearchProvider, type SearchProviderErrorKind, type SearchQuery, type SearchSource,
  type WebSearchItem, type NewsSearchItem, type ImageSearchItem,
} from './provider.js';
