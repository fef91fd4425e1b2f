import { Router, type Response } from 'express';
import { joinWarnings, searchRequestSchema, v1Document, v1SearchItem, v1SearchRequestSchema } from '@trawl/api-schema';
import type { RateLimiter } from '@trawl/queue';
import { jsonBody } from '../middleware/json-body.js';
import { parseBodyOrThrow, parseOrThrow } from '../middleware/validate.js';
import { rateLimit } from '../middleware/rate-limit.js';
import { teamOf } from '../request-context.js';
import type { SearchService } from '../services/search.service.js';

/** Aborts when the client went away before its answer. */
function clientGone(res: Response): AbortSignal {
  const gone = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  return gone.signal;
}

/** POST /v2/search and POST /v1/search (behind API-key auth). */
export function searchRoutes(deps: { searches: SearchService; limiter: RateLimiter; maxBodyBytes: number; maxJsonDepth?: number }): Router {
  const router = Router();
  const api = rateLimit(deps.limiter, 'api');
  router.post('/v2/search', api, jsonBody(deps), async (req, res) => {
    const { data: request, warning: ignored } = parseBodyOrThrow(searchRequestSchema, 'search', req.body);
    const { id, data, creditsUsed, warning: found } = await deps.searches.search(teamOf(res), request, { clientGone: clientGone(res) });
    const warning = joinWarnings(found, ignored);
    res.json({ success: true, data, creditsUsed, id, ...(warning !== undefined ? { warning } : {}) });
  });
  router.post('/v1/search', api, jsonBody(deps), async (req, res) => {
    const request = parseOrThrow(v1SearchRequestSchema, req.body, 'BAD_REQUEST', { apiVersion: 'v1' });
    const { data, warning } = await deps.searches.search(teamOf(res), request, { clientGone: clientGone(res) });
    const items = (data.web ?? []).map((item) => v1SearchItem(item as Record<string, unknown>, (doc) => v1Document(doc)));
    res.json({ success: true, data: items, ...(warning !== undefined ? { warning } : {}) });
  });
  return router;
}
