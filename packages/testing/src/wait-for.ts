/** Options of {@link waitFor}. */
export interface WaitForOptions {
  /** What is awaited, for the error message ("the job to complete"). */
  what: string;
  /** Deadline, ms; generous by default because tests share a busy machine. Default 30 000. */
  timeoutMs?: number;
  /** Pause between two checks, ms. Default 50. */
  intervalMs?: number;
}

/** `T` without its falsy members. */
export type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

/**
 * Polls `check` until it returns a truthy value and resolves with that value. For conditions that
 * have no event to wait on (state in Redis, an HTTP status); the deadline only bounds a test that would
 * otherwise hang, it is never a timing assertion. Throws with `what` and the last value past the deadline.
 */
export async function waitFor<T>(check: () => T | Promise<T>, opts: WaitForOptions): Promise<Truthy<T>> {
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  for (;;) {
    const value = await check();
    if (value) return value as Truthy<T>;
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${opts.timeoutMs ?? 30_000} ms waiting for ${opts.what} (last: ${JSON.stringify(value)})`);
    }
    await new Promise((resolve) => setTimeout(resolve, opts.intervalMs ?? 50));
  }
}
