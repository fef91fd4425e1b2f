/**
 * LangChain JS's FireCrawlLoader, resolved from this package: its `@mendable/firecrawl-js` peer is the
 * 1.x SDK installed here (the loader speaks the v1 API), while the repository root keeps the 4.x SDK.
 */
export { FireCrawlLoader } from '@langchain/community/document_loaders/web/firecrawl';
