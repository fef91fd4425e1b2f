import { Router, type Request, type RequestHandler, type Response } from 'express';
import {
  TrawlError, batchScrapeRequestSchema, crawlParamsPreviewRequestSchema, crawlRequestSchema, crawlStatusQuerySchema, jobIdParamsSchema,
  toValidationIssues, v1RecordScrapeOptions, type CrawlParamsPreviewRequest,
} from '@trawl/api-schema';
import { crawlExpiresAt, type CrawlKind, type CrawlRecord, type RateLimiter } from '@trawl/queue';
import { jsonBody } from '../middleware/json-body.js';
import { parseBodyOrThrow, parseOrThrow } from '../middleware/validate.js';
import { rateLimit } from '../middleware/rate-limit.js';
import { teamOf } from '../request-context.js';
import type { CrawlService, CrawlStatusPage } from '../services/crawl.service.js';

export interface CrawlRoutesDeps {
  crawls: CrawlService;
  limiter: RateLimiter;
  maxBodyBytes: number;
  /** Deepest nesting of a JSON body. Default 64. */
  maxJsonDepth?: number;
  /** Base of absolute URLs in responses; else the request's scheme and host. */
  publicUrl?: string;
}

/** Absolute base URL of this API as the client reached it (or as configured). */
export function publicBase(req: Request, publicUrl: string | undefined): string {
  return (publicUrl ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`).replace(/\/+$/, '');
}

/** The status body of COMPAT.md; `next` only when more documents are stored right now; `duration` in seconds. */
export function statusBody(page: CrawlStatusPage, nextUrl: string | undefined): Record<string, unknown> {
  const r = page.record;
  return {
    success: true,
    status: r.status,
    completed: r.completed,
    total: r.total,
    creditsUsed: r.creditsUsed,
    expiresAt: crawlExpiresAt(r).toISOString(),
    ...(nextUrl !== undefined ? { next: nextUrl } : {}),
    data: page.data,
    createdAt: new Date(r.createdAt).toISOString(),
    ...(r.completedAt !== undefined ? { completedAt: new Date(r.completedAt).toISOString(), duration: (r.completedAt - r.createdAt) / 1000 } : {}),
    ...(r.error !== undefined ? { error: r.error } : {}),
  };
}

/**
 * The record of `GET /v2/crawl/ongoing|active` (v2 options) or `GET /v1/crawl/active` (v1 scrape option
 * names); `created_at` is ISO with milliseconds, as the hosted service sends it.
 */
function activeRecord(r: CrawlRecord, version: 'v1' | 'v2'): Record<string, unknown> {
  const { webhook: _webhook, scrapeOptions, ...options } = r.request as { webhook?: unknown; scrapeOptions?: Record<string, unknown> };
  const so = scrapeOptions ?? {};
  return {
    id: r.id,
    teamId: r.teamId,
    url: r.url,
    created_at: new Date(r.createdAt).toISOString(),
    options: version === 'v1' ? { ...options, scrapeOptions: v1RecordScrapeOptions(so) } : { ...options, scrapeOptions: so },
  };
}

/**
 * The params-preview body. Its 400 says "Invalid request parameters: ..." (the spec's message for this
 * endpoint, as the hosted service words it), still with code BAD_REQUEST and the issues in `details`.
 */
function parsePreviewRequest(body: unknown): CrawlParamsPreviewRequest {
  const parsed = crawlParamsPreviewRequestSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issues = toValidationIssues(parsed.error);
  const message = `Invalid request parameters: ${issues.map((i) => (i.path === '' ? i.message : `${i.path}: ${i.message}`)).join(', ')}`;
  throw new TrawlError('BAD_REQUEST', message, { details: { issues } });
}

/** Aborts when the client goes away before its answer was sent. */
export function clientGone(res: Response): AbortSignal {
  const gone = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  return gone.signal;
}

/** Crawl and batch-scrape endpoints (behind API-key auth). */
export function crawlRoutes(deps: CrawlRoutesDeps): Router {
  const router = Router();
  const api = rateLimit(deps.limiter, 'api');
  const status = rateLimit(deps.limiter, 'status');
  const body = jsonBody(deps);
  const idem = (req: Request) => req.get('x-idempotency-key') || undefined;

  router.post('/v2/crawl', api, body, async (req, res) => {
    const { data: request, warning } = parseBodyOrThrow(crawlRequestSchema, 'crawl', req.body);
    // The raw body goes along: with `prompt`, only it tells which options the user set.
    const out = await deps.crawls.startCrawl(teamOf(res), request, { idempotencyKey: idem(req), body: req.body, clientGone: clientGone(res) });
    const warnings = [...(out.warnings ?? []), ...(warning !== undefined ? [warning] : [])];
    res.json({
      success: true, id: out.id, url: `${publicBase(req, deps.publicUrl)}/v2/crawl/${out.id}`,
      ...(out.promptGeneratedOptions ? { promptGeneratedOptions: out.promptGeneratedOptions } : {}),
      ...(warnings.length > 0 ? { warning: warnings.join(' ') } : {}),
    });
  });
  router.post('/v2/crawl/params-preview', api, body, async (req, res) => {
    const request = parsePreviewRequest(req.body);
    const { options, warnings } = await deps.crawls.previewParams(teamOf(res), request, { clientGone: clientGone(res) });
    res.json({ success: true, data: { url: request.url, ...options }, ...(warnings.length > 0 ? { warning: warnings.join(' ') } : {}) });
  });
  router.post('/v2/batch/scrape', api, body, async (req, res) => {
    const { data: request, warning } = parseBodyOrThrow(batchScrapeRequestSchema, 'batch', req.body);
    const out = await deps.crawls.startBatch(teamOf(res), request, { idempotencyKey: idem(req) });
    res.json({
      success: true, id: out.id, url: `${publicBase(req, deps.publicUrl)}/v2/batch/scrape/${out.id}`,
      ...(out.invalidURLs?.length ? { invalidURLs: out.invalidURLs } : {}), ...(warning !== undefined ? { warning } : {}),
    });
  });

  const activeList = (version: 'v1' | 'v2'): RequestHandler => async (_req, res) => {
    const crawls = await deps.crawls.active(teamOf(res));
    res.json({ success: true, crawls: crawls.map((c) => activeRecord(c, version)) });
  };
  router.get('/v2/crawl/ongoing', status, activeList('v2'));
  router.get('/v2/crawl/active', status, activeList('v2'));
  router.get('/v1/crawl/active', status, activeList('v1'));
  // The v1 name of the same list (the 1.x SDK has no method for it; the hosted service serves both).
  router.get('/v1/crawl/ongoing', status, activeList('v1'));

  for (const [kind, path] of [['crawl', '/v2/crawl'], ['batch', '/v2/batch/scrape']] as [CrawlKind, string][]) {
    router.get(`${path}/:id`, status, async (req, res) => {
      const { id } = parseOrThrow(jobIdParamsSchema, req.params, 'INVALID_JOB_ID');
      const query = parseOrThrow(crawlStatusQuerySchema, req.query);
      const page = await deps.crawls.status(teamOf(res), id, kind, query);
      const next = page.nextSkip !== undefined
        ? `${publicBase(req, deps.publicUrl)}${path}/${id}?skip=${page.nextSkip}${query.limit !== undefined ? `&limit=${query.limit}` : ''}`
        : undefined;
      res.json(statusBody(page, next));
    });
    router.get(`${path}/:id/errors`, status, async (req, res) => {
      const { id } = parseOrThrow(jobIdParamsSchema, req.params, 'INVALID_JOB_ID');
      res.json(await deps.crawls.errors(teamOf(res), id, kind));
    });
    router.delete(`${path}/:id`, api, async (req, res) => {
      const { id } = parseOrThrow(jobIdParamsSchema, req.params, 'INVALID_JOB_ID');
      await deps.crawls.cancel(teamOf(res), id, kind);
      res.json({ status: 'cancelled' });
    });
  }
  return router;
}
