/**
 * Per-UTC-day usage counters (a hash `day -> amount` per team), shared by the credit and token
 * ledgers: billing periods start at 00:00 UTC, so a day never straddles two periods and any period's
 * use is the sum of its days.
 */

/** A time range, `start` included, `end` excluded (a billing period). */
export interface UsagePeriod {
  start: Date;
  end: Date;
}

/** The UTC day (`YYYY-MM-DD`) of a time in ms: the field of the daily counter hash. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The use in each period (same order), summed from a daily counter hash as `HGETALL` returns it. */
export function sumByPeriod(days: Record<string, string>, periods: readonly UsagePeriod[]): number[] {
  const entries = Object.entries(days);
  return periods.map((p) => {
    const [from, to] = [utcDay(p.start.getTime()), utcDay(p.end.getTime())];
    return entries.reduce((sum, [day, n]) => (day >= from && day < to ? sum + Number(n) : sum), 0);
  });
}
