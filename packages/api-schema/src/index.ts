export { ERROR_CODES, ERROR_CODE_LIST, isErrorCode, type ErrorCode } from './error-codes.js';
export { TrawlError, isErrorData, type ErrorData, type TrawlErrorOptions } from './trawl-error.js';
export { toValidationIssues, describeValidationIssues, type ValidationIssue } from './validation-issues.js';
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
export { MAX_PARSE_FILE_BYTES, parseRequestSchema, uploadSourceUrl, type ParseRequest, type ParseRequestInput } from './parse-request.js';
export {
  CAPABILITIES,
  BROWSER_CAPABILITIES,
  needsBrowser,
  requiredCapabilities,
  type Capability,
  type CapabilityRequirement,
  type CapabilityInput,
} from './required-capabilities.js';
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
export { isBlockedAddress, type BlockedAddressResult } from './is-blocked-address.js';
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
  crawlRequestSchema,
  batchScrapeRequestSchema,
  mapRequestSchema,
  crawlStatusQuerySchema,
  crawlStartResponseSchema,
  batchStartResponseSchema,
  crawlStatusResponseSchema,
  crawlErrorsResponseSchema,
  cancelResponseSchema,
  activeCrawlsResponseSchema,
  mapResponseSchema,
  type CrawlRequestInput,
  type CrawlRequest,
  type BatchScrapeRequest,
  type MapRequest,
} from './crawl.js';
