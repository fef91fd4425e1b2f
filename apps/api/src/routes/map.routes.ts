import { Router } from 'express';
import { joinWarnings, mapRequestSchema } from '@trawl/api-schema';
import type { RateLimiter } from '@trawl/queue';
import { jsonBody } from '../middleware/json-body.js';
import { parseBodyOrThrow } from '../middleware/validate.js';
import { rateLimit } from '../middleware/rate-limit.js';
import { teamOf } from '../request-context.js';
import type { MapService } from '../services/map.service.js';

/** POST /v2/map (behind API-key auth). */
export function mapRoutes(deps: { maps: MapService; limiter: RateLimiter; maxBodyBytes: number; maxJsonDepth?: number }): Router {
  const router = Router();
  router.post('/v2/map', rateLimit(deps.limiter, 'api'), jsonBody(deps), async (req, res) => {
    const { data: request, warning: ignored } = parseBodyOrThrow(mapRequestSchema, 'map', req.body);
    const clientGone = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) clientGone.abort();
    });
    const { id, links, warning: found } = await deps.maps.map(teamOf(res), request, { clientGone: clientGone.signal });
    const warning = joinWarnings(found, ignored);
    res.json({ success: true, id, links, ...(warning !== undefined ? { warning } : {}) });
  });
  return router;
}
