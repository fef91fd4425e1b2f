import type { ErrorCode } from '@trawl/api-schema';

/**
 * The one table that turns an error code into an HTTP status. Exhaustive: adding a code without a
 * status is a compile error.
 *
 * Failures of the target site (DNS, refused or reset, TLS, too large, redirect loop, a crashed page
 * or browser, the catch-all SCRAPE_FAILED) are 500 with their specific code, as the hosted service
 * answers: the official SDKs retry 502 by themselves (4.x: up to 3 tries, 0.5 s then 1 s apart), and
 * asking again cannot revive a dead host; the worker has already retried what a retry may cure. 502
 * is kept for a failing dependency of the server where a retry helps: the upstream proxy
 * (SCRAPE_PROXY_ERROR) and the LLM (LLM_ERROR). README "Errors and statuses" has the table.
 */
export const ERROR_STATUS: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  BAD_REQUEST_INVALID_JSON: 400,
  UNSUPPORTED_OPTION: 400,
  LLM_NOT_CONFIGURED: 400,
  CRAWL_PROMPT_FAILED: 400,
  LLM_ERROR: 502,
  SEARCH_PROVIDER_ERROR: 502,
  INVALID_JOB_ID: 400,
  SCRAPE_INVALID_URL: 400,
  BLOB_INVALID_KEY: 400,
  WEBHOOK_URL_BLOCKED: 400,
  UNAUTHORIZED: 401,
  INSUFFICIENT_CREDITS: 402,
  FORBIDDEN: 403,
  TEAM_DISABLED: 403,
  SCRAPE_BLOCKED_TARGET: 403,
  BLOB_SIGNATURE_INVALID: 403,
  BLOB_URL_EXPIRED: 403,
  UPLOAD_URL_INVALID: 403,
  UPLOAD_URL_EXPIRED: 403,
  NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
  JOB_NOT_FOUND: 404,
  SCRAPE_LOCKDOWN_CACHE_MISS: 404,
  SCRAPE_NO_CACHED_DATA: 404,
  SCRAPE_TIMEOUT: 408,
  MAP_TIMEOUT: 408,
  SEARCH_TIMEOUT: 408,
  CONFLICT: 409,
  JOB_CANCELLED: 409,
  PROFILE_LOCKED: 409,
  PAYLOAD_TOO_LARGE: 413,
  SCRAPE_UNSUPPORTED_CONTENT: 422,
  PARSE_UNSUPPORTED_OPTIONS: 400,
  UNSUPPORTED_FILE_TYPE: 415,
  DOCUMENT_ENCRYPTED: 422,
  DOCUMENT_CORRUPT: 422,
  DOCUMENT_TOO_LARGE: 413,
  DOCUMENT_OCR_UNAVAILABLE: 422,
  SCRAPE_ACTION_FAILED: 422,
  SCRAPE_ACTION_ELEMENT_NOT_FOUND: 422,
  RATE_LIMITED: 429,
  CONCURRENCY_BACKLOG_FULL: 429,
  TOO_MANY_CONNECTIONS: 429,
  SCRAPE_DNS_RESOLUTION_ERROR: 500,
  SCRAPE_CONNECTION_REFUSED: 500,
  SCRAPE_TLS_ERROR: 500,
  SCRAPE_TOO_LARGE: 500,
  SCRAPE_TOO_MANY_REDIRECTS: 500,
  SCRAPE_FAILED: 500,
  SCRAPE_HTTP_ERROR: 500,
  SCRAPE_BROWSER_CRASHED: 500,
  SCRAPE_PAGE_CRASHED: 500,
  SCRAPE_ACTION_RESULT_TOO_LARGE: 413,
  RESULT_TOO_LARGE: 413,
  SCRAPE_PROXY_ERROR: 502,
  SERVICE_UNAVAILABLE: 503,
  BLOB_STORE_FAILED: 503,
  UNKNOWN_ERROR: 500,
};

/**
 * The codes of a failed target site (500 in {@link ERROR_STATUS}): the HTTP metrics label them
 * `fault="target"`, so alerts on the API's own server errors leave them out.
 */
export const TARGET_FAILURE_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'SCRAPE_DNS_RESOLUTION_ERROR',
  'SCRAPE_CONNECTION_REFUSED',
  'SCRAPE_TLS_ERROR',
  'SCRAPE_TOO_LARGE',
  'SCRAPE_TOO_MANY_REDIRECTS',
  'SCRAPE_FAILED',
  'SCRAPE_HTTP_ERROR',
  'SCRAPE_BROWSER_CRASHED',
  'SCRAPE_PAGE_CRASHED',
]);

/** Fixed client-facing messages the spec gives for some statuses. */
export const SPEC_MESSAGES: Partial<Record<ErrorCode, string>> = {
  INSUFFICIENT_CREDITS: 'Payment required to access this resource.',
  RATE_LIMITED: 'Request rate limit exceeded. Please wait and try again later.',
  UNKNOWN_ERROR: 'An unexpected error occurred on the server.',
};
