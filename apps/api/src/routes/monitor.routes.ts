import { Router } from 'express';
import {
  createMonitorRequestSchema, monitorCheckParamsSchema, monitorCheckQuerySchema, monitorIdParamsSchema, monitorListQuerySchema,
  runMonitorRequestSchema, updateMonitorRequestSchema,
} from '@trawl/api-schema';
import { monitorCheckView, monitorPageView, monitorView, type RateLimiter } from '@trawl/queue';
import { jsonBody } from '../middleware/json-body.js';
import { parseOrThrow } from '../middleware/validate.js';
import { rateLimit } from '../middleware/rate-limit.js';
import { teamOf } from '../request-context.js';
import type { MonitorService } from '../services/monitor.service.js';
import { publicBase } from './crawl.routes.js';

export interface MonitorRoutesDeps {
  monitors: MonitorService;
  limiter: RateLimiter;
  maxBodyBytes: number;
  /** Deepest nesting of a JSON body. Default 64. */
  maxJsonDepth?: number;
  /** Base of absolute URLs in responses; else the request's scheme and host. */
  publicUrl?: string;
}

/**
 * Monitor endpoints (behind API-key auth). Every answer is `{success: true, data}` (the SDK requires it);
 * paged lists carry an absolute `next` URL at the top level, omitted on the last page.
 */
export function monitorRoutes(deps: MonitorRoutesDeps): Router {
  const router = Router();
  const api = rateLimit(deps.limiter, 'api');
  const status = rateLimit(deps.limiter, 'status');
  const body = jsonBody(deps);
  const { monitors } = deps;

  router.post('/v2/monitor', api, body, async (req, res) => {
    const request = parseOrThrow(createMonitorRequestSchema, req.body);
    res.json({ success: true, data: monitorView(await monitors.create(teamOf(res), request)) });
  });
  router.get('/v2/monitor', status, async (req, res) => {
    const query = parseOrThrow(monitorListQuerySchema, req.query);
    const list = await monitors.list(teamOf(res), query);
    const now = new Date();
    res.json({ success: true, data: list.map((m) => monitorView(m, now)) });
  });
  router.get('/v2/monitor/:id', status, async (req, res) => {
    const { id } = parseOrThrow(monitorIdParamsSchema, req.params);
    res.json({ success: true, data: monitorView(await monitors.find(teamOf(res), id)) });
  });
  router.patch('/v2/monitor/:id', api, body, async (req, res) => {
    const { id } = parseOrThrow(monitorIdParamsSchema, req.params);
    const request = parseOrThrow(updateMonitorRequestSchema, req.body ?? {});
    res.json({ success: true, data: monitorView(await monitors.update(teamOf(res), id, request)) });
  });
  router.delete('/v2/monitor/:id', api, async (req, res) => {
    const { id } = parseOrThrow(monitorIdParamsSchema, req.params);
    await monitors.delete(teamOf(res), id);
    res.json({ success: true });
  });
  router.post('/v2/monitor/:id/run', api, body, async (req, res) => {
    const { id } = parseOrThrow(monitorIdParamsSchema, req.params);
    parseOrThrow(runMonitorRequestSchema, req.body ?? {});
    const check = monitorCheckView(await monitors.run(teamOf(res), id));
    // The check's id at the top level too (clients read `id` of the answer, the SDK reads `data`).
    res.json({ success: true, id: check.id, data: check });
  });
  router.get('/v2/monitor/:id/checks', status, async (req, res) => {
    const { id } = parseOrThrow(monitorIdParamsSchema, req.params);
    const query = parseOrThrow(monitorListQuerySchema, req.query);
    const { checks, nextOffset } = await monitors.checks(teamOf(res), id, query);
    const next = nextOffset === undefined ? undefined : `${publicBase(req, deps.publicUrl)}/v2/monitor/${id}/checks?offset=${nextOffset}&limit=${query.limit}`;
    res.json({ success: true, data: checks.map(monitorCheckView), ...(next !== undefined ? { next } : {}) });
  });
  router.get('/v2/monitor/:id/checks/:checkId', status, async (req, res) => {
    const { id, checkId } = parseOrThrow(monitorCheckParamsSchema, req.params);
    const query = parseOrThrow(monitorCheckQuerySchema, req.query);
    const page = await monitors.check(teamOf(res), id, checkId, query);
    const next = page.nextSkip === undefined
      ? undefined
      : `${publicBase(req, deps.publicUrl)}/v2/monitor/${id}/checks/${checkId}?skip=${page.nextSkip}&limit=${query.limit}${query.status ? `&status=${query.status}` : ''}`;
    // `next` at the top level (and in `data`, where the SDK also looks), omitted when nothing follows.
    const more = next !== undefined ? { next } : {};
    res.json({ success: true, data: { ...monitorCheckView(page.check), pages: page.pages.map(monitorPageView), ...more }, ...more });
  });
  return router;
}
