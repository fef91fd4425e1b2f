import { Router } from 'express';
import { remainingCredits, type JobDispatcher, type RateLimiter, type ResultStore } from '@trawl/queue';
import { rateLimit } from '../middleware/rate-limit.js';
import { teamOf } from '../request-context.js';

/** Billing period: calendar months counted from the team's creation day. */
function billingPeriod(createdAt: string, now: Date): { start: string; end: string } {
  const created = new Date(createdAt);
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), created.getUTCDate()));
  if (start > now) start.setUTCMonth(start.getUTCMonth() - 1);
  const end = new Date(start);
  end.setUTCMonth(end.getUTCMonth() + 1);
  return { start: start.toISOString(), end: end.toISOString() };
}

/** Team status endpoints of COMPAT.md (behind API-key auth). */
export function teamRoutes(deps: { limiter: RateLimiter; dispatcher: JobDispatcher; results: ResultStore }): Router {
  const router = Router();
  const status = rateLimit(deps.limiter, 'status');
  router.get('/v2/team/credit-usage', status, (_req, res) => {
    const team = teamOf(res);
    const period = billingPeriod(team.createdAt, new Date());
    res.json({
      success: true,
      data: {
        remainingCredits: remainingCredits(team),
        planCredits: team.credits,
        billingPeriodStart: period.start,
        billingPeriodEnd: period.end,
      },
    });
  });
  router.get('/v2/team/queue-status', status, async (_req, res) => {
    const team = teamOf(res);
    const [c, last] = await Promise.all([deps.dispatcher.counts(team.id), deps.results.lastSuccess(team.id)]);
    res.json({
      success: true,
      jobsInQueue: c.active + c.waiting,
      activeJobsInQueue: c.active,
      waitingJobsInQueue: c.waiting,
      maxConcurrency: team.concurrency,
      mostRecentSuccess: last,
    });
  });
  router.get('/v2/concurrency-check', status, async (_req, res) => {
    const team = teamOf(res);
    const c = await deps.dispatcher.counts(team.id);
    res.json({ success: true, concurrency: c.active, maxConcurrency: team.concurrency });
  });
  return router;
}
