import { describe, expect, it } from '@jest/globals';
import { billingPeriods } from './billing-periods.js';

const iso = (p: { start: Date; end: Date }) => [p.start.toISOString().slice(0, 10), p.end.toISOString().slice(0, 10)];

describe('billingPeriods', () => {
  it('counts calendar months from the creation day, current first', () => {
    const periods = billingPeriods('2026-01-10T15:00:00Z', new Date('2026-03-20T00:00:00Z'), { max: 12 });
    expect(periods.map(iso)).toEqual([['2026-03-10', '2026-04-10'], ['2026-02-10', '2026-03-10'], ['2026-01-10', '2026-02-10']]);
  });

  it('is in the previous month before the anniversary day, and starts at 00:00 UTC', () => {
    const [current] = billingPeriods('2025-06-25T23:00:00Z', new Date('2026-03-05T00:00:00Z'));
    expect(current).toEqual({ start: new Date('2026-02-25T00:00:00Z'), end: new Date('2026-03-25T00:00:00Z') });
  });

  it('puts a day past the end of a short month on its last day, so periods stay contiguous', () => {
    const periods = billingPeriods('2025-12-31T00:00:00Z', new Date('2026-04-01T00:00:00Z'), { max: 3 });
    expect(periods.map(iso)).toEqual([['2026-03-31', '2026-04-30'], ['2026-02-28', '2026-03-31'], ['2026-01-31', '2026-02-28']]);
  });

  it('stops at max and crosses years', () => {
    const periods = billingPeriods('2020-05-01T00:00:00Z', new Date('2026-02-15T00:00:00Z'), { max: 3 });
    expect(periods.map(iso)).toEqual([['2026-02-01', '2026-03-01'], ['2026-01-01', '2026-02-01'], ['2025-12-01', '2026-01-01']]);
  });
});
