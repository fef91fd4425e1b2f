import { Router, type Request, type RequestHandler } from 'express';
import { joinWarnings, jobIdParamsSchema, scrapeRequestSchema } from '@trawl/api-schema';
import { hopTimingOn, recordHop, type RateLimiter, type TeamStore } from '@trawl/queue';
import { answerErrorAt } from '../middleware/answer-deadline.js';
import { jsonBody } from '../middleware/json-body.js';
import { parseBodyOrThrow, parseOrThrow } from '../middleware/validate.js';
import { API_KEY_CACHE_MS } from '../middleware/auth.js';
import { rateLimit } from '../middleware/rate-limit.js';
import { chain, sideBySide } from '../middleware/side-by-side.js';
import { locals, teamOf } from '../request-context.js';
import { scrapeTimeoutError, type ScrapeService } from '../services/scrape.service.js';

/**
 * Requests whose API-key authentication `POST /v2/scrape` does itself (`apiKeyAuth`'s `deferTo`): its
 * rate limit reads the team in the same round trip. Exactly the path the route matches; any other
 * spelling the router also accepts is authenticated by `apiKeyAuth` first, as every route is.
 */
export function scrapeAuthDeferred(req: Request): boolean {
  return req.method === 'POST' && req.baseUrl + req.path === '/v2/scrape';
}

/** POST /v2/scrape and GET /v2/scrape/:id (behind API-key auth; see {@link scrapeAuthDeferred}). */
export function scrapeRoutes(deps: { scrape: ScrapeService; limiter: RateLimiter; teams: TeamStore; maxBodyBytes: number; maxJsonDepth?: number }): Router {
  const router = Router();
  const validate: RequestHandler = (req, res, next) => {
    const tv = hopTimingOn() ? performance.now() : 0;
    const scrapeRequest = parseBodyOrThrow(scrapeRequestSchema, 'scrape', req.body);
    locals(res).scrapeRequest = scrapeRequest;
    // The request's timeout holds from here, whatever it waits for: its rate limit (beside this), its
    // admission, its worker. (The service answers its own 408 at the same moment when it can.)
    const { timeout } = scrapeRequest.data;
    answerErrorAt(req, res, deps.scrape.answerBy({ timeout }, locals(res).receivedAt), () => scrapeTimeoutError(timeout));
    if (tv > 0) recordHop('gateway:validate', performance.now() - tv);
    next();
  };
  // The body is read and checked while the team and its rate limit are read (one round trip), for a
  // key this gateway knows (one that authenticated here in the last API_KEY_CACHE_MS): a client
  // without a valid key never gets its body read. Their 401, 403 or 429 comes first, as before.
  const admitAndRead = sideBySide(rateLimit(deps.limiter, 'api', deps.teams), chain(jsonBody(deps), validate), (_req, res) => {
    const key = locals(res).apiKey;
    return key !== undefined && deps.teams.knowsKey(key, API_KEY_CACHE_MS);
  });
  router.post('/v2/scrape', admitAndRead, async (req, res) => {
    // Answered 408 while its rate limit waited: nothing is submitted.
    if (res.headersSent) return;
    const { data: request, warning } = locals(res).scrapeRequest!;
    const clientGone = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) clientGone.abort();
    });
    const { document, documentJson } = await deps.scrape.scrape(teamOf(res), request, { log: locals(res).log, clientGone: clientGone.signal, receivedAt: locals(res).receivedAt });
    if (res.headersSent) return;
    const joined = joinWarnings(typeof document.warning === 'string' ? document.warning : undefined, warning);
    const t0 = hopTimingOn() ? performance.now() : 0;
    if (joined === undefined && documentJson !== undefined && plainJson(req)) {
      // What res.json writes, without serializing the document again: the worker wrote its JSON once,
      // to measure and store it.
      res.type('json').send(`{"success":true,"data":${documentJson}}`);
    } else {
      res.json({ success: true, data: joined === undefined ? document : { ...document, warning: joined } });
    }
    if (t0 > 0) recordHop('gateway:respond', performance.now() - t0);
  });
  router.get('/v2/scrape/:id', rateLimit(deps.limiter, 'status'), async (req, res) => {
    const { id } = parseOrThrow(jobIdParamsSchema, req.params, 'INVALID_JOB_ID');
    res.json({ success: true, data: await deps.scrape.get(teamOf(res), id) });
  });
  return router;
}

/** Whether `res.json` writes plain `JSON.stringify` output: the app sets no JSON replacer, spaces or escaping. */
function plainJson(req: Request): boolean {
  return req.app.get('json replacer') === undefined && req.app.get('json spaces') === undefined && !req.app.get('json escape');
}
