import { channel } from 'node:diagnostics_channel';

/**
 * Timing of the hops of a scrape (admission, BullMQ add, worker pick-up, each pipeline step, the
 * result's wake-up, serialization), published on the `trawl:hop` diagnostics channel, where a
 * benchmark subscribes (`scripts/bench/scrape.bench.mjs --hops`). Nothing is computed or sent while
 * nobody listens. A diagnostics channel is Node's process-wide, named publication point (as undici's
 * are): the one global here, and an inert one.
 */
export interface HopTiming {
  /** `gateway:<hop>` or `worker:<hop>`. */
  hop: string;
  ms: number;
}

const hops = channel('trawl:hop');

/** Whether anyone listens (callers skip taking timestamps otherwise). */
export function hopTimingOn(): boolean {
  return hops.hasSubscribers;
}

/** Publishes one hop's duration, ms. */
export function recordHop(hop: string, ms: number): void {
  if (hops.hasSubscribers) hops.publish({ hop, ms } satisfies HopTiming);
}

/** Runs `fn`, timing it as `hop` when anyone listens. */
export async function timeHop<T>(hop: string, fn: () => Promise<T>): Promise<T> {
  if (!hops.hasSubscribers) return fn();
  const t0 = performance.now();
  try {
    return await fn();
  } finally {
    recordHop(hop, performance.now() - t0);
  }
}
