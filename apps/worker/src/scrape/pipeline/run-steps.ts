import type { Logger } from '@trawl/observability';
import { recordHop } from '@trawl/queue';

/**
 * One named step of a pipeline (the model is packages/html/src/pipeline.ts): it runs when `when`
 * says so (default: always), and `stop` after it ends the run early (a hand-off, a job already done).
 */
export interface Step<C> {
  /** The `step` label of `trawl_scrape_step_seconds`: fixed, from a bounded set. */
  readonly name: string;
  when?(ctx: C): boolean;
  run(ctx: C): Promise<void> | void;
}

/** Where a step's time goes: the histogram, and the job's logger at debug. */
export type StepTimer = (step: string, seconds: number, outcome: 'ok' | 'error') => void;

/** A timer observing `trawl_scrape_step_seconds{step}` and logging each step with the job's logger. */
export function stepTimer(histogram: { observe(labels: { step: string }, value: number): void }, log: Logger): StepTimer {
  return (step, seconds, outcome) => {
    histogram.observe({ step }, seconds);
    recordHop(`worker:${step}`, seconds * 1000);
    log.debug({ step, ms: Math.round(seconds * 1000), outcome }, 'scrape step');
  };
}

/** Runs one function as a timed step. */
export async function timed<T>(name: string, timer: StepTimer, fn: () => Promise<T> | T): Promise<T> {
  const t0 = performance.now();
  let outcome: 'ok' | 'error' = 'error';
  try {
    const out = await fn();
    outcome = 'ok';
    return out;
  } finally {
    timer(name, (performance.now() - t0) / 1000, outcome);
  }
}

/** Runs the steps in order, each timed, until one says the run is over (`stopped`). */
export async function runSteps<C>(steps: readonly Step<C>[], ctx: C, timer: StepTimer, stopped: (ctx: C) => boolean): Promise<void> {
  for (const step of steps) {
    if (stopped(ctx)) return;
    if (step.when && !step.when(ctx)) continue;
    await timed(step.name, timer, () => step.run(ctx));
  }
}
