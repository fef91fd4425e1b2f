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
