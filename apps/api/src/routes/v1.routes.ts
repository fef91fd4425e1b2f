import { Router, type Request } from 'express';
import {
  crawlStatusQuerySchema, jobIdParamsSchema, v1BatchScrapeRequestSchema, v1Document, v1ExtractRequestSchema, v1JsonKeys,
  v1MapLinks, v1MapRequestSchema, v1ScrapeRequestSchema, type V1FormatName,
} from '@trawl/api-schema';
import type { RateLimiter } from '@trawl/queue';
import { answerErrorAt } from '../middleware/answer-deadline.js';
import { jsonBody } from '../middleware/json-body.js';
import { parseOrThrow } from '../middleware/validate.js';
import { rateLimit } from '../middleware/rate-limit.js';
import { locals, teamOf } from '../request-context.js';
import type { CrawlService } from '../services/crawl.service.js';
import type { ExtractService } from '../services/extract.service.js';
import type { MapService } from '../services/map.service.js';
import { scrapeTimeoutError, type ScrapeService } from '../services/scrape.service.js';
import { clientGone, publicBase } from './crawl.routes.js';
import { v1StatusBody } from './crawl-v1.routes.js';
import { extractStatusBody } from './extract.routes.js';

export interface V1RoutesDeps {
  scrape: ScrapeService;
  crawls: CrawlService;
  maps: MapService;
  extracts: ExtractService;
  limiter: RateLimiter;
  maxBodyBytes: number;
  maxJsonDepth?: number;
  /** Base of absolute URLs in responses; else the request's scheme and host. */
  publicUrl?: string;
}

/** The v1 `formats` of a body that passed {@link v1ScrapeRequestSchema} (to name the extraction fields). */
function v1Formats(body: unknown): V1FormatName[] | undefined {
  const formats = (body as { formats?: unknown }).formats;
  return Array.isArray(formats) ? (formats as V1FormatName[]) : undefined;
}

/**
 * The v1 API (COMPAT.md "v1 differences") as adapters onto the v2 services: each body parses to the
 * v2 request (api-schema `v1*RequestSchema`), the v2 service runs it, and documents are answered in
 * v1 form. Errors are the v2 ones (same body, code and status). Crawl routes live with v1 crawl.
 */
export function v1Routes(deps: V1RoutesDeps): Router {
  const router = Router();
  const api = rateLimit(deps.limiter, 'api');
  const status = rateLimit(deps.limiter, 'status');
  const body = jsonBody(deps);
  const base = (req: Request) => publicBase(req, deps.publicUrl);

  router.post('/v1/scrape', api, body, async (req, res) => {
    const request = parseOrThrow(v1ScrapeRequestSchema, req.body, 'BAD_REQUEST', { apiVersion: 'v1' });
    const { receivedAt } = locals(res);
    answerErrorAt(req, res, deps.scrape.answerBy(request, receivedAt), () => scrapeTimeoutError(request.timeout));
    const { document } = await deps.scrape.scrape(teamOf(res), request, { log: locals(res).log, clientGone: clientGone(res), receivedAt });
    if (res.headersSent) return;
    const data = v1Document(document, { jsonKeys: v1JsonKeys(v1Formats(req.body)) });
    res.json({ success: true, data, ...(typeof data.warning === 'string' ? { warning: data.warning } : {}) });
  });
  router.get('/v1/scrape/:id', status, async (req, res) => {
    const { id } = parseOrThrow(jobIdParamsSchema, req.params, 'INVALID_JOB_ID');
    res.json({ success: true, data: v1Document(await deps.scrape.get(teamOf(res), id)) });
  });

  router.post('/v1/batch/scrape', api, body, async (req, res) => {
    const request = parseOrThrow(v1BatchScrapeRequestSchema, req.body, 'BAD_REQUEST', { apiVersion: 'v1' });
    const out = await deps.crawls.startBatch(teamOf(res), request, { idempotencyKey: req.get('x-idempotency-key') || undefined });
    res.json({ success: true, id: out.id, url: `${base(req)}/v1/batch/scrape/${out.id}`, ...(out.invalidURLs?.length ? { invalidURLs: out.invalidURLs } : {}) });
  });
  router.get('/v1/batch/scrape/:id', status, async (req, res) => {
    const { id } = parseOrThrow(jobIdParamsSchema, req.params, 'INVALID_JOB_ID');
    const query = parseOrThrow(crawlStatusQuerySchema, req.query);
    const page = await deps.crawls.status(teamOf(res), id, 'batch', query);
    const next = page.nextSkip !== undefined
      ? `${base(req)}/v1/batch/scrape/${id}?skip=${page.nextSkip}${query.limit !== undefined ? `&limit=${query.limit}` : ''}`
      : undefined;
    res.json(v1StatusBody(page, next));
  });
  // SDK 1.x's checkBatchScrapeErrors sends DELETE to this path: it reads the errors, it cancels nothing.
  router.get('/v1/batch/scrape/:id/errors', status, async (req, res) => {
    const { id } = parseOrThrow(jobIdParamsSchema, req.params, 'INVALID_JOB_ID');
    res.json(await deps.crawls.errors(teamOf(res), id, 'batch'));
  });
  router.delete('/v1/batch/scrape/:id/errors', status, async (req, res) => {
    const { id } = parseOrThrow(jobIdParamsSchema, req.params, 'INVALID_JOB_ID');
    res.json(await deps.crawls.errors(teamOf(res), id, 'batch'));
  });
  router.delete('/v1/batch/scrape/:id', api, async (req, res) => {
    const { id } = parseOrThrow(jobIdParamsSchema, req.params, 'INVALID_JOB_ID');
    await deps.crawls.cancel(teamOf(res), id, 'batch');
    res.json({ status: 'cancelled' });
  });

  router.post('/v1/map', api, body, async (req, res) => {
    const request = parseOrThrow(v1MapRequestSchema, req.body, 'BAD_REQUEST', { apiVersion: 'v1' });
    const { links, warning } = await deps.maps.map(teamOf(res), request, { clientGone: clientGone(res) });
    res.json({ success: true, links: v1MapLinks(links), ...(warning !== undefined ? { warning } : {}) });
  });

  router.post('/v1/extract', api, body, async (req, res) => {
    const request = parseOrThrow(v1ExtractRequestSchema, req.body, 'BAD_REQUEST', { apiVersion: 'v1' });
    const out = await deps.extracts.start(teamOf(res), request);
    res.json({ success: true, id: out.id, ...(out.invalidURLs ? { invalidURLs: out.invalidURLs } : {}) });
  });
  router.get('/v1/extract/:id', status, async (req, res) => {
    const { id } = parseOrThrow(jobIdParamsSchema, req.params, 'INVALID_JOB_ID');
    res.json(extractStatusBody(await deps.extracts.find(teamOf(res), id)));
  });
  return router;
}
