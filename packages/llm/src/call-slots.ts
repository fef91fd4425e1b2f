import { LlmError } from './types.js';

/**
 * A counting semaphore with a FIFO queue: at most `limit` holders; `acquire` resolves with an
 * idempotent release function. A waiter whose signal aborts leaves the queue (rejects with an
 * `aborted` {@link LlmError}) and never takes a slot.
 */
export class CallSlots {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly limit: number) {}

  /** Holders now. */
  get inFlight(): number {
    return this.active;
  }

  /** Waiters now. */
  get queued(): number {
    return this.waiting.length;
  }

  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(new LlmError('aborted', 'The LLM call was cancelled'));
    if (this.active < this.limit) {
      this.active += 1;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        this.active += 1;
        resolve(this.releaser());
      };
      const onAbort = (): void => {
        const i = this.waiting.indexOf(grant);
        if (i !== -1) this.waiting.splice(i, 1);
        reject(new LlmError('aborted', 'The LLM call was cancelled'));
      };
      this.waiting.push(grant);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active -= 1;
      this.waiting.shift()?.();
    };
  }
}
