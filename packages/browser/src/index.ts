/**
 * The browser engine: a Chromium pool with stealth, the {@link BrowserFetcher} (page actions, capture,
 * device and location emulation, smart waits), ad and tracker blocking and cookie-banner handling.
 * Every context connects through the core's egress proxy, so the target guard applies to each of the
 * browser's connections. Importing this package loads Playwright and the ad blocker: a process without
 * the browser role imports it lazily or not at all. Knows nothing of queues.
 *
 * @packageDocumentation
 */
export {
  BrowserPool,
  CHROMIUM_ARGS,
  HEADLESS_SHELL_PATH,
  POOL_DISABLED_FEATURES,
  POOL_FEATURE_ARGS,
  childBrowserPids,
  processTreeRss,
  processTreeMemory,
  processPss,
  type BrowserFlavor,
  type BrowserPoolEvent,
  type BrowserPoolOptions,
  type ContextLease,
  type ContextRequest,
  type BrowserPoolStats,
} from './browser-pool.js';
export {
  BrowserFetcher,
  cookiesFromHeader,
  type BrowserFetchRequest,
  type BrowserFetchResult,
  type BrowserFetcherOptions,
  type BrowserPlugin,
  type StorageState,
} from './browser-fetcher.js';
export type { ActionOutputs, BrowserBinary } from './page-actions.js';
export { buildEmulation, timezoneForCountry, localeForCountry, type Emulation } from './emulation.js';
export { egressContextProxy } from './egress-context-proxy.js';
export { AdBlocker, BLOCKED_TRACKER_CATEGORIES, type AdBlockerStats } from './blocking/ad-blocker.js';
export { attachConsentDismisser, loadConsentAssets, type ConsentAssets, type ConsentDismisser } from './blocking/cookie-consent.js';
export { adBlockPlugin, cookieConsentPlugin } from './browser-plugins.js';
