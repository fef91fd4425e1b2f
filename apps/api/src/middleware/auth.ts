import { timingSafeEqual, createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { TrawlError } from '@trawl/api-schema';
import { hopTimingOn, recordHop, timeHop, type Team, type TeamStore } from '@trawl/queue';

function bearer(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1] ?? null;
}

/** The password of `Authorization: Basic` (the user name is ignored): how a browser sends the admin key. */
function basicPassword(header: string | undefined): string | null {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!m) return null;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon >= 0 && colon < decoded.length - 1 ? decoded.slice(colon + 1) : null;
}

/**
 * How long the gateway remembers which team a valid API key belongs to, ms (the team record itself is
 * read on every request): a key deleted through another process (another replica, a `trawl` admin
 * command) is refused within this time; through this gateway's admin API, at once. Saves one Redis
 * round trip per request.
 */
export const API_KEY_CACHE_MS = 3000;

/**
 * `Authorization: Bearer <key>` -> the key's team in `res.locals.team`; 401 otherwise, 403 `TEAM_DISABLED` for a disabled team.
 * `deferTo`: requests whose route authenticates itself, reading the team with its rate limit in one
 * round trip (`rateLimit(limiter, bucket, teams)`, which must be that route's first handler, or run
 * first in `sideBySide`): only the header is checked here, and the key is left in `res.locals.apiKey`.
 */
export function apiKeyAuth(teams: TeamStore, opts: { deferTo?: (req: Request) => boolean } = {}): RequestHandler {
  return async (req, res, next) => {
    if (hopTimingOn() && typeof res.locals.hopT0 === 'number') recordHop('gateway:before-auth', performance.now() - res.locals.hopT0);
    const key = bearer(req.get('authorization'));
    if (!key) throw new TrawlError('UNAUTHORIZED', 'Unauthorized: missing Authorization: Bearer <API key> header');
    if (opts.deferTo?.(req)) {
      res.locals.apiKey = key;
      return next();
    }
    const team = await timeHop('gateway:auth', () => teams.resolveKeyCached(key, API_KEY_CACHE_MS));
    admitTeam(res, team);
    next();
  };
}

/** The authenticated team into `res.locals`; 401 when there is none, 403 `TEAM_DISABLED` when it is disabled. */
export function admitTeam(res: Response, team: Team | null): asserts team is Team {
  if (!team) throw new TrawlError('UNAUTHORIZED', 'Unauthorized: invalid API key');
  if (team.disabled) throw new TrawlError('TEAM_DISABLED', 'Forbidden: this API key\'s team is disabled');
  res.locals.team = team;
  res.locals.log = res.locals.log.child({ teamId: team.id });
}

function sameSecret(a: string, b: string): boolean {
  // Hash first so the comparison is constant-time whatever the lengths.
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

/**
 * Admin routes: `Authorization: Bearer $TRAWL_ADMIN_KEY`, or Basic with the admin key as password
 * (browsers, for the queue UI: its 401 asks for it). A valid API key is 403 (authenticated, not
 * allowed); anything else is 401. With no admin key configured the admin API is 403 for all.
 */
export function adminAuth(adminKey: string | undefined, teams: TeamStore): RequestHandler {
  return async (req, res, next) => {
    const header = req.get('authorization');
    const key = bearer(header) ?? basicPassword(header);
    if (req.path.startsWith('/queues')) res.setHeader('WWW-Authenticate', 'Basic realm="Trawl admin", charset="UTF-8"');
    if (!key) throw new TrawlError('UNAUTHORIZED', 'Unauthorized: missing Authorization: Bearer <admin key> header');
    if (adminKey && sameSecret(key, adminKey)) {
      res.removeHeader('WWW-Authenticate');
      return next();
    }
    if (!adminKey) throw new TrawlError('FORBIDDEN', 'The admin API is disabled: set TRAWL_ADMIN_KEY');
    if (await teams.resolveKey(key)) throw new TrawlError('FORBIDDEN', 'Forbidden: API keys cannot use the admin API');
    throw new TrawlError('UNAUTHORIZED', 'Unauthorized: invalid admin key');
  };
}
