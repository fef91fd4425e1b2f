import { TrawlError } from '@trawl/api-schema';

/** Chromium network error names (`net::ERR_...`) by the code they map to. */
const NET_ERRORS: ReadonlyArray<[RegExp, (net: string) => TrawlError]> = [
  [/^ERR_NAME_NOT_RESOLVED$|^ERR_NAME_RESOLUTION_FAILED$/, () => new TrawlError('SCRAPE_DNS_RESOLUTION_ERROR', 'The target host name could not be resolved.')],
  [/^ERR_CONNECTION_(REFUSED|RESET|CLOSED|FAILED)$|^ERR_EMPTY_RESPONSE$|^ERR_ADDRESS_UNREACHABLE$/, () =>
    new TrawlError('SCRAPE_CONNECTION_REFUSED', 'The target refused or reset the connection.', { retryable: true })],
  [/^ERR_CERT_|^ERR_SSL_|^ERR_BAD_SSL_CLIENT_AUTH_CERT$/, () => new TrawlError('SCRAPE_TLS_ERROR', 'The TLS handshake with the target failed (certificate checks are on).')],
  [/^ERR_TOO_MANY_REDIRECTS$/, () => new TrawlError('SCRAPE_TOO_MANY_REDIRECTS', 'The target redirected too many times, or in a loop.')],
  [/^ERR_TIMED_OUT$|^ERR_CONNECTION_TIMED_OUT$/, () => new TrawlError('SCRAPE_TIMEOUT', 'The target did not answer in time.')],
  [/^ERR_TUNNEL_CONNECTION_FAILED$|^ERR_PROXY_/, () =>
    new TrawlError('SCRAPE_BLOCKED_TARGET', 'The connection was refused by the egress proxy: a blocked target or a failing upstream proxy.')],
  [/^ERR_INVALID_URL$|^ERR_UNSAFE_PORT$|^ERR_DISALLOWED_URL_SCHEME$/, () => new TrawlError('SCRAPE_INVALID_URL', 'The URL cannot be opened.')],
];

/** The page's renderer died (out of memory, or killed past the pool's cap): the job's error. */
export function pageCrashedError(cause?: unknown): TrawlError {
  return new TrawlError('SCRAPE_PAGE_CRASHED', 'The page crashed (out of memory, or stopped past the memory limit)', cause === undefined ? {} : { cause });
}

/** Maps an error of `page.goto` to a TrawlError with a code. */
export function mapNavigationError(err: unknown, remainingMs: number): TrawlError {
  if (err instanceof TrawlError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const net = /net::(ERR_[A-Z_]+)/.exec(message)?.[1];
  if (net) {
    for (const [re, make] of NET_ERRORS) {
      if (re.test(net)) {
        const e = make(net);
        return new TrawlError(e.code, e.message, { retryable: e.retryable, details: { netError: net }, cause: err });
      }
    }
  }
  if ((err as { name?: string }).name === 'TimeoutError' || remainingMs <= 0) {
    return new TrawlError('SCRAPE_TIMEOUT', 'The page did not load within the timeout.', { cause: err });
  }
  // The renderer died under the navigation (out of memory, or killed past the pool's cap): the page's
  // `crash` event can come after this rejection, so the message says it too.
  if (/Navigation failed because page crashed|Page crashed|Target crashed/i.test(message)) return pageCrashedError(err);
  if (/Target (page, context or browser )?closed|Browser has been closed/i.test(message)) {
    return new TrawlError('SCRAPE_BROWSER_CRASHED', 'The browser closed during navigation.', { retryable: true, cause: err });
  }
  return new TrawlError('SCRAPE_FAILED', `The browser could not load the page: ${message.split('\n')[0] ?? ''}`, {
    details: net ? { netError: net } : {}, cause: err,
  });
}
