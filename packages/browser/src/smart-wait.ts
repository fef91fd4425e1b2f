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
  /**
   * Both quiet periods once the page loaded and has nothing scheduled (no short timer or animation
   * frame pending, no request in flight: see {@link PENDING_WORK_SCRIPT}), ms. Default 50. A static
   * page, or a script page that finished its work, then waits this long instead of
   * `afterLoadQuietMs`; a request during the wait has the page checked again.
   */
  idleQuietMs?: number;
  signal: AbortSignal;
}

/**
 * Counts a context's requests in flight. Long-lived requests (event streams, long polls) would keep
 * the network "busy" forever, so requests older than `staleAfterMs` stop counting. One tracker
 * follows a context for its whole life ({@link reset} before each of its pages): an event's first
 * listener added and its last one removed are each a Playwright call (a message to its in-process
 * server turning the event's delivery on or off, with a captured stack trace), six a page when a
 * tracker came and went with every page.
 */
export class NetworkTracker {
  private readonly inFlight = new Map<Request, number>();
  private lastActivity = Date.now();

  /** Follows `context` until it closes. */
  constructor(context: BrowserContext, private readonly staleAfterMs = 5000) {
    const started = (r: Request) => { this.inFlight.set(r, Date.now()); this.lastActivity = Date.now(); };
    const done = (r: Request) => { this.inFlight.delete(r); this.lastActivity = Date.now(); };
    context.on('request', started);
    context.on('requestfinished', done);
    context.on('requestfailed', done);
  }

  /**
   * Starts over for the context's next page, as a new tracker would: nothing in flight (requests of
   * an earlier page no longer count), the network idle since now.
   */
  reset(): void {
    this.inFlight.clear();
    this.lastActivity = Date.now();
  }

  /** Requests in flight that are not stale. */
  busy(now = Date.now()): number {
    let n = 0;
    for (const started of this.inFlight.values()) if (now - started < this.staleAfterMs) n += 1;
    return n;
  }

  /** When the last request started or ended (`Date.now()`). */
  lastActivityAt(): number {
    return this.lastActivity;
  }

  /** ms since the last request started or ended. */
  idleFor(now = Date.now()): number {
    return now - this.lastActivity;
  }
}

/** Where {@link PENDING_WORK_SCRIPT} keeps its counter in a document (`Symbol.for`, not enumerable). */
const PENDING_WORK_KEY = 'trawl.pendingWork';
/** Timers longer than this are not pending work (pollers, banners' time-outs, prefetch delays), ms. */
const PENDING_TIMER_MAX_MS = 300;

/**
 * Init script (main world, every document): counts the page's pending short timers (`setTimeout` of at
 * most {@link PENDING_TIMER_MAX_MS} ms, not yet run or cleared) and animation frames. Once the load
 * event fired, a page with none of them and no request in flight has nothing scheduled that could
 * still change it: the smart wait then needs only a short quiet period instead of the full one. Only
 * the standard browser runs it (the wrappers are not native functions: the stealth browser keeps the
 * page's own). Kept as page-side JavaScript source: the packages compile without DOM types.
 */
export const PENDING_WORK_SCRIPT = String.raw`(() => {
  const key = Symbol.for('${PENDING_WORK_KEY}');
  if (window[key]) return;
  const timers = new Set();
  const frames = new Set();
  const st = window.setTimeout, ct = window.clearTimeout, raf = window.requestAnimationFrame, caf = window.cancelAnimationFrame;
  const wrappers = {
    setTimeout(handler) {
      const ms = Number(arguments[1]) || 0;
      if (typeof handler !== 'function' || ms > ${PENDING_TIMER_MAX_MS}) return Reflect.apply(st, window, arguments);
      const args = Array.prototype.slice.call(arguments, 2);
      const id = st.call(window, function () { timers.delete(id); return handler.apply(this, args); }, ms);
      timers.add(id);
      return id;
    },
    clearTimeout(id) { timers.delete(id); return Reflect.apply(ct, window, arguments); },
    requestAnimationFrame(callback) {
      if (typeof callback !== 'function') return Reflect.apply(raf, window, arguments);
      const id = raf.call(window, function (time) { frames.delete(id); return callback.call(this, time); });
      frames.add(id);
      return id;
    },
    cancelAnimationFrame(id) { frames.delete(id); return Reflect.apply(caf, window, arguments); },
  };
  window.setTimeout = wrappers.setTimeout;
  window.clearTimeout = wrappers.clearTimeout;
  window.requestAnimationFrame = wrappers.requestAnimationFrame;
  window.cancelAnimationFrame = wrappers.cancelAnimationFrame;
  Object.defineProperty(window, key, { value: Object.freeze({ pending: () => timers.size + frames.size, setTimeout: st, clearTimeout: ct }) });
})();`;

