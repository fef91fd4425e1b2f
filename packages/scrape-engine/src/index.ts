/**
 * The engine core: the {@link Fetcher} contract every engine implements, the HTTP engine, the egress
 * proxy (the guarded way out of the browser engine), proxy pools, charset decoding and content-kind
 * sniffing. Loads no browser and no document reader: those are `@trawl/browser` and `@trawl/documents`,
 * which build on the helpers exported here.
 *
 * @packageDocumentation
 */
export type { ContentKind, FetchRequest, FetchResult, FetchTimings, Fetcher } from './fetcher.js';
export {
  decodeBytes,
  decodeText,
  normalizeCharsetLabel,
  sniffCharset,
  type CharsetSource,
  type SniffCharsetInput,
  type SniffedCharset,
} from './charset.js';
export { deferText, textHead, undecodedUtf8 } from './page-text.js';
export { detectContentKind, isPdf, type DetectContentKindInput, type DetectedContentKind } from './content-kind.js';
export { acceptLanguageFor, expandLanguages } from './accept-language.js';
export { DEFAULT_USER_AGENT, HttpFetcher, type HttpFetcherOptions } from './http/http-fetcher.js';
export { abortError } from './http/map-fetch-error.js';
export { parseContentType, type ParsedContentType } from './http/parse-content-type.js';
export { splitUrlCredentials, type UrlCredentials } from './url-credentials.js';
export { parseProxyList, ProxyPools, redactProxyUrl, type ProxyEndpoint, type ProxyPick, type ProxyPoolsInit, type ProxyTier } from './proxy/proxy-pool.js';
export { EGRESS_RETRYABLE_HEADER, EgressProxy, EgressRoute, type EgressProxyOptions, type EgressRefusal, type EgressStats } from './proxy/egress-proxy.js';
