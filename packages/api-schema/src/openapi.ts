import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import {
  apiKeyListResponseSchema,
  apiKeyParamsSchema,
  createApiKeyRequestSchema,
  createApiKeyResponseSchema,
  createTeamRequestSchema,
  successResponseSchema,
  teamIdParamsSchema,
  teamListResponseSchema,
  teamResponseSchema,
  updateTeamRequestSchema,
} from './admin.js';
import {
  activeCrawlsResponseSchema, batchScrapeRequestSchema, batchStartResponseSchema, cancelResponseSchema, crawlErrorsResponseSchema,
  crawlParamsPreviewRequestSchema, crawlParamsPreviewResponseSchema, crawlRequestSchema, crawlStartResponseSchema, crawlStatusQuerySchema, crawlStatusResponseSchema, mapRequestSchema, mapResponseSchema,
} from './crawl.js';
import { scrapeResponseSchema } from './document.js';
import { extractRequestSchema, extractStartResponseSchema, extractStatusResponseSchema } from './extract.js';
import {
  createMonitorRequestSchema, monitorCheckDetailResponseSchema, monitorCheckListResponseSchema, monitorCheckParamsSchema, monitorCheckQuerySchema,
  monitorCheckResponseSchema, monitorIdParamsSchema, monitorListQuerySchema, monitorListResponseSchema, monitorResponseSchema,
  runMonitorRequestSchema, updateMonitorRequestSchema,
} from './monitor.js';
import { errorResponseSchema } from './error-response.js';
import { jobIdParamsSchema } from './job-id.js';
import { scrapeRequestSchema } from './scrape-request.js';
import { searchRequestSchema, searchResponseSchema } from './search.js';
import { MAX_PARSE_FILE_BYTES, parseRequestSchema } from './parse-request.js';
import { parseUploadPutResponseSchema, parseUploadRequestSchema, parseUploadUrlRequestSchema, parseUploadUrlResponseSchema } from './parse-upload.js';
import {
  concurrencyCheckResponseSchema, creditUsageResponseSchema, queueStatusResponseSchema,
  tokenUsageHistoricalResponseSchema, tokenUsageResponseSchema, usageHistoryQuerySchema, creditUsageHistoricalResponseSchema,
} from './team.js';

/** The generated document (OpenAPI 3.1 object). */
export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

/** Options of {@link buildOpenApiDocument}. */
export interface BuildOpenApiOptions {
  /** Public base URL put in `servers` (e.g. `https://trawl.example.com`). Default: no `servers` entry. */
  serverUrl?: string;
  /** `info.version`. Default `2.0.0`. */
  version?: string;
}

const ERROR_STATUSES: Record<number, string> = {
  400: 'Validation failed (`BAD_REQUEST`, `BAD_REQUEST_INVALID_JSON`, `UNSUPPORTED_OPTION`, `INVALID_JOB_ID`).',
  401: 'Missing or invalid API key.',
  402: 'Not enough credits.',
  404: 'Unknown route or job, or cache-only mode found nothing.',
  408: 'The operation timed out (`SCRAPE_TIMEOUT`).',
  413: 'Request body too large.',
  429: 'Rate or concurrency limit exceeded; see Retry-After.',
  500: 'Unexpected error (`UNKNOWN_ERROR`, `details.errorId`).',
};

function json(schema: z.ZodType, description: string) {
  return { description, content: { 'application/json': { schema } } };
}

function errorResponses(extra: readonly number[] = []): RouteConfig['responses'] {
  const out: RouteConfig['responses'] = {};
  for (const [status, description] of Object.entries(ERROR_STATUSES)) out[status] = json(errorResponseSchema, description);
  for (const status of extra) out[String(status)] = json(errorResponseSchema, 'Forbidden: not an admin token.');
  return out;
}

function route(
  registry: OpenAPIRegistry,
  config: Omit<RouteConfig, 'responses' | 'security'> & { ok: z.ZodType; okDescription: string; admin?: boolean },
): void {
  const { ok, okDescription, admin, ...rest } = config;
  registry.registerPath({
    ...rest,
    tags: [admin === true ? 'admin' : 'v2'],
    security: [{ bearerAuth: [] }],
    responses: { 200: json(ok, okDescription), ...errorResponses(admin === true ? [403] : []) },
  });
}

