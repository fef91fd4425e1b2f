/**
 * Every error code the API can return, with what it means. Codes are a contract: clients branch on them.
 * The HTTP status of each code is chosen in one place only (apps/api `error-status.ts`).
 */
export const ERROR_CODES = {
  BAD_REQUEST: 'The request body, query or path failed validation; `details` lists the issues.',
  BAD_REQUEST_INVALID_JSON: 'The request body is not valid JSON.',
  UNSUPPORTED_OPTION: 'The request uses an option this deployment cannot serve yet; `details.option` names it.',
  LLM_NOT_CONFIGURED: 'The request uses an LLM feature and no LLM is configured; `details.setting` names the setting to set (TRAWL_LLM_BASE_URL).',
  CRAWL_PROMPT_FAILED: 'A crawl `prompt` (or `/v2/crawl/params-preview`) could not be turned into crawl options: the model gave no usable answer. `error` is "Failed to process natural language prompt..."; rephrase, or set the crawl options explicitly.',
  LLM_ERROR: 'The configured LLM failed (unreachable, timed out, or answered with an error) for an operation that cannot go on without it.',
  INVALID_JOB_ID: 'A job id in the path is not a UUID.',
  UNAUTHORIZED: 'Missing or invalid API key.',
  FORBIDDEN: 'The key is valid but may not do this (for example an API key on an admin route).',
  TEAM_DISABLED: 'The key\'s team is disabled by an administrator (`PATCH /admin/teams/{id}` `disabled: true`): no request of the team is served and its waiting jobs do not start.',
  INSUFFICIENT_CREDITS: 'The operation would exceed the team\'s remaining credits.',
  NOT_FOUND: 'No such resource.',
  ROUTE_NOT_FOUND: 'This server does not serve the method and path (an endpoint of another API version or of the hosted service only); `error` names them and points to `GET /v2/openapi.json`.',
  JOB_NOT_FOUND: 'No job with this id for this team (or its results expired).',
  CONFLICT: 'The job already finished, or an idempotency key was reused.',
  PAYLOAD_TOO_LARGE: 'The request body is larger than the configured limit.',
  RATE_LIMITED: 'The team sent more requests per minute than its limit; see Retry-After.',
  CONCURRENCY_BACKLOG_FULL: 'The team\'s concurrency backlog is full; retry later.',
  TOO_MANY_CONNECTIONS: 'This client address holds more open connections than the server allows (TRAWL_MAX_CONNECTIONS_PER_CLIENT); close some, retry later.',
  SCRAPE_TIMEOUT: 'The scrape did not finish (or could not start) within its timeout.',
  MAP_TIMEOUT: 'The map did not finish within its timeout.',
  SEARCH_TIMEOUT: 'The search provider did not answer within the search\'s timeout.',
  SEARCH_PROVIDER_ERROR: 'The search provider failed (unreachable, refused, blocked or an unreadable answer); details name the provider.',
  SCRAPE_DNS_RESOLUTION_ERROR: 'The target host name could not be resolved.',
  SCRAPE_CONNECTION_REFUSED: 'The target refused or reset the connection.',
  SCRAPE_TLS_ERROR: 'The TLS handshake with the target failed (certificate checks are on).',
  SCRAPE_TOO_LARGE: 'The target response exceeded the size limit (after decompression).',
  SCRAPE_TOO_MANY_REDIRECTS: 'The target redirected more than 10 times, or in a loop.',
  SCRAPE_BLOCKED_TARGET: 'The target resolves to a loopback, private, link-local or metadata address.',
  SCRAPE_INVALID_URL: 'The URL cannot be scraped (bad scheme, no host).',
  SCRAPE_UNSUPPORTED_CONTENT: 'The target answered with content this deployment cannot convert yet.',
  PARSE_UNSUPPORTED_OPTIONS: '`POST /v2/parse` was sent options that need a live page (waitFor, actions, location, mobile, cache options, a proxy other than basic/auto, page-only formats); `details.options` names them.',
  UNSUPPORTED_FILE_TYPE: 'A file given to `POST /v2/parse` is of a type this deployment cannot parse; `details.filename` names it.',
  DOCUMENT_ENCRYPTED: 'The document is password-protected (or its encryption is unsupported); Trawl cannot read it.',
  DOCUMENT_CORRUPT: 'The document is damaged, truncated or not the format its type or magic bytes claim; `details.format` names the format.',
  DOCUMENT_TOO_LARGE: 'The document exceeds a limit: file size, decompressed size (a decompression bomb), cells, or memory; `details.limit` names it.',
  DOCUMENT_OCR_UNAVAILABLE: 'OCR was needed (`mode: "ocr"`, or an image) but this deployment has no OCR engine or lacks the language data; `details` says which.',
  SCRAPE_BROWSER_CRASHED: 'The browser crashed or closed during the scrape (retried automatically).',
  SCRAPE_ACTION_FAILED: 'An action failed (script error, element not clickable...); `details.index` names it.',
  SCRAPE_ACTION_RESULT_TOO_LARGE: 'An action produced more than the server keeps (an `executeJavascript` return over `TRAWL_MAX_ACTION_RETURN_BYTES`, a screenshot, PDF or `scrape` over `TRAWL_MAX_RESPONSE_BYTES`); `details.index` names it, `details.limitBytes` the limit.',
  SCRAPE_PAGE_CRASHED: 'The page\'s renderer crashed or used more memory than `TRAWL_BROWSER_PAGE_MAX_MB` and was stopped (not retried: the page would do it again).',
  RESULT_TOO_LARGE: 'The finished document is larger than the server stores (`TRAWL_MAX_RESULT_BYTES`); ask for fewer formats or a smaller page. `details.limitBytes` has the limit.',
  SCRAPE_ACTION_ELEMENT_NOT_FOUND: 'A click or scroll action found no element for its selector; `details.index` names it.',
  PROFILE_LOCKED: 'Another session is saving changes to this browser profile; only one may at a time.',
  SCRAPE_FAILED: 'The scrape failed for another reason; `details` says more.',
  SCRAPE_PROXY_ERROR: 'The configured upstream proxy refused, failed or asked for credentials (407); `details.proxyStatus` has its status.',
  SCRAPE_HTTP_ERROR: 'A page discovered by a crawl answered with an HTTP error status (4xx/5xx); it is listed in `/errors` (with `details.statusCode`) instead of the data, and not billed.',
  SCRAPE_LOCKDOWN_CACHE_MISS: 'Lockdown mode found no cached copy of the URL.',
  SCRAPE_NO_CACHED_DATA: 'minAge mode found no cached copy old enough.',
  JOB_CANCELLED: 'The job was cancelled before it finished.',
  WEBHOOK_URL_BLOCKED: 'The webhook URL names localhost or a loopback, private, link-local or metadata address.',
  BLOB_INVALID_KEY: 'A blob key (path of a signed blob URL) has characters, segments or a length a key never has.',
  BLOB_SIGNATURE_INVALID: 'A signed blob URL was altered, or signed with another secret; ask the API for a fresh URL.',
  BLOB_URL_EXPIRED: 'A signed blob URL is past its `expires` time; ask the API for a fresh URL.',
  UPLOAD_URL_INVALID: 'A parse upload URL (`POST /v2/parse/upload-url`) was altered: its `token` is not the one issued; ask for a new URL.',
  UPLOAD_URL_EXPIRED: 'A parse upload URL is past its `expiresAt`; ask for a new URL.',
  BLOB_STORE_FAILED: 'The blob store (disk or S3-compatible service) failed to store or serve a blob; retry later.',
  SERVICE_UNAVAILABLE: 'A dependency (Redis) is unreachable or the server is shutting down.',
  UNKNOWN_ERROR: 'An unexpected error; `details.errorId` finds it in the logs.',
} as const;

/** A documented error code; see {@link ERROR_CODES}. */
export type ErrorCode = keyof typeof ERROR_CODES;

export const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as ErrorCode[];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CODES, value);
}
