import type { Redis } from 'ioredis';
import type { RedisKeys } from './redis-keys.js';

/** A time range, `start` included, `end` excluded (a billing period). */
export interface UsagePeriod {
  start: Date;
  end: Date;
}

/** One UTC day of a team's LLM token use. */
export interface DailyTokens {
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  tokens: number;
}

/** The UTC day (`YYYY-MM-DD`) of a time in ms. */
function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
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
    const days = await this.daily(teamId);
    return periods.map((p) => {
      const [from, to] = [utcDay(p.start.getTime()), utcDay(p.end.getTime())];
      return days.reduce((sum, d) => (d.day >= from && d.day < to ? sum + d.tokens : sum), 0);
    });
  }
}
