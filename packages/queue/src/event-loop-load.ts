import { performance, type EventLoopUtilization } from 'node:perf_hooks';

/** Options of {@link EventLoopLoad}. */
export interface EventLoopLoadOptions {
  /**
   * The loop is busy when its utilization over the last window is above this (0..1). 1: never busy
   * (small work always runs inline); 0: always busy (it never does).
   */
  maxUtilization: number;
  /** Length of the window the utilization is measured over, ms. Default 100. */
  windowMs?: number;
  now?: () => number;
  /** `performance.eventLoopUtilization` (tests give their own). */
  utilization?: (current?: EventLoopUtilization, previous?: EventLoopUtilization) => EventLoopUtilization;
}

/**
 * Whether this thread's event loop has room for small CPU work. Small conversions and compressions
 * run inline when it has: handing them to a thread costs more than doing them, and a lone request
 * waits less. Once the loop is busy (many pages in flight) they go to threads instead, so the other
 * cores take them and the loop keeps to the work only it can do. Read lazily: a call at most once
 * per window takes a new measurement; no timer runs.
 */
export class EventLoopLoad {
  private readonly now: () => number;
  private readonly windowMs: number;
  private readonly utilization: NonNullable<EventLoopLoadOptions['utilization']>;
  private mark: EventLoopUtilization;
  private markedAt: number;
  private wasBusy = false;

  constructor(private readonly opts: EventLoopLoadOptions) {
    this.now = opts.now ?? (() => performance.now());
    this.windowMs = opts.windowMs ?? 100;
    this.utilization = opts.utilization ?? ((current, previous) => performance.eventLoopUtilization(current, previous));
    this.mark = this.utilization();
    this.markedAt = this.now();
  }

  /** Whether the loop was busier than `maxUtilization` over the last completed window. */
  busy(): boolean {
    if (this.opts.maxUtilization >= 1) return false;
    if (this.opts.maxUtilization <= 0) return true;
    const now = this.now();
    if (now - this.markedAt >= this.windowMs) {
      const mark = this.utilization();
      this.wasBusy = this.utilization(mark, this.mark).utilization > this.opts.maxUtilization;
      this.mark = mark;
      this.markedAt = now;
    }
    return this.wasBusy;
  }
}
