import type { RequestHandler, Response } from 'express';
import { TrawlError } from '@trawl/api-schema';
import { timeHop, type RateDecision, type RateLimiter, type Team, type TeamStore } from '@trawl/queue';
import { teamOf } from '../request-context.js';
import { admitTeam, API_KEY_CACHE_MS } from './auth.js';

/** Multiplier of the per-minute allowance for job-status polling routes. */
export const STATUS_RATE_MULTIPLIER = 10;

/**
 * Counts the request against the team's per-minute rate before its body is parsed (or, for a known
 * key of POST /v2/scrape, while it is: `sideBySide`, whose refusal still comes first), so invalid
 * requests count too. `bucket: 'status'` is for job-status polling, with ten times the allowance.
 */
export function rateLimit(limiter: RateLimiter, bucket: 'api' | 'status', teams?: TeamStore): RequestHandler {
  const multiplier = bucket === 'status' ? STATUS_RATE_MULTIPLIER : 1;
  return async (_req, res, next) => {
    const d = teams && typeof res.locals.apiKey === 'string' && res.locals.team === undefined
      ? await authenticateAndCount(teams, limiter, res, res.locals.apiKey, bucket, multiplier)
      : await consume(limiter, teamOf(res), bucket, multiplier);
    res.setHeader('X-RateLimit-Limit', String(d.limit));
    res.setHeader('X-RateLimit-Remaining', String(d.remaining));
    if (!d.allowed) {
      res.setHeader('Retry-After', String(d.retryAfterSec));
      throw new TrawlError('RATE_LIMITED', 'Request rate limit exceeded. Please wait and try again later.', {
        details: { limitPerMinute: d.limit, retryAfterSec: d.retryAfterSec },
      });
    }
    next();
  };
}

function consume(limiter: RateLimiter, team: Team, bucket: string, multiplier: number): Promise<RateDecision> {
  return timeHop('gateway:rate-limit', () => limiter.consume(team.id, bucket, team.ratePerMinute * multiplier));
}

/**
 * The authentication `apiKeyAuth` deferred to this route (`deferTo`): the key's team (remembered for
 * API_KEY_CACHE_MS, as there) read together with the rate limit, in one round trip; the same 401 and
 * 403 as `apiKeyAuth`, and neither counts against the rate.
 */
async function authenticateAndCount(
  teams: TeamStore, limiter: RateLimiter, res: Response, key: string, bucket: string, multiplier: number,
): Promise<RateDecision> {
  const { team, decision } = await timeHop('gateway:auth+rate-limit', async () => {
    const teamId = await teams.teamIdOfKeyCached(key, API_KEY_CACHE_MS);
    return teamId ? limiter.consumeWithTeam(teamId, bucket, multiplier) : { team: null, decision: null };
  });
  delete res.locals.apiKey;
  if (!team) teams.forgetKey(key);
  admitTeam(res, team);
  if (!decision) throw new Error('a team admitted without a rate decision');
  return decision;
}
