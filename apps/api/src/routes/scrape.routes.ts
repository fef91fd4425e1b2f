import { Router } from 'express';
import { joinWarnings, jobIdParamsSchema, scrapeRequestSchema } from '@trawl/api-schema';
import { hopTimingOn, recordHop, type RateLimiter } from '@trawl/queue';
import { jsonBody } from '../middleware/json-body.js';
import { parseBodyOrThrow, parseOrThrow } from '../middleware/validate.js';
import { rateLimit } from '../middleware/rate-limit.js';
import { locals, teamOf } from '../request-context.js';
import type { ScrapeService } from '../services/scrape.service.js';

/** POST /v2/scrape and GET /v2/scrape/:id (behind API-key auth). */
export function scrapeRoutes(deps: { scrape: ScrapeService; limiter: RateLimiter; maxBodyBytes: number; maxJsonDepth?: number }): Router {
  const router = Router();
  router.post('/v2/scrape', rateLimit(deps.limiter, 'api'), jsonBody(deps), async (req, res) => {
    const { data: request, warning } = parseBodyOrThrow(scrapeRequestSchema, 'scrape', req.body);
    const clientGone = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) clientGone.abort();
    });
    const { document } = await deps.scrape.scrape(teamOf(res), request, { log: locals(res).log, clientGone: clientGone.signal });
    const joined = joinWarnings(typeof document.warning === 'string' ? document.warning : undefined, warning);
    const t0 = hopTimingOn() ? performance.now() : 0;
    res.json({ success: true, data: joined === undefined ? document : { ...document, warning: joined } });
    if (t0 > 0) recordHop('gateway:respond', performance.now() - t0);
  });
  router.get('/v2/scrape/:id', rateLimit(deps.limiter, 'status'), async (req, res) => {
    const { id } = parseOrThrow(jobIdParamsSchema, req.params, 'INVALID_JOB_ID');
    res.json({ success: true, data: await deps.scrape.get(teamOf(res), id) });
  });
  return router;
}