/**
 * Page-side: resolves once no DOM mutation happened for the quiet period that applies: `quiet` ms
 * while the document loads, `quietAfterLoad` ms once it is complete, `idle` ms once it is complete and
 * has no pending work (see {@link PENDING_WORK_SCRIPT}); or after `max` ms. Resolves with the page's
 * clock (`Date.now()`) when it ended idle (complete, nothing pending), 0 otherwise. Its own timers
 * are the page's original ones.
 */
const DOM_STABLE = String.raw`([quiet, quietAfterLoad, idle, max]) => new Promise((resolve) => {
  const work = window[Symbol.for('${PENDING_WORK_KEY}')];
  const later = work ? work.setTimeout : setTimeout;
  const cancel = work ? work.clearTimeout : clearTimeout;
  const isIdle = () => document.readyState === 'complete' && work !== undefined && work.pending() === 0;
  const period = () => document.readyState !== 'complete' ? quiet : isIdle() ? idle : quietAfterLoad;
  const started = Date.now();
  let last = started;
  let timer;
  const observer = new MutationObserver(() => { last = Date.now(); });
  const done = (result) => { observer.disconnect(); cancel(timer); resolve(result); };
  const check = () => {
    const now = Date.now();
    if (now - started >= max) return done(0);
    const p = period();
    if (now - last >= p) return done(isIdle() ? now : 0);
    // Re-checked at least every idle period: pending work that ends shortens the wait.
    timer = later(check, Math.max(1, Math.min(p - (now - last), idle, max - (now - started))));
  };
  observer.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
  check();
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
  const idleQuietMs = Math.min(opts.idleQuietMs ?? 50, afterLoadQuietMs);
  if (deadline <= started) return 0;
  // Resolves at once when the page already loaded (Playwright tracks the frame's load state).
  let loaded = false;
  void page.waitForLoadState('load', { timeout: Math.max(1, opts.budgetMs) }).then(() => { loaded = true; }, () => undefined);
  // Both conditions are watched at once: the wait ends when the later of the two is met, not after
  // their sum. The page-side observer caps itself at the budget; the local timer covers a page whose
  // main thread is stuck (the evaluate would never answer). Whichever ends first cancels the other.
  const stop = new AbortController();
  const bounded = AbortSignal.any([opts.signal, stop.signal]);
  const domCheck = (): Promise<number> => {
    const left = Math.max(1, deadline - Date.now());
    const args = [domQuietMs, Math.min(domQuietMs, afterLoadQuietMs), idleQuietMs, left];
    return Promise.race([
      page.evaluate<number>(`(${DOM_STABLE})(${JSON.stringify(args)})`).then((at) => (typeof at === 'number' ? at : 0), () => 0),
      delay(left + 50, bounded).then(() => 0, () => 0),
    ]);
  };
  try {
    for (;;) {
      // The page's clock when it was last seen idle (loaded, nothing scheduled, DOM quiet); 0 until then.
      let idleAt = 0;
      let checked = false;
      const check = domCheck().then((at) => { idleAt = at; checked = true; });
      while (Date.now() < deadline) {
        opts.signal.throwIfAborted();
        const quietMs = idleAt > 0 ? idleQuietMs : loaded ? Math.min(networkQuietMs, afterLoadQuietMs) : networkQuietMs;
        if (network.busy() === 0 && network.idleFor() >= quietMs) break;
        // Woken early when the page turns idle: its network quiet is then the short one.
        await Promise.race([delay(Math.min(50, Math.max(1, deadline - Date.now())), opts.signal), ...(checked ? [] : [check])]);
      }
      await check;
      // An idle page settled unless a request started or ended around or after the moment it was seen
      // idle: the page may not have reacted to it yet (a response that starts a render or a timer).
      if (idleAt === 0 || Date.now() >= deadline || network.lastActivityAt() <= idleAt - idleQuietMs / 2) break;
    }
  } finally {
    stop.abort();
  }
  opts.signal.throwIfAborted();
  return Date.now() - started;
}

export { delay as abortableDelay };
