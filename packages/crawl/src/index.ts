export { CrawlScope, type CrawlScopeOptions, type ScopeCheck, type ScopeRejection } from './crawl-scope.js';
export { InvalidCrawlPatternError } from './invalid-crawl-pattern-error.js';
export { canonicalUrl, type CanonicalUrlOptions } from './canonical-url.js';
export { urlKey, type UrlKeyOptions } from './url-key.js';
export { MAX_URL_LENGTH } from './parse-http-url.js';
export {
  parseRobotsTxt,
  ALLOW_ALL_ROBOTS,
  MAX_ROBOTS_TXT_CHARS,
  type RobotsRules,
  type ParseRobotsTxtOptions,
} from './robots-txt.js';
export { parseSitemap, type ParsedSitemap, type SitemapUrl } from './parse-sitemap.js';
export { decodeSitemapBody, type DecodeSitemapBodyOptions } from './decode-sitemap-body.js';
export { SitemapTooLargeError } from './sitemap-too-large-error.js';
export { defaultSitemapUrls } from './default-sitemap-urls.js';
export { rankLinks } from './rank-links.js';
