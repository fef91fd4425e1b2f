import type { Response } from 'express';
import type { ErrorCode, ScrapeRequest } from '@trawl/api-schema';
import type { Logger } from '@trawl/observability';
import type { Team } from '@trawl/queue';

/** What the middleware chain attaches to a request (in `res.locals`). */
export interface RequestLocals {
  reqId: string;
  log: Logger;
  /** When the gateway began handling the request (`Date.now()`): a sync scrape's `timeout` counts from here. */
  receivedAt: number;
  /** Set by the API-key middleware. */
  team?: Team;
  /** The API key of a route that authenticates itself (`apiKeyAuth`'s `deferTo`), until it has. */
  apiKey?: string;
  /** `POST /v2/scrape`'s body, checked (with the warning about options it ignores). */
  scrapeRequest?: { data: ScrapeRequest; warning: string | undefined };
  /** The code of the error this request answered with; set by the error handler. */
  errorCode?: ErrorCode;
}

export function locals(res: Response): RequestLocals {
  return res.locals as RequestLocals;
}

/** The authenticated team; only call behind the API-key middleware. */
export function teamOf(res: Response): Team {
  const team = locals(res).team;
  if (!team) throw new Error('teamOf() called on a route without API-key authentication');
  return team;
}
