/** Options of {@link TokenBucket}. */
export interface TokenBucketOptions {
  /** Tokens added per minute. */
  ratePerMin: number;
  /** Tokens it holds at most (the burst); it starts full. */
  capacity: number;
  /** Clock, ms. Default `Date.now`. */
  now?: () => number;
}

/**
 * A token bucket: {@link take} resolves once a token is there, waiting as long as the caller's
 * signal allows (a rate limit delays a search; only the search's own deadline fails it).
 */
export class TokenBucket {
  private tokens: number;
  private last: number;
  private readonly now: () => number;
  /** Waiters in arrival order, so a burst is served first come, first served. */
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly opts: TokenBucketOptions) {
    this.now = opts.now ?? Date.now;
    this.tokens = opts.capacity;
    this.last = this.now();
  }

  /**
   * Takes one token, waiting for it.
   * @throws the signal's reason when it aborts first (no token is taken then).
   */
  async take(signal: AbortSignal): Promise<void> {
    const turn = this.queue.then(() => this.takeInTurn(signal));
    // The next waiter goes after this one, whether it got its token or gave up.
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private async takeInTurn(signal: AbortSignal): Promise<void> {
    for (;;) {
      signal.throwIfAborted();
      this.refill();
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      const waitMs = Math.ceil(((1 - this.tokens) * 60_000) / this.opts.ratePerMin);
      await delay(waitMs, signal);
    }
  }

  private refill(): void {
    const now = this.now();
    const elapsed = Math.max(0, now - this.last);
    this.last = now;
    this.tokens = Math.min(this.opts.capacity, this.tokens + (elapsed * this.opts.ratePerMin) / 60_000);
  }
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
