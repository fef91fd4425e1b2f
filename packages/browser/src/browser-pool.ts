import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { TrawlError } from '@trawl/api-schema';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions } from 'playwright-core';
import { addExtra } from 'playwright-extra';
import StealthPlugin from 'puppeteer-extra-plugin-stealth';

/**
 * `standard`: plain Chromium. `stealth`: Chromium launched through playwright-extra with the stealth
 * plugin (the `enhanced` proxy tier), which hides the automation tells anti-bot scripts look for.
 */
export type BrowserFlavor = 'standard' | 'stealth';

/** Flags every Chromium gets: no sandbox (containers), no GPU, no background traffic of its own. */
export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
  // A page's cross-site iframes stay in its renderer, as the headless shell keeps them anyway: their
  // requests pass the page's request interception (ad blocking, see request-interception.ts), and the
  // page's memory cap covers them. The full browser (the stealth flavor) otherwise ran each in a
  // process of its own, unseen by the page's protocol session.
  '--disable-site-isolation-trials',
];

/**
 * Features Playwright disables in every Chromium it launches (its `chromiumSwitches.ts`, playwright-core
 * 1.65). Chromium keeps only the last `--disable-features` switch, so the pool's own switch repeats
 * them: `browser-pool.int.test.ts` checks the launched browser still has every one of Playwright's.
 */
const PLAYWRIGHT_DISABLED_FEATURES: readonly string[] = [
  'AvoidUnnecessaryBeforeUnloadCheckSync', 'DestroyProfileOnBrowserClose', 'HttpsUpgrades', 'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay', 'MediaRouter', 'PaintHolding', 'ThirdPartyStoragePartitioning', 'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin', 'OptimizationHints', 'NetworkTimeServiceQuerying', 'AimEnabled', 'PreconnectToSearch',
  'msForceBrowserSignIn', 'msEdgeUpdateLaunchServicesPreferredVersion',
];

/**
 * Features the pool's browsers run without, on top of Playwright's: since Chromium 15x every context
 * (a browser window) preloads the omnibox popups as two WebUI renderers (`chrome://omnibox-popup.top-chrome/`),
 * about 200 MB of resident memory and a few hundred ms of a loaded machine's CPU per context, for a
 * browser bar nobody sees. Without the spare renderer (one started ahead for the next new process)
 * a context keeps its renderer across its same-site navigations: with it, while two or more contexts
 * were open, each `goto` of a kept page took the spare, a new renderer process per page (fetching 120 Jena
 * pages 4 at a time through kept contexts started 142 renderers; 4 without it).
 */
export const POOL_DISABLED_FEATURES: readonly string[] = [
  'WebUIOmniboxPopup', 'WebUIOmniboxAimPopup', 'WebUIOmniboxFullPopup',
  'SpareRendererForSitePerProcess',
];

