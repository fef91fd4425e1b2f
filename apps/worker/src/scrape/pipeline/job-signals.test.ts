import { describe, expect, it } from '@jest/globals';
import { TrawlError } from '@trawl/api-schema';
import { JobSignals } from './context.js';

describe('JobSignals', () => {
  it('gives the steps of one deadline one signal, and a new one when the deadline moves', () => {
    let deadline = 10_000;
    let now = 0;
    const signals = new JobSignals(() => deadline, undefined, new AbortController().signal, () => now);
    const first = signals.next();
    now = 400;
    const second = signals.next();
    expect(second.signal).toBe(first.signal);
    expect(second.remaining).toBe(9_600);
    deadline = 20_000; // a crawl page's timeout restarts at its host slot
    const third = signals.next();
    expect(third.signal).not.toBe(first.signal);
    expect(third.remaining).toBe(19_600);
  });

  it('fires on cancellation and shutdown, refuses a cancelled job and one past its deadline', () => {
    const cancel = new AbortController();
    const shutdown = new AbortController();
    let now = 0;
    const signals = new JobSignals(() => 1_000, cancel.signal, shutdown.signal, () => now);
    const { signal } = signals.next();
    shutdown.abort(new Error('stopping'));
    expect(signal.aborted).toBe(true);
    // An aborted signal is not handed out again.
    expect(signals.next().signal).not.toBe(signal);
    cancel.abort(new TrawlError('JOB_CANCELLED', 'cancelled'));
    expect(() => signals.next()).toThrow(expect.objectContaining({ code: 'JOB_CANCELLED' }) as unknown as Error);
    const late = new JobSignals(() => 1_000, undefined, new AbortController().signal, () => now);
    now = 1_000;
    expect(() => late.next()).toThrow(expect.objectContaining({ code: 'SCRAPE_TIMEOUT' }) as unknown as Error);
  });
});
