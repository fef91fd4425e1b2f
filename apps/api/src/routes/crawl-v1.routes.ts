import { Router, type Request, type RequestHandler } from 'express';
import { crawlStatusQuerySchema, jobIdParamsSchema, v1CrawlRequestSchema, v1Document } from '@trawl/api-schema';
import type { RateLimiter } from '@trawl/queue';
import { jsonBody } from '../middleware/json-body.js';
import { parseOrThrow } from '../middleware/validate.js';
import { rateLimit } from '../middleware/rate-limit.js';
import { teamOf } from '../request-context.js';
import type { CrawlService, CrawlStatusPage } from '../services/crawl.service.js';
import { clientGone, publicBase, statusBody } from './crawl.routes.js';

export interface CrawlV1RoutesDeps {
  crawls: CrawlService;
  limiter: RateLimiter;
  maxBodyBytes: number;
  /** Deepest nesting of a JSON body. Default 64. */
  maxJsonDepth?: number;
  /** Base of absolute URLs in responses; else the request's scheme and host. */
  publicUrl?: string;
}

/** The v1 status body: the v2 one without `createdAt`, `completedAt` and `duration`, v1 documents. */
export function v1StatusBody(page: CrawlStatusPage, nextUrl: string | undefined): Record<string, unknown> {
  const { createdAt: _createdAt, completedAt: _completedAt, duration: _duration, ...v1 } = statusBody(page, nextUrl);
  // The record keeps only v2 options: which v1 key (json or extract) the client asked for is unknown, so both.
  return { ...v1, data: page.data.map((doc) => v1Document(doc)) };
}

/**
 * The v1 crawl endpoints: adapters onto the crawl service (the body is translated to the v2 crawl
 * request, answers to v1 shapes); the crawl itself is the v2 crawl. `GET /v1/crawl/active` and
 * `/ongoing` live with the v2 list in crawl.routes.ts; the WebSocket in crawl-stream.ts.
 */
export function crawlV1Routes(deps: CrawlV1RoutesDeps): Router {
  const router = Router();
  const api = rateLimit(deps.limiter, 'api');
  const status = rateLimit(deps.limiter, 'status');
  const body = jsonBody(deps);
  const base = (req: Request) => publicBase(req, deps.publicUrl);

  router.post('/v1/crawl', api, body, async (req, res) => {
    const request = parseOrThrow(v1CrawlRequestSchema, req.body);
    const out = await deps.crawls.startCrawl(teamOf(res), request, { idempotencyKey: req.get('x-idempotency-key') || undefined, clientGone: clientGone(res) });
    res.json({ success: true, id: out.id, url: `${base(req)}/v1/crawl/${out.id}` });
  });
  router.get('/v1/crawl/:id', status, async (req, res) => {
    const { id } = parseOrThrow(jobIdParamsSchema, req.params, 'INVALID_JOB_ID');
    const query = parseOrThrow(crawlStatusQuerySchema, req.query);
    // The 1.x SDK's batchScrapeUrls waits on this route too, as the hosted v1 served batches here.
    const page = await deps.crawls.status(teamOf(res), id, 'any', query);
    const next = page.nextSkip !== undefined
      ? `${base(req)}/v1/crawl/${id}?skip=${page.nextSkip}${query.limit !== undefined ? `&limit=${query.limit}` : ''}`
      : undefined;
    res.json(v1StatusBody(page, next));
  });
  router.delete('/v1/crawl/:id', api, async (req, res) => {
    const { id } = parseOrThrow(jobIdParamsSchema, req.params, 'INVALID_JOB_ID');
    await deps.crawls.cancel(teamOf(res), id, 'crawl');
    res.json({ status: 'cancelled' });
  });
  const errors: RequestHandler = async (req, res) => {
    const { id } = parseOrThrow(jobIdParamsSchema, req.params, 'INVALID_JOB_ID');
    res.json(await deps.crawls.errors(teamOf(res), id, 'crawl'));
  };
  router.get('/v1/crawl/:id/errors', status, errors);
  // The 1.x SDK's checkCrawlErrors sends DELETE (a bug of that SDK); it reads, it never cancels.
  router.delete('/v1/crawl/:id/errors', status, errors);
  return router;
}
