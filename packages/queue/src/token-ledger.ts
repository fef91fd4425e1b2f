import type { Redis } from 'ioredis';
import { sumByPeriod, utcDay, type UsagePeriod } from './daily-usage.js';
import type { RedisKeys } from './redis-keys.js';

export type { UsagePeriod } from './daily-usage.js';

/** One UTC day of a team's LLM token use. */
export interface DailyTokens {
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  tokens: number;
}

/**
 * LLM tokens (prompt + completion) used per team: a running total in the team hash (`tokensUsed`,
 * beside `creditsUsed`) and one counter per UTC day, from which any billing period's use is summed
 * (periods start at 00:00 UTC, so days never straddle two). Written by the workers after each LLM
 * call of a job, read by `GET /v2/team/token-usage(/historical)`.
 */
export class TokenLedger {
  private readonly now: () => number;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    opts: { now?: () => number } = {},
  ) {
    this.now = opts.now ?? Date.now;
  }

  /**
   * Adds `tokens` to the team's total and to today's counter, atomically (both keys share the team's
   * hash tag). Nothing happens for 0, negative or non-finite amounts; fractions round up.
   */
  async record(teamId: string, tokens: number): Promise<void> {
    if (!Number.isFinite(tokens) || tokens <= 0) return;
    const amount = Math.ceil(tokens);
    await this.redis.multi()
      .hincrby(this.keys.team(teamId), 'tokensUsed', amount)
      .hincrby(this.keys.teamTokensDaily(teamId), utcDay(this.now()), amount)
      .exec();
  }

  /** Tokens the team used since it was created. */
  async total(teamId: string): Promise<number> {
    return Number((await this.redis.hget(this.keys.team(teamId), 'tokensUsed')) ?? 0);
  }

  /** Every day with recorded use, oldest first. */
  async daily(teamId: string): Promise<DailyTokens[]> {
    const all = await this.redis.hgetall(this.keys.teamTokensDaily(teamId));
    return Object.entries(all)
      .map(([day, tokens]) => ({ day, tokens: Number(tokens) }))
      .sort((a, b) => a.day.localeCompare(b.day));
  }

  /** Tokens used in each period (same order), summed from the daily counters. */
  async usedIn(teamId: string, periods: readonly UsagePeriod[]): Promise<number[]> {
    return sumByPeriod(await this.redis.hgetall(this.keys.teamTokensDaily(teamId)), periods);
  }
}
