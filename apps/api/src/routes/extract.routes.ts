import { Router } from 'express';
import { extractRequestSchema, jobIdParamsSchema } from '@trawl/api-schema';
import { extractExpiresAt, type ExtractRecord, type RateLimiter } from '@trawl/queue';
import { jsonBody } from '../middleware/json-body.js';
import { parseBodyOrThrow, parseOrThrow } from '../middleware/validate.js';
import { rateLimit } from '../middleware/rate-limit.js';
import { teamOf } from '../request-context.js';
import type { ExtractService } from '../services/extract.service.js';

/** The status body of `GET /v2/extract/:id` (COMPAT.md "Extract and agent"). */
export function extractStatusBody(r: ExtractRecord): Record<string, unknown> {
  const ended = r.status !== 'processing';
  return {
    success: r.status !== 'failed',
    status: r.status,
    data: r.data ?? null,
    ...(r.error !== undefined ? { error: r.error } : {}),
    expiresAt: extractExpiresAt(r).toISOString(),
    ...(r.sources !== undefined ? { sources: r.sources } : {}),
    ...(ended ? { tokensUsed: r.tokensUsed, creditsUsed: r.creditsUsed } : {}),
    ...(r.warning !== undefined ? { warning: r.warning } : {}),
  };
}

/** `POST /v2/extract`, `GET` and `DELETE /v2/extract/:id` (behind API-key auth). */
export function extractRoutes(deps: { extracts: ExtractService; limiter: RateLimiter; maxBodyBytes: number; maxJsonDepth?: number }): Router {
  const router = Router();
  router.post('/v2/extract', rateLimit(deps.limiter, 'api'), jsonBody(deps), async (req, res) => {
    const { data: request } = parseBodyOrThrow(extractRequestSchema, 'extract', req.body);
    const out = await deps.extracts.start(teamOf(res), request);
    res.json({ success: true, id: out.id, ...(out.invalidURLs ? { invalidURLs: out.invalidURLs } : {}) });
  });
  router.get('/v2/extract/:id', rateLimit(deps.limiter, 'status'), async (req, res) => {
    const { id } = parseOrThrow(jobIdParamsSchema, req.params, 'INVALID_JOB_ID');
    res.json(extractStatusBody(await deps.extracts.find(teamOf(res), id)));
  });
  router.delete('/v2/extract/:id', rateLimit(deps.limiter, 'api'), async (req, res) => {
    const { id } = parseOrThrow(jobIdParamsSchema, req.params, 'INVALID_JOB_ID');
    await deps.extracts.cancel(teamOf(res), id);
    res.json({ success: true, status: 'cancelled' });
  });
  return router;
}
