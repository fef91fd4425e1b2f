import type { ErrorCode } from './error-codes.js';

/**
 * What a job does after an error (Crawlee's taxonomy):
 * - `never`: trying again gives the same answer (bad input, a refused target, a deterministic limit,
 *   a deadline already past): the job fails at once (BullMQ `UnrecoverableError`).
 * - `backoff`: a transient fault of the target, the network, a proxy, a browser or a dependency:
 *   retried with backoff, each try spending an attempt.
 * - `delay`: a rate limit said "not now": wait and try again without spending an attempt.
 */
export type RetryClass = 'never' | 'backoff' | 'delay';

/**
 * The retry class of every error code: the default of `TrawlError.retryable`. Exhaustive: adding a
 * code without a class is a compile error. A throw site that knows better for one cause may still
 * say `retryable` (a temporary DNS failure, EAI_AGAIN, under SCRAPE_DNS_RESOLUTION_ERROR; a proxy's
 * 5xx under SCRAPE_PROXY_ERROR), see {@link retryClassOf}.
 */
export const ERROR_RETRY: Readonly<Record<ErrorCode, RetryClass>> = {
  BAD_REQUEST: 'never',
  BAD_REQUEST_INVALID_JSON: 'never',
  UNSUPPORTED_OPTION: 'never',
  LLM_NOT_CONFIGURED: 'never',
  CRAWL_PROMPT_FAILED: 'never',
  LLM_ERROR: 'backoff',
  INVALID_JOB_ID: 'never',
  UNAUTHORIZED: 'never',
  FORBIDDEN: 'never',
  TEAM_DISABLED: 'never',
  INSUFFICIENT_CREDITS: 'never',
  NOT_FOUND: 'never',
  ROUTE_NOT_FOUND: 'never',
  JOB_NOT_FOUND: 'never',
  CONFLICT: 'never',
  PAYLOAD_TOO_LARGE: 'never',
  RATE_LIMITED: 'delay',
  CONCURRENCY_BACKLOG_FULL: 'delay',
  TOO_MANY_CONNECTIONS: 'delay',
  // The scrape's own deadline is past (or a document parse hit its bound): another try has no time
  // left. A socket timeout well inside the budget is retried at its site.
  SCRAPE_TIMEOUT: 'never',
  MAP_TIMEOUT: 'never',
  SEARCH_TIMEOUT: 'never',
  // A provider that was down or refused a burst may answer the next try.
  SEARCH_PROVIDER_ERROR: 'backoff',
  // NXDOMAIN stays NXDOMAIN; EAI_AGAIN (resolver trouble) is retried at its site.
  SCRAPE_DNS_RESOLUTION_ERROR: 'never',
  SCRAPE_CONNECTION_REFUSED: 'backoff',
  SCRAPE_TLS_ERROR: 'never',
  SCRAPE_TOO_LARGE: 'never',
  SCRAPE_TOO_MANY_REDIRECTS: 'never',
  SCRAPE_BLOCKED_TARGET: 'never',
  SCRAPE_INVALID_URL: 'never',
  SCRAPE_UNSUPPORTED_CONTENT: 'never',
  PARSE_UNSUPPORTED_OPTIONS: 'never',
  UNSUPPORTED_FILE_TYPE: 'never',
  DOCUMENT_ENCRYPTED: 'never',
  DOCUMENT_CORRUPT: 'never',
  DOCUMENT_TOO_LARGE: 'never',
  DOCUMENT_OCR_UNAVAILABLE: 'never',
  SCRAPE_BROWSER_CRASHED: 'backoff',
  SCRAPE_ACTION_FAILED: 'never',
  SCRAPE_ACTION_RESULT_TOO_LARGE: 'never',
  // The page would crash the renderer again.
  SCRAPE_PAGE_CRASHED: 'never',
  RESULT_TOO_LARGE: 'never',
  SCRAPE_ACTION_ELEMENT_NOT_FOUND: 'never',
  PROFILE_LOCKED: 'never',
  // The catch-all: its cause is unknown here; sites that know it is transient (a failed request, an
  // unreadable cache) say so.
  SCRAPE_FAILED: 'never',
  // A 5xx, a 429 or an unreachable proxy is the proxy's trouble of the moment; a 407 or 403 is
  // configuration, and its site says `retryable: false`.
  SCRAPE_PROXY_ERROR: 'backoff',
  SCRAPE_HTTP_ERROR: 'never',
  SCRAPE_LOCKDOWN_CACHE_MISS: 'never',
  SCRAPE_NO_CACHED_DATA: 'never',
  JOB_CANCELLED: 'never',
  WEBHOOK_URL_BLOCKED: 'never',
  BLOB_INVALID_KEY: 'never',
  BLOB_SIGNATURE_INVALID: 'never',
  BLOB_URL_EXPIRED: 'never',
  UPLOAD_URL_INVALID: 'never',
  UPLOAD_URL_EXPIRED: 'never',
  BLOB_STORE_FAILED: 'backoff',
  SERVICE_UNAVAILABLE: 'backoff',
  UNKNOWN_ERROR: 'never',
};

/**
 * The retry class of a code (the table), or of an error: an error its site marked not retryable is
 * `never`; one its site marked retryable although its code is `never` (EAI_AGAIN) is `backoff`.
 */
export function retryClassOf(of: ErrorCode | { code: ErrorCode; retryable: boolean }): RetryClass {
  if (typeof of === 'string') return ERROR_RETRY[of];
  if (!of.retryable) return 'never';
  const byCode = ERROR_RETRY[of.code];
  return byCode === 'never' ? 'backoff' : byCode;
}
