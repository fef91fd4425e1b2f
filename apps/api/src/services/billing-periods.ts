/** One billing period: `start` included, `end` excluded, both at 00:00 UTC. */
export interface BillingPeriod {
  start: Date;
  end: Date;
}

/** The period of a month counted from the anchor day; a day past the month's end falls on its last day. */
function periodStart(anchorDay: number, year: number, month: number): Date {
  const first = new Date(Date.UTC(year, month, 1));
  const daysInMonth = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
  return new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth(), Math.min(anchorDay, daysInMonth)));
}

/**
 * A team's billing periods, current first, going back to the one its creation falls in (at most
 * `max`): calendar months counted from the creation day (UTC).
 * @param createdAt the team's creation time, ISO 8601.
 * @param opts.max most periods returned (default 1: the current one).
 */
export function billingPeriods(createdAt: string, now: Date, opts: { max?: number } = {}): BillingPeriod[] {
  const created = new Date(createdAt);
  const anchorDay = Number.isNaN(created.getTime()) ? 1 : created.getUTCDate();
  let month = now.getUTCMonth();
  if (periodStart(anchorDay, now.getUTCFullYear(), month) > now) month -= 1;
  const out: BillingPeriod[] = [];
  const max = opts.max ?? 1;
  for (let k = 0; out.length < max; k++) {
    const start = periodStart(anchorDay, now.getUTCFullYear(), month - k);
    const end = periodStart(anchorDay, now.getUTCFullYear(), month - k + 1);
    // Periods before the team existed are left out; the current one is always there.
    if (k > 0 && end <= created) break;
    out.push({ start, end });
  }
  return out;
}
