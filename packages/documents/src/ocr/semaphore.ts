import { abortError } from '@trawl/scrape-engine';

interface Waiter {
  grant: (release: () => void) => void;
}

/**
 * A counting semaphore with first-come first-served waiters that give up when their signal fires.
 * Used to cap the OCR processes one worker runs at once.
 */
export class Semaphore {
  private available: number;
  private readonly waiters: Waiter[] = [];

  /** @param permits holders allowed at once (at least 1). */
  constructor(readonly permits: number) {
    if (!Number.isInteger(permits) || permits < 1) throw new RangeError(`permits must be a positive integer, got ${permits}`);
    this.available = permits;
  }

  /** Holders right now. */
  get active(): number {
    return this.permits - this.available;
  }

  /** Callers waiting for a permit. */
  get waiting(): number {
    return this.waiters.length;
  }

  /**
   * Resolves with a release function once a permit is free; calling it more than once is harmless.
   * Rejects with the signal's error (see `abortError`) if the signal fires first, and then holds nothing.
   */
  acquire(signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(abortError(signal));
    if (this.available > 0) {
      this.available--;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: (release) => {
          signal.removeEventListener('abort', onAbort);
          resolve(release);
        },
      };
      const onAbort = () => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(abortError(signal));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // Hand the permit straight to the next waiter so a newcomer cannot overtake the queue.
      const next = this.waiters.shift();
      if (next) next.grant(this.releaser());
      else this.available++;
    };
  }
}
