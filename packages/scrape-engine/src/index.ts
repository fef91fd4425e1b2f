export type { ContentKind, FetchRequest, FetchResult, FetchTimings, Fetcher } from './fetcher.js';
export { isBlockedAddress, type BlockedAddressResult } from './is-blocked-address.js';
export { SystemDnsResolver, type DnsResolver, type ResolvedAddress } from './dns-resolver.js';
export {
  TargetGuard,
  type GuardedAgentOptions,
  type GuardedConnectOptions,
  type TargetGuardOptions,
} from './target-guard.js';
export {
  decodeBytes,
  decodeText,
  normalizeCharsetLabel,
  sniffCharset,
  type CharsetSource,
  type SniffCharsetInput,
  type SniffedCharset,
} from './charset.js';
export { detectContentKind, type DetectContentKindInput, type DetectedContentKind } from './content-kind.js';
export { DEFAULT_USER_AGENT, HttpFetcher, type HttpFetcherOptions } from './http/http-fetcher.js';
export { parseProxyList, ProxyPools, redactProxyUrl, type ProxyEndpoint, type ProxyPick, type ProxyPoolsInit, type ProxyTier } from './proxy/proxy-pool.js';
export { EgressProxy, EgressRoute, egressContextProxy, type EgressProxyOptions, type EgressRefusal, type EgressStats } from './proxy/egress-proxy.js';
export {
  BrowserPool,
  CHROMIUM_ARGS,
  childBrowserPids,
  processTreeRss,
  type BrowserFlavor,
  type BrowserPoolEvent,
  type BrowserPoolOptions,
  type BrowserPoolStats,
} from './browser/browser-pool.js';
export {
  BrowserFetcher,
  cookiesFromHeader,
  type BrowserFetchRequest,
  type BrowserFetchResult,
  type BrowserFetcherOptions,
  type BrowserPlugin,
  type StorageState,
} from './browser/browser-fetcher.js';
export type { ActionOutputs, BrowserBinary } from './browser/page-actions.js';
export { buildEmulation, timezoneForCountry, localeForCountry, acceptLanguageFor, type Emulation } from './browser/emulation.js';
export { AdBlocker, BLOCKED_TRACKER_CATEGORIES, type AdBlockerAttachment, type AdBlockerStats } from './browser/blocking/ad-blocker.js';
export { attachConsentDismisser, loadConsentAssets, type ConsentAssets, type ConsentDismisser } from './browser/blocking/cookie-consent.js';
export { adBlockPlugin, cookieConsentPlugin } from './browser/browser-plugins.js';
export type {
  DocumentFormat, DocumentLimits, OcrEngine, PageLink, PageText, ParseDocumentOptions, ParsedDocument, TextRun,
} from './document/types.js';
export { detectDocumentFormat, parseDocument, type DocumentInput } from './document/parse-document.js';
export { TesseractOcrEngine, ocrEngineAvailable } from './document/ocr/index.js';
export { pagesToHtml } from './document/layout/index.js';
