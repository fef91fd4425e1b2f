import type { Redis } from 'ioredis';
import { TrawlError } from '@trawl/api-schema';
import type { RedisKeys } from './redis-keys.js';
import { sumByPeriod, utcDay, type UsagePeriod } from './daily-usage.js';
import { defineScript } from './redis-script.js';

/** What a finished scrape used, as far as billing is concerned. */
export interface ScrapeUsage {
  /** PDF pages processed, when the target was a PDF parsed to markdown. */
  pdfPages?: number;
  /** The PDF was returned as a file (`parsers: []`): flat cost. */
  rawDocument?: boolean;
  /** Proxy tier that produced the result. */
  proxyUsed?: 'basic' | 'enhanced';
  /** Lockdown request: billed by cache outcome only. */
  lockdown?: { hit: boolean };
}

/**
 * The spec's cost rules, in one place; every feature charges through this function.
 * - a scrape costs 1; a PDF parsed to markdown costs 1 per page instead; `parsers: []` costs 1 flat;
 * - a result obtained through the enhanced proxy (asked for, or the `auto` retry) costs 4 more
 *   (5 for an ordinary page: the spec's "up to 5 credits per request");
 * - lockdown costs 5 on a cache hit and 1 on a miss, whatever else applies.
 */
export function scrapeCredits(usage: ScrapeUsage): number {
  if (usage.lockdown) return usage.lockdown.hit ? 5 : 1;
  let cost = usage.pdfPages !== undefined && !usage.rawDocument ? Math.max(1, usage.pdfPages) : 1;
  if (usage.proxyUsed === 'enhanced') cost += 4;
  return cost;
}

/**
 * A scrape's cost with what its document transformers add (an LLM format, ...): the page's cost from
 * {@link scrapeCredits} plus each transformer's declared credits. Billed once, with the outcome. A
 * lockdown scrape costs its flat amount whatever else applies: its formats add nothing.
 */
export function withFormatCredits(scrapeCost: number, formatCredits: readonly number[], opts: { lockdown: boolean }): number {
  if (opts.lockdown) return scrapeCost;
  return formatCredits.reduce((sum, c) => sum + Math.max(0, c), scrapeCost);
}

/** Remaining credits of a team, or null when unlimited. */
export function remainingCredits(team: { credits: number | null; creditsUsed: number }): number | null {
  return team.credits === null ? null : Math.max(0, team.credits - team.creditsUsed);
}

/**
 * INSUFFICIENT_CREDITS (402) when a team whose hash holds `credits` (unset or empty: unlimited) and
 * `creditsUsed` cannot pay `amount`; undefined when it can. The one rule of {@link CreditLedger.ensureAvailable}
 * and of readers that fetch the team's fields together with others (a crawl page's start).
 */
export function creditShortfall(credits: string | number | null | undefined, used: string | number | null | undefined, amount: number): TrawlError | undefined {
  if (credits === null || credits === undefined || credits === '') return undefined;
  const remaining = Number(credits) - Number(used ?? 0);
  if (remaining >= amount) return undefined;
  return new TrawlError('INSUFFICIENT_CREDITS', 'Payment required to access this resource.', {
    details: { remainingCredits: Math.max(0, remaining), required: amount },
  });
}

/**
 * CHARGE: adds ARGV[1] to the team hash's `creditsUsed` (KEYS[1]) and to today's field ARGV[2] of
 * the daily counters (KEYS[2]); both keys share the team's hash tag. Returns the new total spent.
 * One script call instead of MULTI/EXEC (four commands sent, and ioredis builds a pipeline object
 * for each): it runs for every page a crawl records.
 */
const chargeScript = defineScript({
  name: 'trawlChargeCredits',
  numberOfKeys: 2,
  lua: "local total = redis.call('HINCRBY', KEYS[1], 'creditsUsed', ARGV[1])\nredis.call('HINCRBY', KEYS[2], ARGV[2], ARGV[1])\nreturn total",
  decode: (reply) => Number(reply),
});

/**
 * Checks and charges team credits in Redis: the running total in the team hash (`creditsUsed`) and
 * one counter per UTC day, from which any billing period's use is summed (periods start at 00:00
 * UTC, so days never straddle two), as {@link TokenLedger} does for LLM tokens. Read by
 * `GET /v2/team/credit-usage(/historical)`.
 */
export class CreditLedger {
  private readonly now: () => number;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    opts: { now?: () => number } = {},
  ) {
    this.now = opts.now ?? Date.now;
  }

  /**
   * Throws INSUFFICIENT_CREDITS (402) when the team cannot pay `amount` now. Checked before an
   * operation starts; the exact cost is charged when it ends (a PDF's page count is known only then).
   * `read`: the team's record as this request read it from Redis a moment ago (not a cached copy):
   * checked against that, with no round trip.
   */
  async ensureAvailable(teamId: string, amount: number, read?: { credits: number | null; creditsUsed: number }): Promise<void> {
    const [credits, used] = read ? [read.credits, read.creditsUsed] : await this.redis.hmget(this.keys.team(teamId), 'credits', 'creditsUsed');
    const short = creditShortfall(credits, used, amount);
    if (short) throw short;
  }

  /**
   * Adds `amount` to the team's spent credits and to today's counter, atomically (both keys share
   * the team's hash tag); returns the new total spent.
   */
  async charge(teamId: string, amount: number): Promise<number> {
    if (amount <= 0) return Number((await this.redis.hget(this.keys.team(teamId), 'creditsUsed')) ?? 0);
    return chargeScript.run(this.redis, [this.keys.team(teamId), this.keys.teamCreditsDaily(teamId)], [amount, utcDay(this.now())]);
  }

  /** Credits used in each period (same order), summed from the daily counters. */
  async usedIn(teamId: string, periods: readonly UsagePeriod[]): Promise<number[]> {
    return sumByPeriod(await this.redis.hgetall(this.keys.teamCreditsDaily(teamId)), periods);
  }
}
