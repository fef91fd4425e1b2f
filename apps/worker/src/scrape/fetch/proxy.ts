import type { ScrapeRequest } from '@trawl/api-schema';
import type { ProxyPools, ProxyTier } from '@trawl/scrape-engine';

/** The proxy of a tier for a request (its country, when it asks for one), as fetch options. */
export function proxyFor(proxies: ProxyPools, tier: ProxyTier, request: ScrapeRequest) {
  const proxy = proxies.pick({ tier, ...(request.location?.country ? { country: request.location.country } : {}) });
  return proxy ? { proxy } : {};
}
