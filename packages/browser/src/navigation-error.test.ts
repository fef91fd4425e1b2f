import { describe, expect, it } from '@jest/globals';
import { mapNavigationError } from './navigation-error.js';

describe('mapNavigationError', () => {
  it('names a renderer that died under the navigation as the page\'s crash, whichever event came first', () => {
    expect(mapNavigationError(new Error('page.goto: Navigation failed because page crashed!'), 10_000).code).toBe('SCRAPE_PAGE_CRASHED');
    expect(mapNavigationError(new Error('page.goto: Target crashed'), 10_000).code).toBe('SCRAPE_PAGE_CRASHED');
  });

  it('maps network errors, timeouts and a closed browser to their codes', () => {
    expect(mapNavigationError(new Error('page.goto: net::ERR_NAME_NOT_RESOLVED at https://x.invalid/'), 10_000).code).toBe('SCRAPE_DNS_RESOLUTION_ERROR');
    expect(mapNavigationError(Object.assign(new Error('Timeout 30000ms exceeded'), { name: 'TimeoutError' }), 10_000).code).toBe('SCRAPE_TIMEOUT');
    expect(mapNavigationError(new Error('page.goto: Target page, context or browser has been closed'), 10_000).code).toBe('SCRAPE_BROWSER_CRASHED');
    expect(mapNavigationError(new Error('something else'), 10_000).code).toBe('SCRAPE_FAILED');
  });
});
