/**
 * Monitor schedules without dependencies: the natural-language subset of `schedule.text` normalized
 * to a 5-field cron expression, the shape of a cron expression, and IANA time zone names. The full
 * cron check (and the next run times) uses cron-parser in `@trawl/queue`, the same parser BullMQ
 * schedules with, so what the API accepts is what the scheduler can run.
 */

/** The outcome of {@link scheduleTextToCron}. */
export type ScheduleTextResult = { ok: true; cron: string } | { ok: false; error: string };

/** The phrases `schedule.text` understands, for error messages and documentation. */
export const SCHEDULE_TEXT_EXAMPLES = [
  'every 15 minutes',
  'every 2 hours',
  'hourly',
  'daily',
  'daily at 9:00',
  'every day at 9am',
  'every weekday at 8:30',
  'weekly',
  'weekly on monday at 10:00',
  'every friday at 5pm',
  'monthly',
] as const;

const DAYS: Record<string, number> = {
  sunday: 0, sun: 0, monday: 1, mon: 1, tuesday: 2, tue: 2, tues: 2, wednesday: 3, wed: 3,
  thursday: 4, thu: 4, thur: 4, thurs: 4, friday: 5, fri: 5, saturday: 6, sat: 6,
};
const DAY = `(${Object.keys(DAYS).join('|')})s?`;
const TIME = '(noon|midnight|\\d{1,2}(?::\\d{2})?\\s*(?:am|pm)?)';
const AT = `(?:\\s+at\\s+${TIME})?`;

/** A time of day: `9`, `09:30`, `9am`, `9:30 pm`, `noon`, `midnight`. Null when out of range. */
function parseTime(raw: string | undefined): { hour: number; minute: number } | null {
  if (raw === undefined) return { hour: 0, minute: 0 };
  if (raw === 'noon') return { hour: 12, minute: 0 };
  if (raw === 'midnight') return { hour: 0, minute: 0 };
  const m = /^(\d{1,2})(?::(\d{2}))?\s*(am|pm)?$/.exec(raw);
  if (!m) return null;
  let hour = Number(m[1]);
  const minute = m[2] === undefined ? 0 : Number(m[2]);
  if (minute > 59) return null;
  if (m[3] !== undefined) {
    if (hour < 1 || hour > 12) return null;
    hour = (hour % 12) + (m[3] === 'pm' ? 12 : 0);
  } else if (hour > 23) {
    return null;
  }
  return { hour, minute };
}

const DIVISORS_60 = [1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30];
const DIVISORS_24 = [1, 2, 3, 4, 6, 8, 12];

/** Cron of "every N minutes": only steps that divide the hour, so every interval really is N minutes. */
function everyMinutes(n: number): ScheduleTextResult {
  if (n === 60) return { ok: true, cron: '0 * * * *' };
  if (!DIVISORS_60.includes(n)) {
    return { ok: false, error: `"every ${n} minutes" has no exact cron form; use one of ${DIVISORS_60.join(', ')} minutes, or a cron expression` };
  }
  return { ok: true, cron: n === 1 ? '* * * * *' : `*/${n} * * * *` };
}

/** Cron of "every N hours": only steps that divide the day. */
function everyHours(n: number): ScheduleTextResult {
  if (n === 24) return { ok: true, cron: '0 0 * * *' };
  if (!DIVISORS_24.includes(n)) {
    return { ok: false, error: `"every ${n} hours" has no exact cron form; use one of ${DIVISORS_24.join(', ')} hours, or a cron expression` };
  }
  return { ok: true, cron: n === 1 ? '0 * * * *' : `0 */${n} * * *` };
}

type Rule = [RegExp, (m: RegExpExecArray) => ScheduleTextResult | { minute: number; hour: number; dom: string; dow: string } | null];

