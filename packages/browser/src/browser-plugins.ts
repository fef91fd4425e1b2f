import type { AdBlocker } from './blocking/ad-blocker.js';
import { attachConsentDismisser, type ConsentAssets } from './blocking/cookie-consent.js';
import type { BrowserPlugin } from './browser-fetcher.js';

/** `blockAds`: ad and tracker requests failed by the filter engine (the fetcher intercepts the page's requests). */
export function adBlockPlugin(blocker: AdBlocker): BrowserPlugin {
  return {
    name: 'adblock',
    enabled: (req) => req.blockAds !== false,
    attach: () => Promise.resolve({ requestBlocker: blocker }),
  };
}

/** `blockAds`: cookie banners refused (or acknowledged) before capture, within the capture budget. */
export function cookieConsentPlugin(assets: ConsentAssets, onError?: (err: unknown) => void): BrowserPlugin {
  return {
    name: 'cookie-consent',
    enabled: (req) => req.blockAds !== false,
    async attach(context) {
      const dismisser = await attachConsentDismisser(context, { assets, ...(onError ? { onError } : {}) });
      return {
        beforeNavigate(page, { screenshots }) {
          dismisser.prehide(page, screenshots);
        },
        async beforeCapture(page, { budgetMs, signal }) {
          // Called once the page settled: wait only for a detected CMP or a running opt-out.
          if (budgetMs > 0) await dismisser.waitForSettled(page, { timeoutMs: budgetMs, signal, searchQuietMs: 0 });
        },
      };
    },
  };
}
