export { ERROR_CODES, ERROR_CODE_LIST, isErrorCode, type ErrorCode } from './error-codes.js';
export { ERROR_RETRY, retryClassOf, type RetryClass } from './error-retry.js';
export { TrawlError, isErrorData, type ErrorData, type TrawlErrorOptions } from './trawl-error.js';
export { redactUrl } from './redact-url.js';
export {
  checkPathPattern,
  pathPatternListSchema,
  MAX_PATH_PATTERN_LENGTH,
  MAX_PATH_PATTERNS,
  MAX_PATH_PATTERNS_PROGRAM_SIZE,
  type PathPatternCheck,
} from './path-pattern.js';
export { ignoredOptionsOf, ignoredOptionsWarning, joinWarnings, splitExperimentalKeys, type IgnorableBodyKind } from './ignored-options.js';
export { toValidationIssues, describeValidationIssues, unrecognizedKeyText, validationErrorText, type ValidationIssue } from './validation-issues.js';
export { MAX_METADATA_BYTES, MAX_METADATA_DEPTH, jsonDepthExceeds, metadataSchema } from './bounded-json.js';
export { MAX_REQUEST_HEADERS, requestHeadersSchema } from './request-headers.js';
export {
  FORMAT_NAMES,
  FORMAT_TYPES,
  formatObjectSchema,
  formatSchema,
  formatListSchema,
  findFormat,
  type FormatName,
  type FormatType,
  type FormatObject,
  type FormatOf,
} from './formats.js';
export {
  MAX_ACTIONS,
  MAX_TOTAL_WAIT_MS,
  PDF_ACTION_FORMATS,
  actionSchema,
  actionListSchema,
  totalActionWaitMs,
  type Action,
  type ActionInput,
  type ActionType,
} from './actions.js';
export {
  DEFAULT_MAX_AGE_MS,
  LOCKDOWN_MAX_AGE_MS,
  DEFAULT_COUNTRY,
  locationSchema,
  profileSchema,
  parserListSchema,
  redactPIIOptionsSchema,
  threatProtectionSchema,
  scrapeOptionsObjectSchema,
  scrapeOptionsSchema,
  checkScrapeOptions,
  finalizeScrapeOptions,
  type PdfParser,
  type ScrapeOptionsBase,
  type ScrapeOptionsInput,
  type ScrapeOptions,
} from './scrape-options.js';
export {
  httpUrlSchema,
  clientTagFields,
  scrapeRequestSchema,
  type ScrapeRequestInput,
  type ScrapeRequest,
} from './scrape-request.js';
export { MAX_PARSE_FILE_BYTES, parseRequestSchema, parseUnsupportedOptions, uploadSourceUrl, type ParseRequest, type ParseRequestInput } from './parse-request.js';
export {
  parseUploadPutResponseSchema,
  parseUploadRequestSchema,
  parseUploadUrlRequestSchema,
  parseUploadUrlResponseSchema,
  type ParseUploadRequest,
  type ParseUploadUrlRequest,
} from './parse-upload.js';
export {
  CAPABILITIES,
  BROWSER_CAPABILITIES,
  needsBrowser,
  requiredCapabilities,
  type Capability,
  type CapabilityRequirement,
  type CapabilityInput,
} from './required-capabilities.js';
export { LLM_FORMAT_CREDITS, LLM_CAPABILITIES, llmFormatCredits, type LlmCreditOptions } from './llm-credits.js';
export { brandingSchema, type Branding } from './branding.js';
export { menuSchema, productSchema, type Menu, type Product } from './menu.js';
export {
  documentMetadataSchema,
  actionResultsSchema,
  changeTrackingResultSchema,
  documentSchema,
  scrapeResponseSchema,
  type Document,
  type DocumentMetadata,
  type ScrapeResponse,
} from './document.js';
export { errorResponseSchema, type ErrorResponse } from './error-response.js';
export { INVALID_JOB_ID_MESSAGE, jobIdSchema, jobIdParamsSchema } from './job-id.js';
export {
  creditUsageResponseSchema,
  creditUsageHistoricalResponseSchema,
  type CreditUsageHistoricalResponse,
  UNLIMITED_USAGE,
  tokenUsageResponseSchema,
  tokenUsageHistoricalResponseSchema,
  usageHistoryQuerySchema,
  type TokenUsageResponse,
  type TokenUsageHistoricalResponse,
  queueStatusResponseSchema,
  concurrencyCheckResponseSchema,
  type CreditUsageResponse,
  type QueueStatusResponse,
  type ConcurrencyCheckResponse,
} from './team.js';
export {
  createTeamRequestSchema,
  updateTeamRequestSchema,
  teamSchema,
  teamIdParamsSchema,
  apiKeyParamsSchema,
  teamResponseSchema,
  teamListResponseSchema,
  createApiKeyRequestSchema,
  createApiKeyResponseSchema,
  apiKeyInfoSchema,
  apiKeyListResponseSchema,
  successResponseSchema,
  type CreateTeamRequestInput,
  type CreateTeamRequest,
  type UpdateTeamRequest,
  type Team,
  type CreateApiKeyRequest,
  type CreateApiKeyResponse,
  type ApiKeyInfo,
} from './admin.js';
export {
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_SHORT_EVENTS,
  MAX_WEBHOOK_URL_LENGTH,
  webhookUrlSchema,
  webhookHeadersSchema,
  webhookConfigSchema,
  webhookPayloadSchema,
  webhookEventSelected,
  type WebhookEventType,
  type WebhookEventKind,
  type WebhookConfigInput,
  type WebhookConfig,
  type WebhookPayload,
} from './webhook.js';
export { buildOpenApiDocument, type BuildOpenApiOptions, type OpenApiDocument } from './openapi.js';
export {
  MAX_CRAWL_LIMIT,
  DEFAULT_CRAWL_LIMIT,
  MAX_BATCH_URLS,
  MAX_CRAWL_DELAY_SEC,
  sitemapModeSchema,
  crawlRequestObjectSchema,
  normalizeCrawlFields,
  crawlRequestSchema,
  batchScrapeRequestSchema,
  mapRequestSchema,
  crawlStatusQuerySchema,
  crawlStartResponseSchema,
  crawlPromptOptionsSchema,
  applyPromptOptions,
  crawlParamsPreviewRequestSchema,
  crawlParamsPreviewResponseSchema,
  batchStartResponseSchema,
  crawlStatusResponseSchema,
  crawlErrorsResponseSchema,
  cancelResponseSchema,
  activeCrawlsResponseSchema,
  mapResponseSchema,
  type CrawlRequestInput,
  type CrawlRequest,
  type CrawlPromptOptions,
  type CrawlParamsPreviewRequest,
  type BatchScrapeRequest,
  type MapRequestInput,
  type MapRequest,
} from './crawl.js';
export { V1_DEFAULT_MAX_DEPTH, v1CrawlRequestSchema, v1CrawlStartResponseSchema, v1CrawlStatusResponseSchema, type V1CrawlRequestInput } from './v1/v1-crawl-request.js';
export {
  MAX_EXTRACT_URLS,
  EXTRACT_WILDCARD_SUFFIX,
  EXTRACT_STATUSES,
  extractRequestSchema,
  extractStartResponseSchema,
  extractStatusResponseSchema,
  type ExtractRequestInput,
  type ExtractRequest,
  type ExtractStatus,
} from './extract.js';
export {
  SCHEDULE_TEXT_EXAMPLES,
  scheduleTextToCron,
  normalizeCronShape,
  canonicalTimeZone,
  type ScheduleTextResult,
} from './monitor-schedule.js';
export {
  MAX_MONITOR_TARGETS,
  MAX_MONITOR_TARGET_URLS,
  MAX_MONITOR_CRAWL_LIMIT,
  DEFAULT_MONITOR_CRAWL_LIMIT,
  DEFAULT_MONITOR_RETENTION_DAYS,
  MAX_MONITOR_RETENTION_DAYS,
  DEFAULT_MONITOR_TIMEZONE,
  MONITOR_STATUSES,
  MONITOR_CHECK_STATUSES,
  MONITOR_PAGE_STATUSES,
  monitorScheduleSchema,
  monitorStoredScheduleSchema,
  monitorCrawlOptionsSchema,
  monitorTargetSchema,
  monitorStoredTargetSchema,
  monitorNotificationSchema,
  createMonitorRequestSchema,
  updateMonitorRequestSchema,
  runMonitorRequestSchema,
  monitorConfigSchema,
  monitorScrapeOptions,
  defaultMonitorScrapeOptions,
  monitorListQuerySchema,
  monitorCheckQuerySchema,
  monitorIdParamsSchema,
  monitorCheckParamsSchema,
  monitorSummarySchema,
  monitorSchema,
  monitorTargetResultSchema,
  monitorCheckSchema,
  monitorCheckPageSchema,
  monitorCheckDetailSchema,
  monitorResponseSchema,
  monitorListResponseSchema,
  monitorCheckResponseSchema,
  monitorCheckListResponseSchema,
  monitorCheckDetailResponseSchema,
  type MonitorStatus,
  type MonitorCheckStatus,
  type MonitorPageStatus,
  type MonitorSchedule,
  type MonitorTargetInput,
  type MonitorTarget,
  type MonitorNotification,
  type CreateMonitorRequest,
  type UpdateMonitorRequest,
  type MonitorConfig,
  type MonitorSummary,
} from './monitor.js';
export {
  V1_FORMAT_NAMES,
  v1ScrapeOptionsShape,
  v1ScrapeOptionsObjectSchema,
  checkV1ScrapeOptions,
  v1ScrapeOptionsToV2,
  v1JsonKeys,
  type V1FormatName,
  type V1JsonKeys,
  type V1JsonOptions,
  type V1ScrapeOptions,
} from './v1/v1-scrape-options.js';
export { v1ScrapeRequestSchema, v1BatchScrapeRequestSchema, v1MapRequestSchema, v1ExtractRequestSchema } from './v1/v1-requests.js';
export { v1Document, v1MapLinks, parseUnifiedDiff, type V1Diff, type V1DiffChange } from './v1/v1-document.js';
export { v1RecordScrapeOptions } from './v1/v1-record-options.js';
export {
  MAX_SEARCH_LIMIT, SEARCH_CREDITS_PER_BLOCK, SEARCH_CREDIT_BLOCK, normalizeDomain, searchCategorySchema, searchDataSchema, searchImageResultSchema,
  searchNewsResultSchema, searchRequestSchema, searchResponseSchema, searchResultCredits, searchScrapeOptionsSchema, searchSourceSchema,
  searchSourceType, searchSourceTypeSchema, searchWebResultSchema,
  type SearchData, type SearchRequest, type SearchRequestInput, type SearchSourceType,
} from './search.js';
export { V1_SEARCH_DEFAULT_LIMIT, v1SearchItem, v1SearchRequestSchema } from './v1/v1-search-request.js';
