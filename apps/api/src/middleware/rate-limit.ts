import type { RequestHandler } from 'express';
import { TrawlError } from '@trawl/api-schema';
import { timeHop, type RateLimiter } from '@trawl/queue';
import { teamOf } from '../request-context.js';

/** Multiplier of the per-minute allowance for job-status polling routes. */
export const STATUS_RATE_MULTIPLIER = 10;

/**
 * Counts the request against the team's per-minute rate before its body is even parsed, so invalid
 * requests count too. `bucket: 'status'` is for job-status polling, with ten times the allowance.
 */
export function rateLimit(limiter: RateLimiter, bucket: 'api' | 'status'): RequestHandler {
  return async (_req, res, next) => {
    const team = teamOf(res);
    const limit = team.ratePerMinute * (bucket === 'status' ? STATUS_RATE_MULTIPLIER : 1);
    const d = await timeHop('gateway:rate-limit', () => limiter.consume(team.id, bucket, limit));
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
