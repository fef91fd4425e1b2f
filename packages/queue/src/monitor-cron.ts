import { CronExpressionParser } from 'cron-parser';
import { TrawlError, type MonitorSchedule } from '@trawl/api-schema';

/** Runs sampled to find the shortest interval of a schedule, and the time span sampled at most. */
const INTERVAL_SAMPLE_RUNS = 500;
const INTERVAL_SAMPLE_MS = 366 * 86_400_000;

function parse(schedule: MonitorSchedule, from: Date) {
  return CronExpressionParser.parse(schedule.cron, { tz: schedule.timezone, currentDate: from });
}

function scheduleError(message: string): TrawlError {
  return new TrawlError('BAD_REQUEST', `Bad Request: schedule.cron: ${message}`, {
    details: { issues: [{ path: 'schedule.cron', code: 'custom', message }] },
  });
}

/**
 * The shortest time between two runs of a schedule, seconds, sampled over the next 500 runs (at most
 * a year of them); null when it never runs. Irregular expressions (`0,1 * * * *`) count by their
 * closest pair.
 */
export function shortestIntervalSec(schedule: MonitorSchedule, from: Date = new Date()): number | null {
  const runs = parse(schedule, from);
  let previous: number | undefined;
  let shortest = Infinity;
  for (let i = 0; i < INTERVAL_SAMPLE_RUNS; i++) {
    let at: number;
    try {
      at = runs.next().getTime();
    } catch {
      break; // no further run
    }
    if (previous !== undefined) shortest = Math.min(shortest, at - previous);
    previous = at;
    if (at - from.getTime() > INTERVAL_SAMPLE_MS && shortest !== Infinity) break;
  }
  return shortest === Infinity ? null : shortest / 1000;
}

/**
 * Checks a normalized schedule with cron-parser, the parser BullMQ's job schedulers use (so the API
 * accepts exactly what the scheduler can run), and that two runs are at least `minIntervalSec` apart.
 * @throws TrawlError BAD_REQUEST whose `details.issues` name `schedule.cron`.
 */
export function assertMonitorSchedule(schedule: MonitorSchedule, opts: { minIntervalSec: number; now?: Date }): void {
  let interval: number | null;
  try {
    interval = shortestIntervalSec(schedule, opts.now);
  } catch (err) {
    throw scheduleError(err instanceof Error ? err.message : String(err));
  }
  if (interval === null) throw scheduleError(`"${schedule.cron}" never runs twice`);
  if (interval < opts.minIntervalSec) {
    throw scheduleError(`"${schedule.cron}" runs every ${interval} s; the shortest interval allowed is ${opts.minIntervalSec} s`);
  }
}

/** The next run of a schedule after `from`, or null when there is none (or it does not parse). */
export function nextMonitorRun(schedule: MonitorSchedule, from: Date = new Date()): Date | null {
  try {
    return parse(schedule, from).next().toDate();
  } catch {
    return null;
  }
}
