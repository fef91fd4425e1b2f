import { describe, expect, it } from '@jest/globals';
import { canonicalTimeZone, normalizeCronShape, scheduleTextToCron, SCHEDULE_TEXT_EXAMPLES } from './monitor-schedule.js';

function cron(text: string): string {
  const r = scheduleTextToCron(text);
  if (!r.ok) throw new Error(`expected ${text} to parse: ${r.error}`);
  return r.cron;
}

function error(text: string): string {
  const r = scheduleTextToCron(text);
  if (r.ok) throw new Error(`expected ${text} to fail, got ${r.cron}`);
  return r.error;
}

describe('scheduleTextToCron', () => {
  it.each([
    ['every minute', '* * * * *'],
    ['every 1 minute', '* * * * *'],
    ['every 5 minutes', '*/5 * * * *'],
    ['Every  30   Minutes', '*/30 * * * *'],
    ['every 15 mins', '*/15 * * * *'],
    ['every 60 minutes', '0 * * * *'],
    ['hourly', '0 * * * *'],
    ['every hour', '0 * * * *'],
    ['every 2 hours', '0 */2 * * *'],
    ['every 24 hours', '0 0 * * *'],
    ['daily', '0 0 * * *'],
    ['every day', '0 0 * * *'],
    ['daily at 9:00', '0 9 * * *'],
    ['daily at 09:30', '30 9 * * *'],
    ['every day at 9am', '0 9 * * *'],
    ['every day at 9:15 pm', '15 21 * * *'],
    ['daily at 12am', '0 0 * * *'],
    ['daily at 12pm', '0 12 * * *'],
    ['daily at noon', '0 12 * * *'],
    ['at 17:45 every day', '45 17 * * *'],
    ['every weekday at 8:30', '30 8 * * 1-5'],
    ['weekdays', '0 0 * * 1-5'],
    ['weekly', '0 0 * * 0'],
    ['weekly on monday at 10:00', '0 10 * * 1'],
    ['every friday at 5pm', '0 17 * * 5'],
    ['every sun', '0 0 * * 0'],
    ['on tuesdays at 7am', '0 7 * * 2'],
    ['monthly', '0 0 1 * *'],
    ['monthly at 6:00.', '0 6 1 * *'],
  ])('%s -> %s', (text, expected) => {
    expect(cron(text)).toBe(expected);
  });

  it('every documented example parses', () => {
    for (const example of SCHEDULE_TEXT_EXAMPLES) expect(scheduleTextToCron(example).ok).toBe(true);
  });

  it('refuses steps that have no exact cron form, naming the ones that do', () => {
    expect(error('every 7 minutes')).toMatch(/every 7 minutes.*1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30/);
    expect(error('every 0 minutes')).toMatch(/no exact cron form/);
    expect(error('every 5 hours')).toMatch(/1, 2, 3, 4, 6, 8, 12 hours/);
  });

  it('refuses invalid times of day', () => {
    expect(error('daily at 25:00')).toMatch(/invalid time of day/);
    expect(error('daily at 9:75')).toMatch(/invalid time of day/);
    expect(error('daily at 13pm')).toMatch(/invalid time of day/);
  });

  it('refuses anything else with the phrases that work', () => {
    for (const text of ['sometimes', 'every 2 seconds', 'every 3 days', 'twice a day', '', 'daily at', 'every blursday']) {
      expect(error(text)).toMatch(/Unsupported schedule text.*"every 15 minutes"/);
    }
  });
});

describe('normalizeCronShape', () => {
  it('accepts 5 fields and collapses spaces', () => {
    expect(normalizeCronShape('  */30   *  * * 1-5 ')).toEqual({ ok: true, cron: '*/30 * * * 1-5' });
    expect(normalizeCronShape('0 9 * JAN MON')).toEqual({ ok: true, cron: '0 9 * JAN MON' });
    expect(normalizeCronShape('0 9 * * THU')).toEqual({ ok: true, cron: '0 9 * * THU' });
  });

  it('refuses seconds, missing fields and stray characters', () => {
    for (const bad of ['* * * * * *', '* * * *', '', '0 9 * * 1;rm', '@daily', 'H * * * *', '0 H/2 * * *']) {
      expect(normalizeCronShape(bad).ok).toBe(false);
    }
  });
});

describe('canonicalTimeZone', () => {
  it('returns IANA names canonically', () => {
    expect(canonicalTimeZone('UTC')).toBe('UTC');
    expect(canonicalTimeZone('Europe/Paris')).toBe('Europe/Paris');
    expect(canonicalTimeZone('america/new_york')).toBe('America/New_York');
    expect(canonicalTimeZone('Etc/GMT+5')).toBe('Etc/GMT+5');
  });

  it('refuses unknown zones and offsets', () => {
    for (const bad of ['Mars/Olympus', 'Europe/', '+01:00', 'UTC+1 ', '', '../etc']) expect(canonicalTimeZone(bad)).toBeNull();
  });
});
