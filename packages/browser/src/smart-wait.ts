import type { BrowserContext, Page, Request } from 'playwright-core';

/** Options of {@link waitForQuiet}. */
export interface QuietOptions {
  /** Most time to spend waiting, ms. */
  budgetMs: number;
  /** The network is quiet after this long without a request in flight, ms. Default 500. */
  networkQuietMs?: number;
  /** The DOM is stable after this long without a mutation, ms. Default 300. */
  domQuietMs?: number;
  /**
   * Both quiet periods once the page's load event fired, ms. Default 250. By then the document and
   * everything it referenced have arrived: what is left to wait for is work the page's scripts start
   * (a data fetch, a render), which shows up within moments as a request or a mutation; a static page
   * settles at once. Waiting the full 500 ms here cost about 300 ms a page.
   */
  afterLoadQuietMs?: number;
  signal: AbortSignal;
}

/**
 * Counts a context's requests in flight. Long-lived requests (event streams, long polls) would keep
 * the network "busy" forever, so requests older than `staleAfterMs` stop counting.
 */
export class NetworkTracker {
  private readonly inFlight = new Map<Request, number>();
  private lastActivity = Date.now();

  private readonly dispose_: () => void;

  constructor(context: BrowserContext, private readonly staleAfterMs = 5000) {
    const started = (r: Request) => { this.inFlight.set(r, Date.now()); this.lastActivity = Date.now(); };
    const done = (r: Request) => { this.inFlight.delete(r); this.lastActivity = Date.now(); };
    context.on('request', started);
    context.on('requestfinished', done);
    context.on('requestfailed', done);
    this.dispose_ = () => {
      context.off('request', started);
      context.off('requestfinished', done);
      context.off('requestfailed', done);
    };
  }

  /** Stops following the context (it may serve further pages). */
  dispose(): void {
    this.dispose_();
  }

  /** Requests in flight that are not stale. */
  busy(now = Date.now()): number {
    let n = 0;
    for (const started of this.inFlight.values()) if (now - started < this.staleAfterMs) n += 1;
    return n;
  }

  /** ms since the last request started or ended. */
  idleFor(now = Date.now()): number {
    return now - this.lastActivity;
  }
}

/**
 * Page-side: resolves once no DOM mutation happened for `quiet` ms (`quietAfterLoad` ms once the
 * document is complete), or after `max` ms.
 */
const DOM_STABLE = String.raw`([quiet, quietAfterLoad, max]) => new Promise((resolve) => {
  let timer;
  const started = Date.now();
  const period = () => document.readyState === 'complete' ? quietAfterLoad : quiet;
  const done = () => { observer.disconnect(); clearTimeout(timer); clearTimeout(cap); resolve(Date.now() - started); };
  const observer = new MutationObserver(() => { clearTimeout(timer); timer = setTimeout(done, period()); });
  observer.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
  timer = setTimeout(done, period());
  const cap = setTimeout(done, max);
})`;

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) { reject(signal.reason as Error); return; }
    const t = setTimeout(() => { signal.removeEventListener('abort', onAbort); resolve(); }, ms);
    const onAbort = () => { clearTimeout(t); reject(signal.reason as Error); };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The smart wait before capture: until the network has been quiet and the DOM stable for a moment,
 * bounded by `budgetMs`. Returns the time spent. Never throws for a page that keeps changing; only
 * the signal ends it early.
 */
export async function waitForQuiet(page: Page, network: NetworkTracker, opts: QuietOptions): Promise<number> {
  const started = Date.now();
  const deadline = started + Math.max(0, opts.budgetMs);
  const networkQuietMs = opts.networkQuietMs ?? 500;
  const domQuietMs = opts.domQuietMs ?? 300;
  const afterLoadQuietMs = opts.afterLoadQuietMs ?? 250;
  if (deadline <= started) return 0;
  // Resolves at once when the page already loaded (Playwright tracks the frame's load state).
  let loaded = false;
  void page.waitForLoadState('load', { timeout: Math.max(1, opts.budgetMs) }).then(() => { loaded = true; }, () => undefined);
  // Both conditions are watched at once: the wait ends when the later of the two is met, not after
  // their sum. The page-side observer caps itself at the budget; the local timer covers a page whose
  // main thread is stuck (the evaluate would never answer). Whichever ends first cancels the other.
  const stop = new AbortController();
  const bounded = AbortSignal.any([opts.signal, stop.signal]);
  const domStable = Promise.race([
    page.evaluate(`(${DOM_STABLE})(${JSON.stringify([domQuietMs, Math.min(domQuietMs, afterLoadQuietMs), opts.budgetMs])})`).catch(() => undefined),
    delay(opts.budgetMs + 50, bounded).catch(() => undefined),
  ]);
  try {
    while (Date.now() < deadline) {
      opts.signal.throwIfAborted();
      if (network.busy() === 0 && network.idleFor() >= (loaded ? Math.min(networkQuietMs, afterLoadQuietMs) : networkQuietMs)) break;
      await delay(Math.min(50, Math.max(1, deadline - Date.now())), opts.signal);
    }
    await domStable;
  } finally {
    stop.abort();
  }
  opts.signal.throwIfAborted();
  return Date.now() - started;
}

export { delay as abortableDelay };