/** Day-based rules give a day pattern; the time (default midnight) is filled in by the caller. */
const RULES: Rule[] = [
  [/^every minute$/, () => ({ ok: true, cron: '* * * * *' })],
  [/^every (\d{1,4}) ?(?:minutes?|mins?)$/, (m) => everyMinutes(Number(m[1]))],
  [/^(?:hourly|every hour)$/, () => ({ ok: true, cron: '0 * * * *' })],
  [/^every (\d{1,3}) ?(?:hours?|hrs?)$/, (m) => everyHours(Number(m[1]))],
  [new RegExp(`^(?:daily|every day|each day)${AT}$`), (m) => day(m[1], '*', '*')],
  [new RegExp(`^at ${TIME} (?:daily|every day)$`), (m) => day(m[1], '*', '*')],
  [new RegExp(`^(?:every weekday|weekdays|on weekdays)${AT}$`), (m) => day(m[1], '*', '1-5')],
  [new RegExp(`^(?:every weekend day|weekends|on weekends)${AT}$`), (m) => day(m[1], '*', '0,6')],
  [new RegExp(`^weekly${AT}$`), (m) => day(m[1], '*', '0')],
  [new RegExp(`^(?:weekly on|every|on) ${DAY}${AT}$`), (m) => day(m[2], '*', String(DAYS[m[1]!]))],
  [new RegExp(`^monthly${AT}$`), (m) => day(m[1], '1', '*')],
];

function day(time: string | undefined, dom: string, dow: string) {
  const t = parseTime(time);
  return t === null ? null : { minute: t.minute, hour: t.hour, dom, dow };
}

/**
 * Normalizes a natural-language schedule to a 5-field cron expression (minute hour day-of-month
 * month day-of-week). Case and extra spaces do not matter. Anything outside the subset (see
 * {@link SCHEDULE_TEXT_EXAMPLES}) is an error naming the phrases that work; nothing is guessed.
 * Pure.
 */
export function scheduleTextToCron(text: string): ScheduleTextResult {
  const t = text.trim().toLowerCase().replace(/\s+/g, ' ').replace(/\.$/, '');
  for (const [re, build] of RULES) {
    const m = re.exec(t);
    if (!m) continue;
    const out = build(m);
    if (out === null) return { ok: false, error: `"${text}" has an invalid time of day (use 9:00, 09:30, 9am, 5:30pm, noon)` };
    if ('ok' in out) return out;
    return { ok: true, cron: `${out.minute} ${out.hour} ${out.dom} * ${out.dow}` };
  }
  return {
    ok: false,
    error: `Unsupported schedule text "${text}"; use a cron expression or a phrase like ${SCHEDULE_TEXT_EXAMPLES.map((e) => `"${e}"`).join(', ')}`,
  };
}

const CRON_FIELD = /^[0-9A-Za-z*/,?#-]+$/;

/**
 * Checks that `cron` looks like a 5-field cron expression and returns it with single spaces, or an
 * error. Seconds (a sixth field) are refused: monitors run at most once a minute. Field values are
 * checked by cron-parser in `@trawl/queue`.
 */
export function normalizeCronShape(cron: string): { ok: true; cron: string } | { ok: false; error: string } {
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5 || fields.some((f) => !CRON_FIELD.test(f))) {
    return { ok: false, error: 'cron must be a 5-field cron expression (minute hour day-of-month month day-of-week), e.g. "*/30 * * * *"' };
  }
  // cron-parser's hashed values (`H`) are random per parse: BullMQ would move the run every time.
  if (fields.some((f) => f.split(',').some((item) => /^h/i.test(item)))) {
    return { ok: false, error: 'cron: hashed values (H) are not supported; give the minute or hour' };
  }
  return { ok: true, cron: fields.join(' ') };
}

/**
 * The canonical IANA name of a time zone (`europe/paris` -> `Europe/Paris`), or null when it is not
 * one. Offsets and abbreviations other than `UTC` are refused (the scheduler needs a zone name).
 */
export function canonicalTimeZone(zone: string): string | null {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/.test(zone)) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}