function body(schema: z.ZodType) {
  return { body: { required: true, content: { 'application/json': { schema } } } };
}

function registerV2Routes(registry: OpenAPIRegistry): void {
  route(registry, {
    method: 'post',
    path: '/v2/scrape',
    summary: 'Scrape one URL',
    request: body(scrapeRequestSchema),
    ok: scrapeResponseSchema,
    okDescription: 'The scraped document.',
  });
  route(registry, {
    method: 'get',
    path: '/v2/scrape/{id}',
    summary: 'Get a retained scrape result by its scrapeId',
    request: { params: jobIdParamsSchema },
    ok: scrapeResponseSchema,
    okDescription: 'The scraped document.',
  });
  route(registry, {
    method: 'post',
    path: '/v2/parse',
    summary: 'Parse an uploaded file (PDF, office document, CSV, image, HTML, text) into a document',
    request: {
      body: {
        required: true,
        content: {
          'multipart/form-data': {
            schema: z.object({
              options: parseRequestSchema.optional().meta({ description: 'Scrape options as a JSON string; send this part before `file`.' }),
              file: z.string().meta({ format: 'binary', description: `The file, at most ${MAX_PARSE_FILE_BYTES} bytes.` }),
            }),
          },
          // A file uploaded before through `POST /v2/parse/upload-url`.
          'application/json': { schema: parseUploadRequestSchema },
        },
      },
    },
    ok: scrapeResponseSchema,
    okDescription: 'The parsed document.',
  });
  route(registry, {
    method: 'post',
    path: '/v2/parse/upload-url',
    summary: 'A signed URL to PUT a large file to, then parse it with `POST /v2/parse {uploadRef}` (once, by this team)',
    request: body(parseUploadUrlRequestSchema),
    ok: parseUploadUrlResponseSchema,
    okDescription: 'The upload URL (valid until `expiresAt`) and the uploadRef.',
  });
  registry.registerPath({
    method: 'put',
    path: '/v2/parse/uploads/{ref}',
    summary: 'The bytes of a file to parse, sent to the `uploadUrl` of `POST /v2/parse/upload-url` (no API key: the token is the credential)',
    tags: ['v2'],
    security: [],
    request: {
      params: z.object({ ref: z.uuid() }),
      query: z.object({ token: z.string().meta({ description: 'The token of the issued URL.' }) }),
      body: { required: true, content: { 'application/octet-stream': { schema: z.string().meta({ format: 'binary', description: `The file, at most ${MAX_PARSE_FILE_BYTES} bytes.` }) } } },
    },
    responses: {
      200: json(parseUploadPutResponseSchema, 'Stored; parse it with `POST /v2/parse {uploadRef}`.'),
      403: json(errorResponseSchema, 'Wrong token (`UPLOAD_URL_INVALID`) or expired URL (`UPLOAD_URL_EXPIRED`).'),
      404: json(errorResponseSchema, 'No such upload.'),
      409: json(errorResponseSchema, 'A file was uploaded to this URL already, or an upload is in progress.'),
      413: json(errorResponseSchema, 'The file is larger than the limit; nothing is kept.'),
    },
  });
  route(registry, { method: 'post', path: '/v2/crawl', summary: 'Start a crawl', request: body(crawlRequestSchema), ok: crawlStartResponseSchema, okDescription: 'The crawl id and its status URL.' });
  route(registry, { method: 'post', path: '/v2/crawl/params-preview', summary: 'The crawl options a natural-language prompt derives (the site is mapped first)', request: body(crawlParamsPreviewRequestSchema), ok: crawlParamsPreviewResponseSchema, okDescription: 'The derived options.' });
  route(registry, { method: 'get', path: '/v2/crawl/active', summary: 'Running crawls of the team', ok: activeCrawlsResponseSchema, okDescription: 'Active crawls.' });
  route(registry, { method: 'get', path: '/v2/crawl/ongoing', summary: 'Running crawls of the team (same as /v2/crawl/active)', ok: activeCrawlsResponseSchema, okDescription: 'Active crawls.' });
  route(registry, { method: 'post', path: '/v2/batch/scrape', summary: 'Start (or append to) a batch scrape', request: body(batchScrapeRequestSchema), ok: batchStartResponseSchema, okDescription: 'The batch id and its status URL.' });
  for (const [path, what] of [['/v2/crawl', 'crawl'], ['/v2/batch/scrape', 'batch scrape']] as const) {
    route(registry, { method: 'get', path: `${path}/{id}`, summary: `Status and documents of a ${what} (100 a page; WebSocket upgrade streams it)`, request: { params: jobIdParamsSchema, query: crawlStatusQuerySchema }, ok: crawlStatusResponseSchema, okDescription: 'Status page.' });
    route(registry, { method: 'delete', path: `${path}/{id}`, summary: `Cancel a ${what}`, request: { params: jobIdParamsSchema }, ok: cancelResponseSchema, okDescription: 'Cancelled.' });
    route(registry, { method: 'get', path: `${path}/{id}/errors`, summary: `Failed pages and robots.txt-blocked URLs of a ${what}`, request: { params: jobIdParamsSchema }, ok: crawlErrorsResponseSchema, okDescription: 'Errors.' });
  }
  route(registry, { method: 'post', path: '/v2/extract', summary: 'Start an extraction of structured data from pages (LLM)', request: body(extractRequestSchema), ok: extractStartResponseSchema, okDescription: 'The extract id.' });
  route(registry, { method: 'get', path: '/v2/extract/{id}', summary: 'Status and result of an extract', request: { params: jobIdParamsSchema }, ok: extractStatusResponseSchema, okDescription: 'Status.' });
  route(registry, { method: 'delete', path: '/v2/extract/{id}', summary: 'Cancel an extract', request: { params: jobIdParamsSchema }, ok: cancelResponseSchema, okDescription: 'Cancelled.' });
  route(registry, { method: 'post', path: '/v2/search', summary: 'Search the web (web, news, images) and optionally scrape the results', request: body(searchRequestSchema), ok: searchResponseSchema, okDescription: 'Results by source.' });
  route(registry, { method: 'post', path: '/v2/map', summary: 'List the URLs of a site', request: body(mapRequestSchema), ok: mapResponseSchema, okDescription: 'Links.' });
  registerMonitorRoutes(registry);
  route(registry, {
    method: 'get',
    path: '/v2/team/credit-usage',
    summary: 'Credits left in the billing period (unlimited: a large number)',
    ok: creditUsageResponseSchema,
    okDescription: 'Credit usage.',
  });
  route(registry, {
    method: 'get',
    path: '/v2/team/credit-usage/historical',
    summary: 'Credits used per billing period, newest first',
    request: { query: usageHistoryQuerySchema },
    ok: creditUsageHistoricalResponseSchema,
    okDescription: 'Credit usage per period.',
  });
  route(registry, {
    method: 'get',
    path: '/v2/team/token-usage',
    summary: 'LLM tokens left in the billing period (unlimited here: a large number)',
    ok: tokenUsageResponseSchema,
    okDescription: 'Token usage.',
  });
  route(registry, {
    method: 'get',
    path: '/v2/team/token-usage/historical',
    summary: 'LLM tokens used per billing period, newest first',
    request: { query: usageHistoryQuerySchema },
    ok: tokenUsageHistoricalResponseSchema,
    okDescription: 'Token usage per period.',
  });
  route(registry, {
    method: 'get',
    path: '/v2/team/queue-status',
    summary: 'Jobs of the team in the queue',
    ok: queueStatusResponseSchema,
    okDescription: 'Queue status.',
  });
  route(registry, {
    method: 'get',
    path: '/v2/concurrency-check',
    summary: 'Current concurrency and limit of the team',
    ok: concurrencyCheckResponseSchema,
    okDescription: 'Concurrency.',
  });
}