/** The pool's `--disable-features` switch (Playwright's features and the pool's). */
export const POOL_FEATURE_ARGS: readonly string[] = [
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...POOL_DISABLED_FEATURES].join(',')}`,
];

/**
 * Where Debian's `chromium-headless-shell` package puts Chromium's headless shell: the binary itself, not
 * `/usr/bin/chromium-headless-shell`, a script that runs it as its child (the pool must see, measure and
 * kill the browser process).
 */
export const HEADLESS_SHELL_PATH = '/usr/lib/chromium/chromium-headless-shell';

/** Debian's Chromium. */
const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';

/** Options of {@link BrowserPool}. */
export interface BrowserPoolOptions {
  /** Chromium binary: the stealth flavor's, and the standard one's without a headless shell. Default `/usr/bin/chromium` (Debian's). */
  executablePath?: string;
  /**
   * Chromium's headless shell (the same Blink and V8 without the desktop browser around them; what
   * Playwright itself runs for headless Chromium): the standard flavor's binary when the file exists.
   * Its browser process and compositor do less per page (140 Jena pages through the pool alone, 4 at a
   * time, a scratch measurement: browser process CPU 3.8 against 9.5 s, GPU process 2.2 against 4.2 s,
   * pages/s +25-40%; `scripts/bench/browser-crawl.bench.mjs`: Trawl's crawl 42 s against 67-69 s). The
   * stealth flavor keeps the full browser, whose headless mode shows fewer automation tells. It must be
   * the binary, not a wrapper script that runs it as a child (the pool watches and kills the browser
   * process). A shell that fails to launch is dropped for `executablePath`. `null`: never. Default
   * {@link HEADLESS_SHELL_PATH} when `executablePath` is the default, else never.
   */
  headlessShellPath?: string | null;
  /** A browser is replaced once it has served this many contexts (jobs). Default 200. */
  recycleAfterContexts?: number;
  /**
   * A browser is replaced once its process tree uses more than this much memory, bytes, counted as
   * proportional set size (shared pages divided among the processes that map them, so Chromium's
   * shared libraries and shared memory count once, not once per renderer; resident size where PSS is
   * unreadable). Default 1.5 GiB.
   */
  recycleAboveRssBytes?: number;
  /** Extra Chromium flags (tests map host names with `--host-resolver-rules`). Default none. */
  extraArgs?: readonly string[];
  /** Time allowed for Chromium to start, ms. Default 30000. */
  launchTimeoutMs?: number;
  /**
   * Most memory one renderer (the pages of one context) may use, bytes: its JavaScript heap is
   * limited to it, and a renderer whose resident memory passes it (ArrayBuffers, DOM, images) is
   * killed; its page crashes and its job fails with SCRAPE_PAGE_CRASHED while the browser lives on.
   * Default 1 GiB.
   */
  pageMaxRssBytes?: number;
  /** How often renderers' memory is read while contexts are open, ms. Default 500. */
  pageWatchIntervalMs?: number;
  /**
   * How long a job's context may take to wind down once its signal fired (or to close after the job),
   * ms. A browser that does not manage it is unresponsive: it is killed, which rejects every call still
   * waiting on it, and the next job gets a new browser. Default 10000.
   */
  unresponsiveAfterMs?: number;
  /** Called when a browser crashed or was recycled (metrics and logs). */
  onEvent?: (event: BrowserPoolEvent) => void;
  /** Most fetches one session context serves before it is closed (see {@link ContextRequest.session}). Default 50. */
  sessionMaxUses?: number;
  /** A session context unused this long is closed, ms. Default 5000. */
  sessionIdleMs?: number;
}

/**
 * What {@link BrowserPool.withContext} runs in: a new context, or (with a `session`) one kept from an
 * earlier fetch of the same session.
 */
export interface ContextRequest {
  flavor: BrowserFlavor;
  /** Options of a new context. Ignored when `open` is given. */
  contextOptions?: BrowserContextOptions;
  /**
   * Makes the options of a new context (called only when one is made, not for a kept one); `onClosed`
   * runs once that context closed (the egress route it connects through closes with it).
   */
  open?: () => Promise<{ contextOptions: BrowserContextOptions; onClosed?: () => Promise<void> }>;
  signal: AbortSignal;
  /**
   * Session key: a context whose fetch succeeded is kept (up to `sessionMaxUses` fetches and
   * `sessionIdleMs` idle) for the next fetch with the same key, one fetch at a time. The caller puts
   * everything that must match (team, crawl, context options) in the key.
   */
  session?: string;
}

/** A context lent to one fetch. */
export interface ContextLease {
  /** Whether the context served an earlier fetch of the session. */
  readonly reused: boolean;
  /** State the caller keeps with the context across the fetches of its session (its page, plugins). */
  readonly state: Map<string, unknown>;
  /** The context must not serve another fetch (its page crashed, or it is in an unknown state). */
  discard(): void;
}

interface SessionContext {
  entry: BrowserEntry;
  context: BrowserContext;
  state: Map<string, unknown>;
  uses: number;
  dead: boolean;
  onClosed: (() => Promise<void>) | undefined;
  idleTimer?: NodeJS.Timeout;
}

export type BrowserPoolEvent =
  | { type: 'launched'; flavor: BrowserFlavor; pid: number | undefined; ms: number; executablePath: string }
  | { type: 'shell-failed'; flavor: BrowserFlavor; executablePath: string; message: string }
  | { type: 'crashed'; flavor: BrowserFlavor; pid: number | undefined }
  | { type: 'recycled'; flavor: BrowserFlavor; reason: 'contexts' | 'memory' | 'unresponsive' }
  | { type: 'page-killed'; flavor: BrowserFlavor; pid: number; rssBytes: number };

/** Counters of the pool, for metrics and tests. */
export interface BrowserPoolStats {
  browsers: number;
  contexts: number;
  launches: number;
  crashes: number;
  recycles: number;
  /** Renderers killed past the page memory limit. */
  pagesKilled: number;
}

interface BrowserEntry {
  flavor: BrowserFlavor;
  browser: Promise<Browser>;
  pid: number | undefined;
  active: number;
  served: number;
  retiring: boolean;
  crashed: boolean;
  closing: boolean;
}

/**
 * Chromium browsers shared by the jobs of one worker: a fresh context per job (no state leaks between
 * jobs or teams; the fetches of one `session`, a crawl's pages, may share one), browsers replaced after a number of contexts or when their memory grows, and
 * relaunched after a crash. Every context is closed whatever the job's outcome, and a browser being
 * retired closes once its last context does, so no Chromium process outlives its use.
 */
export class BrowserPool {
  private readonly executablePath: string;
  private standardPath: string;
  private readonly recycleAfterContexts: number;
  private readonly recycleAboveRssBytes: number;
  private readonly extraArgs: readonly string[];
  private readonly launchTimeoutMs: number;
  private readonly current = new Map<BrowserFlavor, BrowserEntry>();
  private readonly entries = new Set<BrowserEntry>();
  private readonly counters = { launches: 0, crashes: 0, recycles: 0, pagesKilled: 0 };
  private readonly pageMaxRssBytes: number;
  private readonly pageWatchIntervalMs: number;
  private readonly unresponsiveAfterMs: number;
  private watchTimer: NodeJS.Timeout | undefined;
  /** Session contexts waiting for their next fetch, by session key. */
  private readonly idle = new Map<string, SessionContext[]>();
  private readonly sessionMaxUses: number;
  private readonly sessionIdleMs: number;
  private watching = false;
  private closed = false;
  /** playwright-extra launcher with the stealth plugin, made on first use of the stealth flavor. */
  private stealthLauncher: ReturnType<typeof addExtra<typeof chromium>> | undefined;

  constructor(private readonly options: BrowserPoolOptions = {}) {
    this.executablePath = options.executablePath ?? DEFAULT_CHROMIUM_PATH;
    // A Chromium of the operator's own choosing is not swapped for Debian's shell unless it is asked for.
    const shell = options.headlessShellPath !== undefined ? options.headlessShellPath
      : this.executablePath === DEFAULT_CHROMIUM_PATH ? HEADLESS_SHELL_PATH : null;
    this.standardPath = shell !== null && existsSync(shell) ? shell : this.executablePath;
    this.recycleAfterContexts = options.recycleAfterContexts ?? 200;
    this.recycleAboveRssBytes = options.recycleAboveRssBytes ?? 1.5 * 1024 ** 3;
    this.extraArgs = options.extraArgs ?? [];
    this.launchTimeoutMs = options.launchTimeoutMs ?? 30_000;
    this.pageMaxRssBytes = options.pageMaxRssBytes ?? 1024 ** 3;
    this.pageWatchIntervalMs = options.pageWatchIntervalMs ?? 500;
    this.unresponsiveAfterMs = options.unresponsiveAfterMs ?? 10_000;
    this.sessionMaxUses = options.sessionMaxUses ?? 50;
    this.sessionIdleMs = options.sessionIdleMs ?? 5000;
  }

  /**
   * Runs `fn` with a context of a browser of `flavor`: a new one, or with `session` one kept from an
   * earlier fetch of the session. The context is closed afterwards (kept instead for the session when
   * `fn` succeeded), and at once when `signal` fires (pending page calls then reject). A crash of the
   * browser during `fn` surfaces as a retryable SCRAPE_BROWSER_CRASHED.
   */
  async withContext<T>(opts: ContextRequest, fn: (context: BrowserContext, lease: ContextLease) => Promise<T>): Promise<T> {
    if (this.closed) throw new TrawlError('SERVICE_UNAVAILABLE', 'The browser pool is shutting down', { retryable: true });
    opts.signal.throwIfAborted();
    const kept = opts.session !== undefined ? this.takeIdle(opts.session, opts.flavor) : undefined;
    const entry = this.use(kept?.entry ?? this.current.get(opts.flavor), opts.flavor);
    this.startWatch();
    let session: SessionContext | undefined = kept;
    let context: BrowserContext | undefined = kept?.context;
    // Once the signal fires, the context is closed (pending page calls reject) and the browser gets
    // `unresponsiveAfterMs` to let the job wind down; a browser that hangs past it is killed, which
    // settles every call still waiting on it, so no job outlives its deadline by more than that.
    let watchdog: NodeJS.Timeout | undefined;
    const armWatchdog = () => {
      watchdog ??= setTimeout(() => this.killUnresponsive(entry), this.unresponsiveAfterMs);
    };
    const onAbort = () => {
      armWatchdog();
      if (session) session.dead = true;
      void context?.close().catch(() => undefined);
    };
    opts.signal.addEventListener('abort', onAbort, { once: true });
    let succeeded = false;
    try {
      if (!session) {
        const browser = await entry.browser;
        const made = opts.open ? await opts.open() : { contextOptions: opts.contextOptions ?? {}, onClosed: undefined };
        try {
          context = await browser.newContext(made.contextOptions);
        } catch (err) {
          await made.onClosed?.().catch(() => undefined);
          throw err;
        }
        session = { entry, context, state: new Map(), uses: 0, dead: false, onClosed: made.onClosed };
        const fresh = session;
        context.on('close', () => { fresh.dead = true; });
      }
      opts.signal.throwIfAborted();
      session.uses += 1;
      const lease: ContextLease = { reused: kept !== undefined, state: session.state, discard: () => { if (session) session.dead = true; } };
      const out = await fn(context!, lease);
      succeeded = true;
      return out;
    } catch (err) {
      if (opts.signal.aborted) throw opts.signal.reason;
      if (entry.crashed) {
        throw new TrawlError('SCRAPE_BROWSER_CRASHED', 'The browser crashed during the scrape', { retryable: true, cause: err });
      }
      throw err;
    } finally {
      opts.signal.removeEventListener('abort', onAbort);
      const keep = succeeded && session !== undefined && opts.session !== undefined && !opts.signal.aborted && !session.dead
        && session.uses < this.sessionMaxUses && !this.closed && !entry.crashed && !entry.retiring && !entry.closing;
      if (keep) {
        this.park(opts.session!, session!);
      } else {
        // Closing is bounded too: a browser that cannot close a context would hold the job forever.
        armWatchdog();
        await context?.close().catch(() => undefined);
        await session?.onClosed?.().catch(() => undefined);
      }
      clearTimeout(watchdog);
      await this.releaseEntry(entry);
    }
  }

  /** A kept context of `key` still fit to serve (others found on the way are closed). */
  private takeIdle(key: string, flavor: BrowserFlavor): SessionContext | undefined {
    const list = this.idle.get(key);
    while (list?.length) {
      const s = list.pop()!;
      clearTimeout(s.idleTimer);
      if (list.length === 0) this.idle.delete(key);
      if (!s.dead && s.entry.flavor === flavor && !s.entry.crashed && !s.entry.retiring && !s.entry.closing) return s;
      void this.closeSession(s);
    }
    return undefined;
  }

  private park(key: string, s: SessionContext): void {
    const list = this.idle.get(key) ?? [];
    list.push(s);
    this.idle.set(key, list);
    s.idleTimer = setTimeout(() => {
      const l = this.idle.get(key);
      const i = l?.indexOf(s) ?? -1;
      if (l && i >= 0) {
        l.splice(i, 1);
        if (l.length === 0) this.idle.delete(key);
      }
      void this.closeSession(s).then(() => { if (this.stats().contexts === 0 && this.idle.size === 0) this.stopWatch(); });
    }, this.sessionIdleMs);
    s.idleTimer.unref();
  }

  private async closeSession(s: SessionContext): Promise<void> {
    clearTimeout(s.idleTimer);
    s.dead = true;
    await s.context.close().catch(() => undefined);
    await s.onClosed?.().catch(() => undefined);
  }

  /** Closes the kept contexts of `entry` (all of them without one). */
  private async closeIdle(entry?: BrowserEntry): Promise<void> {
    const closing: Promise<void>[] = [];
    for (const [key, list] of this.idle) {
      const rest = list.filter((s) => {
        if (entry && s.entry !== entry) return true;
        closing.push(this.closeSession(s));
        return false;
      });
      if (rest.length) this.idle.set(key, rest);
      else this.idle.delete(key);
    }
    await Promise.all(closing);
  }

  /** Session contexts kept for a next fetch. */
  idleContexts(): number {
    let n = 0;
    for (const list of this.idle.values()) n += list.length;
    return n;
  }

  stats(): BrowserPoolStats {
    let contexts = 0;
    for (const e of this.entries) contexts += e.active;
    return { browsers: this.entries.size, contexts, ...this.counters };
  }

  /** Closes every browser (waiting for none of the running jobs: their contexts die with it). */
  async close(): Promise<void> {
    this.closed = true;
    this.stopWatch();
    await this.closeIdle();
    await Promise.all([...this.entries].map((e) => this.closeEntry(e)));
  }

  /**
   * Counts one more job on `entry` (a kept session's browser, or the flavor's current one), launching
   * a new current browser when there is none fit to serve.
   */
  private use(candidate: BrowserEntry | undefined, flavor: BrowserFlavor): BrowserEntry {
    let entry = candidate;
    if (!entry || entry.crashed || entry.retiring) {
      entry = this.launch(flavor);
      this.current.set(flavor, entry);
    }
    entry.active += 1;
    entry.served += 1;
    if (entry.served >= this.recycleAfterContexts) this.retire(entry, 'contexts');
    return entry;
  }

  private launch(flavor: BrowserFlavor): BrowserEntry {
    const started = Date.now();
    const launcher = flavor === 'stealth' ? this.stealth() : chromium;
    const executablePath = flavor === 'standard' ? this.standardPath : this.executablePath;
    const entry: BrowserEntry = {
      flavor, pid: undefined, active: 0, served: 0, retiring: false, crashed: false, closing: false,
      browser: Promise.resolve(undefined as unknown as Browser),
    };
    // Tags the browser process so its pid is found by this switch (Chromium ignores unknown ones), not
    // as "a Chromium child that was not there before": that picked another pool's browser when two
    // pools (or one left over by an earlier test) shared the process, and the memory watch then
    // watched the wrong renderers.
    const launchTag = `--trawl-launch=${randomUUID()}`;
    const launchWith = (path: string) => launcher.launch({
        executablePath: path,
        args: [
          launchTag,
          ...CHROMIUM_ARGS,
          ...POOL_FEATURE_ARGS,
          // The JavaScript heap of a page stops at the page limit (the renderer then dies of OOM).
          `--js-flags=--max-old-space-size=${Math.max(16, Math.floor(this.pageMaxRssBytes / 1024 ** 2))}`,
          ...this.extraArgs,
        ],
        // Chromium's popup blocker stays on (Playwright turns it off): a page cannot open windows
        // without a user gesture, so a thousand window.open calls open nothing. Popups an action's
        // click opens are closed by the fetcher.
        ignoreDefaultArgs: ['--disable-popup-blocking'],
        timeout: this.launchTimeoutMs,
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
    let launchedPath = executablePath;
    entry.browser = launchWith(executablePath)
      .catch((err: unknown) => {
        // A headless shell that does not start (a package of another version, a broken install) is
        // dropped for the full browser, for this launch and every later one.
        if (executablePath === this.executablePath) throw err;
        this.standardPath = this.executablePath;
        this.options.onEvent?.({ type: 'shell-failed', flavor, executablePath, message: err instanceof Error ? err.message.split('\n')[0] ?? '' : String(err) });
        launchedPath = this.executablePath;
        return launchWith(this.executablePath);
      })
      .then(async (browser: Browser) => {
        entry.pid = await taggedBrowserPid(launchTag);
        this.counters.launches += 1;
        this.options.onEvent?.({ type: 'launched', flavor, pid: entry.pid, ms: Date.now() - started, executablePath: launchedPath });
        browser.on('disconnected', () => {
          if (entry.closing) return;
          entry.crashed = true;
          this.counters.crashes += 1;
          this.options.onEvent?.({ type: 'crashed', flavor, pid: entry.pid });
          if (this.current.get(flavor) === entry) this.current.delete(flavor);
          this.entries.delete(entry);
          void this.closeIdle(entry);
        });
        return browser;
      });
    // A failed launch must not poison later jobs: forget the entry so the next job launches anew.
    entry.browser.catch(() => {
      entry.crashed = true;
      this.entries.delete(entry);
      if (this.current.get(flavor) === entry) this.current.delete(flavor);
    });
    this.entries.add(entry);
    return entry;
  }

  private stealth(): ReturnType<typeof addExtra<typeof chromium>> {
    if (!this.stealthLauncher) {
      this.stealthLauncher = addExtra(chromium);
      this.stealthLauncher.use(StealthPlugin());
    }
    return this.stealthLauncher;
  }

  private retire(entry: BrowserEntry, reason: 'contexts' | 'memory' | 'unresponsive'): void {
    if (entry.retiring) return;
    entry.retiring = true;
    this.counters.recycles += 1;
    this.options.onEvent?.({ type: 'recycled', flavor: entry.flavor, reason });
    if (this.current.get(entry.flavor) === entry) this.current.delete(entry.flavor);
  }

  /**
   * Kills a browser that stopped answering (a context that neither closes nor lets its calls fail):
   * Playwright then rejects every call waiting on it, and the next job launches a new browser.
   */
  private killUnresponsive(entry: BrowserEntry): void {
    if (entry.closing) return;
    this.retire(entry, 'unresponsive');
    entry.closing = true;
    this.entries.delete(entry);
    void this.closeIdle(entry);
    if (entry.pid !== undefined) {
      try {
        process.kill(entry.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    void entry.browser.then((b) => b.close()).catch(() => undefined);
  }

  private async releaseEntry(entry: BrowserEntry): Promise<void> {
    entry.active -= 1;
    if (!entry.retiring && !entry.crashed && entry.pid !== undefined && entry.served % 10 === 0) {
      const { pssBytes } = await processTreeMemory(entry.pid);
      if (pssBytes > this.recycleAboveRssBytes) this.retire(entry, 'memory');
    }
    if ((entry.retiring || this.closed) && entry.active === 0) await this.closeEntry(entry);
    if (this.stats().contexts === 0 && this.idle.size === 0) this.stopWatch();
  }

  /** Reads renderers' memory every `pageWatchIntervalMs` while any context is open. */
  private startWatch(): void {
    if (this.watchTimer) return;
    this.watchTimer = setInterval(() => {
      if (this.watching) return;
      this.watching = true;
      void this.killOversizedRenderers().finally(() => { this.watching = false; });
    }, this.pageWatchIntervalMs);
    this.watchTimer.unref();
  }

  private stopWatch(): void {
    clearInterval(this.watchTimer);
    this.watchTimer = undefined;
  }

  /**
   * Kills every renderer of our browsers above the page limit. Chromium never shares a renderer
   * between contexts, so only the offending job's page crashes; the browser process survives.
   */
  private async killOversizedRenderers(): Promise<void> {
    const roots = new Map<number, BrowserFlavor>();
    for (const e of this.entries) if (e.pid !== undefined && !e.closing) roots.set(e.pid, e.flavor);
    if (roots.size === 0) return;
    for (const proc of await oversizedDescendants(roots, this.pageMaxRssBytes)) {
      try {
        process.kill(proc.pid, 'SIGKILL');
      } catch {
        continue; // exited meanwhile
      }
      this.counters.pagesKilled += 1;
      this.options.onEvent?.({ type: 'page-killed', flavor: proc.flavor, pid: proc.pid, rssBytes: proc.rssBytes });
    }
  }

  private async closeEntry(entry: BrowserEntry): Promise<void> {
    if (entry.closing) return;
    entry.closing = true;
    this.entries.delete(entry);
    await this.closeIdle(entry);
    const browser = await entry.browser.catch(() => undefined);
    await browser?.close().catch(() => undefined);
  }
}

/**
 * Chromium processes that are direct children of this process, by pid. Playwright does not expose the
 * pid of a launched browser, so a new browser is found as the child that was not there before.
 */
export async function childBrowserPids(): Promise<number[]> {
  const out: number[] = [];
  for (const proc of await readProcTable()) {
    if (proc.ppid === process.pid && /chrom/i.test(proc.name)) out.push(proc.pid);
  }
  return out;
}

/** The pid of the Chromium child of this process launched with `tag` among its switches, if any. */
async function taggedBrowserPid(tag: string): Promise<number | undefined> {
  for (const pid of await childBrowserPids()) {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.split('\0').includes(tag)) return pid;
  }
  return undefined;
}

export interface ProcEntry { pid: number; ppid: number; name: string; rssBytes: number }

/**
 * `/proc/<pid>/status` files read per turn of the event loop by {@link readProcTable}. Each takes some
 * 15-20 us (read and parse), so a turn stays around a millisecond however many processes the host runs.
 */
const PROC_READS_PER_TURN = 64;

/**
 * Every process's parent, name and resident size, from `/proc/<pid>/status`. Read synchronously, a
 * few dozen at a time: these are small files the kernel writes as they are read, and a scan through
 * `fs/promises` (an open, a stat, a read and a close on libuv's pool for each) took 5.1 ms of CPU for
 * 67 processes against 1.0 ms this way (scratch measurement), every 500 ms while pages are open, and
 * queued the pool's other work (DNS lookups, compression) behind it. The cost follows the processes
 * this one can see, about 15-20 us each: a few dozen in a container with its own PID namespace, tens
 * of milliseconds a scan (spread over turns) on a host showing thousands. Exported for tests.
 */
export async function readProcTable(): Promise<ProcEntry[]> {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const out: ProcEntry[] = [];
  let read = 0;
  for (const n of names) {
    if (!/^\d+$/.test(n)) continue;
    if (read > 0 && read % PROC_READS_PER_TURN === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    read += 1;
    let status: string;
    try {
      status = readFileSync(`/proc/${n}/status`, 'utf8');
    } catch {
      continue; // The process exited meanwhile.
    }
    const ppid = /^PPid:\s+(\d+)/m.exec(status);
    const vm = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    const name = /^Name:\s+(.*)$/m.exec(status);
    out.push({ pid: Number(n), ppid: Number(ppid?.[1] ?? 0), name: name?.[1] ?? '', rssBytes: Number(vm?.[1] ?? 0) * 1024 });
  }
  return out;
}

/** Renderer processes below one of `roots` (browser pid -> flavor) resident above `maxBytes`. */
async function oversizedDescendants(roots: Map<number, BrowserFlavor>, maxBytes: number): Promise<Array<{ pid: number; flavor: BrowserFlavor; rssBytes: number }>> {
  const table = await readProcTable();
  const parent = new Map(table.map((p) => [p.pid, p.ppid]));
  const out: Array<{ pid: number; flavor: BrowserFlavor; rssBytes: number }> = [];
  for (const proc of table) {
    if (proc.rssBytes <= maxBytes) continue;
    let flavor: BrowserFlavor | undefined;
    for (let p: number | undefined = proc.ppid, hops = 0; p !== undefined && p > 1 && hops < 64; p = parent.get(p), hops += 1) {
      flavor = roots.get(p);
      if (flavor) break;
    }
    if (!flavor) continue;
    // Only renderers: the GPU, network and utility processes are the browser's, not a page's.
    const cmdline = await readFile(`/proc/${proc.pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes('--type=renderer')) out.push({ pid: proc.pid, flavor, rssBytes: proc.rssBytes });
  }
  return out;
}

