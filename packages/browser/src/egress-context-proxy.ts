/**
 * Playwright `proxy` settings of a browser context for an egress route URL. `<-loopback>` removes
 * Chromium's implicit loopback bypass: without it, 127.0.0.0/8 and localhost would be fetched directly,
 * around the egress and its guard (Playwright adds it on its own unless the bypass list names a
 * loopback host or PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK is set; stating it does not
 * depend on that). A launch-level `--proxy-bypass-list` does not apply to per-context proxies.
 */
export function egressContextProxy(routeUrl: string): { server: string; bypass: string } {
  return { server: routeUrl, bypass: '<-loopback>' };
}