function registerMonitorRoutes(registry: OpenAPIRegistry): void {
  const params = { params: monitorIdParamsSchema };
  route(registry, { method: 'post', path: '/v2/monitor', summary: 'Create a monitor (recurring checks of URLs or a crawl, webhooks on change)', request: body(createMonitorRequestSchema), ok: monitorResponseSchema, okDescription: 'The monitor.' });
  route(registry, { method: 'get', path: '/v2/monitor', summary: 'Monitors of the team, newest first', request: { query: monitorListQuerySchema }, ok: monitorListResponseSchema, okDescription: 'Monitors.' });
  route(registry, { method: 'get', path: '/v2/monitor/{id}', summary: 'Get a monitor', request: params, ok: monitorResponseSchema, okDescription: 'The monitor.' });
  route(registry, { method: 'patch', path: '/v2/monitor/{id}', summary: 'Change, pause or resume a monitor', request: { ...params, ...body(updateMonitorRequestSchema) }, ok: monitorResponseSchema, okDescription: 'The updated monitor.' });
  route(registry, { method: 'delete', path: '/v2/monitor/{id}', summary: 'Delete a monitor with its checks', request: params, ok: successResponseSchema, okDescription: 'Deleted.' });
  route(registry, { method: 'post', path: '/v2/monitor/{id}/run', summary: 'Run a check now', request: { ...params, ...body(runMonitorRequestSchema) }, ok: monitorCheckResponseSchema, okDescription: 'The queued check.' });
  route(registry, { method: 'get', path: '/v2/monitor/{id}/checks', summary: 'Checks of a monitor, newest first', request: { ...params, query: monitorListQuerySchema }, ok: monitorCheckListResponseSchema, okDescription: 'Checks.' });
  route(registry, {
    method: 'get', path: '/v2/monitor/{id}/checks/{checkId}', summary: 'A check with its pages (100 a page, `next` for more) and their diffs',
    request: { params: monitorCheckParamsSchema, query: monitorCheckQuerySchema }, ok: monitorCheckDetailResponseSchema, okDescription: 'The check and a page of its pages.',
  });
}