/** Pids of a process and all its descendants. */
function treePids(table: ProcEntry[], rootPid: number): ProcEntry[] {
  const parent = new Map(table.map((p) => [p.pid, p.ppid]));
  const out: ProcEntry[] = [];
  for (const proc of table) {
    let p: number | undefined = proc.pid;
    for (let hops = 0; p !== undefined && p > 1 && hops < 64; hops += 1) {
      if (p === rootPid) { out.push(proc); break; }
      p = parent.get(p);
    }
  }
  return out;
}

/**
 * Resident memory of a process and all its descendants (Chromium's renderers and helpers), bytes,
 * read from /proc. 0 where /proc is unavailable. Shared pages count once per process that maps them,
 * so this overstates a multi-process browser: see {@link processTreeMemory} for its PSS.
 */
export async function processTreeRss(rootPid: number): Promise<number> {
  return treePids(await readProcTable(), rootPid).reduce((n, p) => n + p.rssBytes, 0);
}

/** Proportional set size of one process (`/proc/<pid>/smaps_rollup`), bytes; undefined when unreadable. */
export async function processPss(pid: number): Promise<number | undefined> {
  const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => '');
  const pss = /^Pss:\s+(\d+)\s+kB/m.exec(rollup);
  return pss ? Number(pss[1]) * 1024 : undefined;
}

/**
 * Memory of a process and all its descendants, bytes: `rssBytes` sums their resident sizes (shared
 * pages counted in every process), `pssBytes` their proportional set sizes (each shared page divided
 * among the processes mapping it, so the sum is what the tree really holds); a process whose PSS is
 * unreadable counts its RSS there.
 */
export async function processTreeMemory(rootPid: number): Promise<{ rssBytes: number; pssBytes: number }> {
  const procs = treePids(await readProcTable(), rootPid);
  let rssBytes = 0;
  let pssBytes = 0;
  await Promise.all(procs.map(async (p) => {
    rssBytes += p.rssBytes;
    pssBytes += (await processPss(p.pid)) ?? p.rssBytes;
  }));
  return { rssBytes, pssBytes };
}
