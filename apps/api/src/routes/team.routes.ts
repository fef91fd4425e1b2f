import { Router } from 'express';
import { UNLIMITED_USAGE, usageHistoryQuerySchema } from '@trawl/api-schema';
import { remainingCredits, type CreditLedger, type JobDispatcher, type RateLimiter, type ResultStore, type TokenLedger } from '@trawl/queue';
import { rateLimit } from '../middleware/rate-limit.js';
import { parseOrThrow } from '../middleware/validate.js';
import { billingPeriods } from '../services/billing-periods.js';
import { teamOf } from '../request-context.js';

/** How many billing periods the historical endpoints list at most (two years). */
const HISTORY_PERIODS = 24;

/** Team status endpoints of COMPAT.md (behind API-key auth); v1 answers the same bodies. */
export function teamRoutes(deps: { limiter: RateLimiter; dispatcher: JobDispatcher; results: ResultStore; credits: CreditLedger; tokens: TokenLedger }): Router {
  const router = Router();
  const status = rateLimit(deps.limiter, 'status');
  // A team without a credit limit reports a large number, not null: clients do arithmetic on it.
  router.get(['/v1/team/credit-usage', '/v2/team/credit-usage'], status, (_req, res) => {
    const team = teamOf(res);
    const [period] = billingPeriods(team.createdAt, new Date());
    res.json({
      success: true,
      data: {
        remainingCredits: remainingCredits(team) ?? UNLIMITED_USAGE,
        planCredits: team.credits ?? UNLIMITED_USAGE,
        billingPeriodStart: period?.start.toISOString() ?? null,
        billingPeriodEnd: period?.end.toISOString() ?? null,
      },
    });
  });
  // `byApiKey=true` is accepted; credits are charged per team, so the periods are the team's (no `apiKey`).
  router.get(['/v1/team/credit-usage/historical', '/v2/team/credit-usage/historical'], status, async (req, res) => {
    parseOrThrow(usageHistoryQuerySchema, req.query);
    const team = teamOf(res);
    const periods = billingPeriods(team.createdAt, new Date(), { max: HISTORY_PERIODS });
    const used = await deps.credits.usedIn(team.id, periods);
    res.json({
      success: true,
      periods: periods.map((p, i) => ({ startDate: p.start.toISOString(), endDate: p.end.toISOString(), creditsUsed: used[i] ?? 0 })),
    });
  });
  // LLM tokens: no team has a token plan here, so what is left is reported as unlimited (a large number).
  router.get(['/v1/team/token-usage', '/v2/team/token-usage'], status, (_req, res) => {
    const [period] = billingPeriods(teamOf(res).createdAt, new Date());
    res.json({
      success: true,
      data: {
        remainingTokens: UNLIMITED_USAGE,
        planTokens: UNLIMITED_USAGE,
        billingPeriodStart: period?.start.toISOString() ?? null,
        billingPeriodEnd: period?.end.toISOString() ?? null,
      },
    });
  });
  // `byApiKey=true` is accepted; tokens are recorded per team, so the periods are the team's (no `apiKey`).
  router.get(['/v1/team/token-usage/historical', '/v2/team/token-usage/historical'], status, async (req, res) => {
    parseOrThrow(usageHistoryQuerySchema, req.query);
    const team = teamOf(res);
    const periods = billingPeriods(team.createdAt, new Date(), { max: HISTORY_PERIODS });
    const used = await deps.tokens.usedIn(team.id, periods);
    res.json({
      success: true,
      periods: periods.map((p, i) => ({ startDate: p.start.toISOString(), endDate: p.end.toISOString(), tokensUsed: used[i] ?? 0 })),
    });
  });
  router.get(['/v1/team/queue-status', '/v2/team/queue-status'], status, async (_req, res) => {
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
  router.get(['/v1/concurrency-check', '/v2/concurrency-check'], status, async (_req, res) => {
    const team = teamOf(res);
    const c = await deps.dispatcher.counts(team.id);
    res.json({ success: true, concurrency: c.active, maxConcurrency: team.concurrency });
  });
  return router;
}