function registerAdminRoutes(registry: OpenAPIRegistry): void {
  const admin = true;
  route(registry, {
    method: 'post',
    path: '/admin/teams',
    summary: 'Create a team',
    request: body(createTeamRequestSchema),
    ok: teamResponseSchema,
    okDescription: 'The new team.',
    admin,
  });
  route(registry, { method: 'get', path: '/admin/teams', summary: 'List teams', ok: teamListResponseSchema, okDescription: 'Teams.', admin });
  route(registry, {
    method: 'get',
    path: '/admin/teams/{id}',
    summary: 'Get a team',
    request: { params: teamIdParamsSchema },
    ok: teamResponseSchema,
    okDescription: 'The team.',
    admin,
  });
  route(registry, {
    method: 'patch',
    path: '/admin/teams/{id}',
    summary: 'Change a team',
    request: { params: teamIdParamsSchema, ...body(updateTeamRequestSchema) },
    ok: teamResponseSchema,
    okDescription: 'The updated team.',
    admin,
  });
  route(registry, {
    method: 'post',
    path: '/admin/teams/{id}/keys',
    summary: 'Create an API key for a team (the secret is returned once)',
    request: { params: teamIdParamsSchema, ...body(createApiKeyRequestSchema) },
    ok: createApiKeyResponseSchema,
    okDescription: 'The new key.',
    admin,
  });
  route(registry, {
    method: 'get',
    path: '/admin/teams/{id}/keys',
    summary: 'List the API keys of a team (without secrets)',
    request: { params: teamIdParamsSchema },
    ok: apiKeyListResponseSchema,
    okDescription: 'Keys.',
    admin,
  });
  route(registry, {
    method: 'delete',
    path: '/admin/keys/{key}',
    summary: 'Revoke an API key, given in plain form or by its keyId',
    request: { params: apiKeyParamsSchema },
    ok: successResponseSchema,
    okDescription: 'Revoked.',
    admin,
  });
}

/**
 * Builds the OpenAPI 3.1 document of the HTTP contract from the zod schemas. A fresh registry per call
 * (no module state); the output depends only on the options, so `JSON.stringify` of it is stable.
 */
export function buildOpenApiDocument(options: BuildOpenApiOptions = {}): OpenApiDocument {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'API key (`Authorization: Bearer <API_KEY>`); admin routes take the admin token.',
  });
  registerV2Routes(registry);
  registerAdminRoutes(registry);
  const generator = new OpenApiGeneratorV31(registry.definitions, {
    sortComponents: 'alphabetically',
  });
  return generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Trawl API',
      version: options.version ?? '2.0.0',
      description: 'Self-hosted web data extraction API, compatible with the Firecrawl v2 API.',
    },
    ...(options.serverUrl === undefined ? {} : { servers: [{ url: options.serverUrl }] }),
    security: [{ bearerAuth: [] }],
  });
}
