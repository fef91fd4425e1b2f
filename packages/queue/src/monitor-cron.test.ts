import { describe, expect, it } from '@jest/globals';
import { TrawlError } from '@trawl/api-schema';
import { assertMonitorSchedule, nextMonitorRun, shortestIntervalSec } from './monitor-cron.js';

const NOW = new Date('2026-03-27T10:07:30Z');
const utc = (cron: string) => ({ cron, timezone: 'UTC' });

function rejection(cron: string, minIntervalSec = 60): string {
  try {
    assertMonitorSchedule(utc(cron), { minIntervalSec, now: NOW });
  } catch (err) {
    expect(err).toBeInstanceOf(TrawlError);
    expect((err as TrawlError).code).toBe('BAD_REQUEST');
    expect((err as TrawlError).details).toMatchObject({ issues: [{ path: 'schedule.cron' }] });
    return (err as TrawlError).message;
  }
  throw new Error(`expected ${cron} to be refused`);
}

describe('shortestIntervalSec', () => {
  it('measures regular and irregular schedules', () => {
    expect(shortestIntervalSec(utc('* * * * *'), NOW)).toBe(60);
    expect(shortestIntervalSec(utc('*/30 * * * *'), NOW)).toBe(1800);
    expect(shortestIntervalSec(utc('0,1 9 * * *'), NOW)).toBe(60);
    expect(shortestIntervalSec(utc('0 9 * * 1-5'), NOW)).toBe(86_400);
    expect(shortestIntervalSec(utc('0 0 1 1 *'), NOW)).toBe(365 * 86_400);
  });
});

describe('assertMonitorSchedule', () => {
  it('accepts what cron-parser (and so BullMQ) can run, past the minimum interval', () => {
    for (const cron of ['*/5 * * * *', '0 9 * * MON-FRI', '0 0 L * *', '0 0 * * 5#2', '0 0 * * 7']) {
      expect(() => assertMonitorSchedule(utc(cron), { minIntervalSec: 60, now: NOW })).not.toThrow();
    }
  });

  it('names the field and the reason', () => {
    expect(rejection('61 * * * *')).toMatch(/^Bad Request: schedule\.cron: .*61/);
    expect(rejection('0 0 30 2 *')).toMatch(/day of month/);
    expect(rejection('x * * * *')).toMatch(/Invalid characters/);
    expect(rejection('*/5 * * * *', 600)).toBe('Bad Request: schedule.cron: "*/5 * * * *" runs every 300 s; the shortest interval allowed is 600 s');
  });
});

describe('nextMonitorRun', () => {
  it('reads the schedule in its time zone', () => {
    expect(nextMonitorRun(utc('*/30 * * * *'), NOW)?.toISOString()).toBe('2026-03-27T10:30:00.000Z');
    // 9:00 in Paris is 08:00 UTC before the switch to summer time (29 March 2026) and 07:00 after.
    expect(nextMonitorRun({ cron: '0 9 * * *', timezone: 'Europe/Paris' }, NOW)?.toISOString()).toBe('2026-03-28T08:00:00.000Z');
    expect(nextMonitorRun({ cron: '0 9 * * *', timezone: 'Europe/Paris' }, new Date('2026-03-29T12:00:00Z'))?.toISOString()).toBe('2026-03-30T07:00:00.000Z');
    expect(nextMonitorRun(utc('not a cron'), NOW)).toBeNull();
  });
});
