import { TrawlError, isErrorCode, type Action, type ErrorCode } from '@trawl/api-schema';
import type { BrowserContext, BrowserContextOptions, CDPSession, Page, Request, Response } from 'playwright-core';
import {
  DEFAULT_USER_AGENT, EGRESS_RETRYABLE_HEADER, abortError, acceptLanguageFor, detectContentKind, normalizeCharsetLabel, parseContentType, splitUrlCredentials,
  type EgressProxy, type EgressRoute, type FetchRequest, type FetchResult, type Fetcher, type ProxyEndpoint,
} from '@trawl/scrape-engine';
import { egressContextProxy } from './egress-context-proxy.js';
import type { BrowserFlavor, BrowserPool } from './browser-pool.js';
import { buildEmulation, userAgentMetadata, type Emulation, type UserAgentMetadata } from './emulation.js';
import { mapNavigationError, pageCrashedError } from './navigation-error.js';
import { capturePage } from './page-capture.js';
import { runActions, takeScreenshot, type ActionOutputs, type BrowserBinary } from './page-actions.js';
import { interceptRequests, type RequestBlocker } from './request-interception.js';
import { NetworkTracker, PENDING_WORK_SCRIPT, abortableDelay, waitForQuiet } from './smart-wait.js';

/** Cookies and localStorage of a context (Playwright's storage state), as kept in a profile. */
export type StorageState = Exclude<BrowserContextOptions['storageState'], string | undefined>;

/** A fetch that needs (or may use) a real browser. */
export interface BrowserFetchRequest extends FetchRequest {
  /** Time left in the job's budget, ms; `signal` fires when it runs out. */
  timeoutMs: number;
  /** Actions run after the page settled, before capture. */
  actions?: readonly Action[];
  /** The `screenshot` format, taken after the actions. */
  screenshot?: { fullPage: boolean; quality?: number | undefined; viewport?: { width: number; height: number } | undefined };
  /** Extra wait after the smart wait, ms. Default 0. */
  waitForMs?: number;
  /**
   * The caller drops a page answering 4xx or 5xx (a crawl's broken link) and reads only its status,
   * headers and HTML (for bot-wall markers): such a page is captured as soon as its document loaded,
   * without the smart wait, the plugins' finishing, `waitFor`, actions or screenshot. Default false.
   */
  dropsErrorPages?: boolean;
  /** Emulate a phone. */
  mobile?: boolean;
  /** Country (timezone, default locale) and preferred languages. */
  location?: { country?: string | undefined; languages?: readonly string[] | undefined };
  /** Block ads and trackers and dismiss cookie banners. Default true. */
  blockAds?: boolean;
  /** Use the stealth browser (the `enhanced` proxy tier). Default false. */
  stealth?: boolean;
  /** Browser state to start from (a profile). */
  storageState?: StorageState;
  /** Return the context's storage state at the end (a profile that saves changes). */
  captureStorageState?: boolean;
  /** Largest `executeJavascript` return (as JSON), bytes. Default 1 MiB. Screenshots, PDFs and HTML are capped by `maxBytes`. */
  maxActionReturnBytes?: number;
  /**
   * The site session this page belongs to (the team and crawl of a crawl's page; never shared between
   * crawls or teams). Pages of one session with the same browser settings, and without actions,
   * screenshot or profile, reuse one context and its page (one fetch at a time; see the pool's
   * `sessionMaxUses` and `sessionIdleMs`) instead of a new context and page each.
   */
  session?: string;
}

/** What a browser fetch produced beyond the page itself. */
export interface BrowserFetchResult extends FetchResult {
  screenshot?: BrowserBinary;
  actions?: ActionOutputs;
  storageState?: StorageState;
  /** Emulated time zone and locale. */
  timezone: string;
  locale: string;
}

/**
 * Optional behaviour attached to each context (ad blocking, cookie banners). `attach` runs before the
 * page is created; the session's `requestBlocker` judges the page's requests, its `beforeCapture`
 * runs after the smart wait, within `budgetMs`.
 */
export interface BrowserPlugin {
  readonly name: string;
  enabled(req: BrowserFetchRequest): boolean;
  attach(context: BrowserContext): Promise<BrowserPluginSession>;
}

/** A plugin attached to one context. */
export interface BrowserPluginSession {
  /** Fails the page's requests it blocks (see {@link interceptRequests}). */
  requestBlocker?: RequestBlocker;
  /** Before each navigation of the page: `screenshots`, whether this fetch takes any (format or action). */
  beforeNavigate?(page: Page, opts: { screenshots: boolean }): void;
  beforeCapture?(page: Page, opts: { budgetMs: number; signal: AbortSignal }): Promise<void>;
}

/** Options of {@link BrowserFetcher}. */
export interface BrowserFetcherOptions {
  pool: BrowserPool;
  /**
   * The egress proxy every context connects through (target guard on each connection, upstream
   * proxies). Without it the browser connects directly and nothing guards its connections: tests and
   * trusted setups only.
   */
  egress?: EgressProxy;
  plugins?: readonly BrowserPlugin[];
  /** User-Agent of the standard browser unless the request sets one. Default a desktop Chrome. */
  defaultUserAgent?: string;
  /** Most time the smart wait (network quiet, DOM stable) takes before capture, ms. Default 8000. */
  smartWaitMaxMs?: number;
  /**
   * Fetches what Chromium does not render: a navigation that turned into a download (an archive, an
   * attachment; a PDF in the headless shell, which has no PDF viewer) and a PDF the full browser shows
   * in its viewer (the response then holds the viewer, not the file). The worker gives it its http
   * engine: the same limits, target guard and proxy, with the request's headers and the context's
   * cookies for the URL. Without it such a page fails with SCRAPE_FAILED.
   */
  downloads?: Fetcher;
  /**
   * The standard browser does not load images (each gets a 1x1 placeholder, so its `load` event fires),
   * fonts, audio or video (by the protocol's resource types: a navigation to an image still loads) for
   * pages without a screenshot or actions: the renderer and network have much less to do. Default false.
   */
  skipMedia?: boolean;
}

/**
 * Fetches of a session's kept page between two collections of its renderer's JavaScript heap. Each
 * navigation leaves the previous documents' objects behind as garbage, and V8, with room to grow
 * (the page's heap limit, 1 GB by default), let it pile up: four tabs of one context grew from about
 * 65 to 120 MB of PSS each over 12 Jena pages, and fell to 57 MB each after a forced collection
 * (scratch). The whole process tree's CPU over a Jena browser crawl showed no cost within noise.
 */
export const SESSION_COLLECT_EVERY = 4;

/** A navigation Chromium turned into a download, or a PDF: fetched by {@link BrowserFetcherOptions.downloads}. */
class NotRendered {
  constructor(readonly url: string) {}
}

/** Key of the fetcher's {@link ContextSetup} in a context's lease state. */
const SETUP = 'browser-fetcher.setup';

/** What the fetcher set up in a context: kept with it for the next pages of a session. */
interface ContextSetup {
  page: Page;
  /** The page's protocol session (overrides, request interception, heap collections). */
  cdp: CDPSession;
  sessions: readonly BrowserPluginSession[];
  route: EgressRoute | undefined;
  /** The context's requests in flight, followed for the setup's life (reset per fetch). */
  network: NetworkTracker;
  /** The page's main-frame responses, followed for the setup's life (reset per fetch). */
  mainFrame: MainFrameWatch;
  /** Fetches the page has served. */
  fetches: number;
}

/**
 * Init script of the standard browser (every document): `window.open` without a user gesture opens
 * nothing and returns null, and one gesture opens one window, as Chrome's popup blocker decides. The
 * headless shell has no popup blocker: a page opening a thousand windows would get them. Page-side
 * JavaScript source (the packages compile without DOM types).
 */
const POPUP_GUARD_SCRIPT = String.raw`(() => {
  const open = window.open;
  if (!open || !navigator.userActivation) return;
  window.open = function () {
    if (!navigator.userActivation.isActive) return null;
    return Reflect.apply(open, this, arguments);
  };
})();`;

/** Longest wait for the page to answer whether an aborted navigation was its renderer's crash, ms. */
const CRASH_PROBE_MS = 2000;
/** Time kept back from the deadline for capture and conversion after the waits, ms. */
const CAPTURE_RESERVE_MS = 1500;
/** Default of {@link BrowserFetchRequest.maxActionReturnBytes}. */
const DEFAULT_MAX_ACTION_RETURN_BYTES = 1024 * 1024;

/** Splits a Cookie header into cookies for the target's host (they then survive redirects on it). */
export function cookiesFromHeader(header: string, url: string): Array<{ name: string; value: string; url: string }> {
  const out: Array<{ name: string; value: string; url: string }> = [];
  const origin = new URL(url);
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (!name) continue;
    out.push({ name, value: part.slice(eq + 1).trim(), url: `${origin.protocol}//${origin.host}/` });
  }
  return out;
}

/** Playwright proxy settings for an upstream proxy used without the egress (credentials from the URL). */
function upstreamProxy(endpoint: ProxyEndpoint): NonNullable<BrowserContextOptions['proxy']> {
  const url = endpoint.url;
  return {
    server: `${url.protocol}//${url.host}`,
    bypass: '<-loopback>',
    ...(url.username ? { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) } : {}),
  };
}

/**
 * The egress's refusal of a plain-http request, answered in place of the page (`x-trawl-error`, and
 * `x-trawl-retryable`). Over https the egress cannot answer inside the tunnel (a refused tunnel is
 * `lastRefusal`), and it strips these headers from the pages it forwards: a page cannot fake one.
 */
function egressRefusalOf(url: string, headers: Record<string, string>): { code: ErrorCode; retryable: boolean } | undefined {
  if (!url.startsWith('http:')) return undefined;
  const code = headers['x-trawl-error'];
  return code !== undefined && isErrorCode(code) ? { code, retryable: headers[EGRESS_RETRYABLE_HEADER] === 'true' } : undefined;
}

/** The error of a target the egress refused: `retryable` as the egress judged it (EAI_AGAIN, a timeout). */
function refusalError(code: ErrorCode, retryable: boolean, details: Record<string, unknown>, cause?: unknown): TrawlError {
  return new TrawlError(code, refusalMessage(code), { retryable, details, ...(cause === undefined ? {} : { cause }) });
}

function refusalMessage(code: ErrorCode): string {
  switch (code) {
    case 'SCRAPE_BLOCKED_TARGET': return 'The target resolves to an address that may not be reached.';
    case 'SCRAPE_PROXY_ERROR': return 'The upstream proxy refused or failed the connection.';
    case 'SCRAPE_DNS_RESOLUTION_ERROR': return 'The target host name could not be resolved.';
    case 'SCRAPE_TIMEOUT': return 'The target did not answer in time.';
    default: return 'The target could not be reached.';
  }
}

/** The language tags of an Accept-Language value, q-values dropped (order kept). */
function languagesOf(acceptLanguage: string | undefined): string[] | undefined {
  const tags = acceptLanguage?.split(',').map((t) => t.split(';')[0]?.trim() ?? '').filter(Boolean);
  return tags?.length ? tags : undefined;
}

/**
 * Playwright derives Accept-Language and `navigator.languages` from the context's single `locale`,
 * and its override beats extra headers; the whole preference list is set on the page through the
 * protocol instead (Chromium adds the q-values: `de-DE,de;q=0.9`). With `metadata`, the client hints
 * (`sec-ch-ua*`, `navigator.userAgentData`) match the user agent too.
 */
async function overrideUserAgent(
  cdp: CDPSession, userAgent: string | undefined, languages: readonly string[], metadata: UserAgentMetadata | undefined,
): Promise<void> {
  if (!userAgent || (languages.length === 0 && !metadata)) return;
  await cdp.send('Emulation.setUserAgentOverride', {
    userAgent, ...(languages.length ? { acceptLanguage: languages.join(',') } : {}), ...(metadata ? { userAgentMetadata: metadata } : {}),
  });
}

/** What {@link watchMainFrame} tells of the page's current fetch. */
interface MainFrameWatch {
  throwIfRefused(): void;
  lastResponseUrl(): string | undefined;
  /** Forgets what earlier fetches of the page saw (called as each fetch starts). */
  reset(): void;
}

/**
 * Follows the main frame's navigations after the first: the last one refused by the egress (an
 * `x-trawl-error` answer over plain http, a refused tunnel over https) makes the page a refusal, as
 * the http engine reports it. Refused subresources are not followed: the page is fine without them.
 * It also keeps the URL of the main frame's last response (a navigation turned download comes from it).
 * It follows the page for as long as the page lives, every fetch of a session's page: an event's
 * first listener added and last one removed are each a Playwright call (see {@link NetworkTracker}).
 */
function watchMainFrame(page: Page, route: EgressRoute | undefined): MainFrameWatch {
  let refused: { code: ErrorCode; retryable: boolean } | undefined;
  // Where the last main-frame response came from (redirects followed): a download's URL.
  let lastUrl: string | undefined;
  // request.frame() throws for requests without a frame (service workers): an event handler must not.
  const isMainNavigation = (request: Request) => {
    try {
      return request.isNavigationRequest() && request.frame() === page.mainFrame();
    } catch {
      return false;
    }
  };
  const onResponse = (response: Response) => {
    const request = response.request();
    if (!isMainNavigation(request)) return;
    lastUrl = response.url();
    refused = egressRefusalOf(response.url(), response.headers());
  };
  const onRequestFailed = (request: Request) => {
    if (!isMainNavigation(request)) return;
    const failure = request.failure()?.errorText ?? '';
    const refusal = route?.lastRefusal;
    if (refusal && /ERR_TUNNEL_CONNECTION_FAILED/.test(failure) && refusal.host === hostOf(request.url())) refused = refusal;
  };
  page.on('response', onResponse);
  page.on('requestfailed', onRequestFailed);
  return {
    throwIfRefused() {
      if (refused) throw refusalError(refused.code, refused.retryable, { url: page.url() });
    },
    lastResponseUrl: () => lastUrl,
    reset() {
      refused = undefined;
      lastUrl = undefined;
    },
  };
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

/**
 * The WHATWG name of the encoding Chromium decoded a textual response with. The protocol hands such a
 * body over already decoded (as UTF-8), so this names the page's own encoding, as the http engine does.
 */
async function documentCharset(page: Page, declared: string | undefined): Promise<string> {
  const used = await page.evaluate<string>('document.characterSet').catch(() => declared);
  return (used === undefined ? undefined : normalizeCharsetLabel(used)) ?? 'utf-8';
}

/** The redirect hops of a navigation, oldest first, final URL last (empty without redirects). */
function redirectChain(response: Response): string[] {
  const urls: string[] = [];
  for (let r = response.request().redirectedFrom(); r; r = r.redirectedFrom()) urls.unshift(r.url());
  if (urls.length === 0) return [];
  return [...urls.slice(1), response.url()];
}

/**
 * The browser engine: renders the page in a fresh context of the pool, waits for it to settle, runs
 * the actions, and captures HTML (shadow DOM included), screenshot and storage state.
 */
export class BrowserFetcher implements Fetcher {
  readonly name = 'browser';
  private readonly plugins: readonly BrowserPlugin[];
  private readonly defaultUserAgent: string;
  private readonly smartWaitMaxMs: number;
  /** Collections of a session page's JavaScript heap done so far (see {@link SESSION_COLLECT_EVERY}). */
  sessionCollections = 0;

  constructor(private readonly options: BrowserFetcherOptions) {
    this.plugins = options.plugins ?? [];
    this.defaultUserAgent = options.defaultUserAgent ?? DEFAULT_USER_AGENT;
    this.smartWaitMaxMs = options.smartWaitMaxMs ?? 8000;
  }

  async fetch(given: BrowserFetchRequest): Promise<BrowserFetchResult> {
    // Credentials in the URL answer that origin's Basic challenges only; the page is loaded without them.
    const { url, credentials } = splitUrlCredentials(new URL(given.url));
    const req = { ...given, url: url.href };
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new TrawlError('SCRAPE_INVALID_URL', `Only http and https URLs can be scraped, not ${url.protocol}`);
    }
    const started = Date.now();
    const headers = Object.fromEntries(Object.entries(req.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
    const { cookie, 'user-agent': userAgent, 'accept-language': acceptLanguageHeader, ...extraHeaders } = headers;
    // An explicit Accept-Language (header or request field) wins over `location.languages`.
    const languages = languagesOf(acceptLanguageHeader ?? req.acceptLanguage) ?? req.location?.languages;
    const emulation = buildEmulation({
      mobile: req.mobile ?? false,
      ...(req.location?.country ? { country: req.location.country } : {}),
      ...(languages?.length ? { languages } : {}),
      ...(userAgent ?? req.userAgent ? { userAgent: userAgent ?? req.userAgent } : {}),
      defaultUserAgent: this.defaultUserAgent,
    });
    const contextOptions: BrowserContextOptions = {
      ...emulation.contextOptions,
      extraHTTPHeaders: extraHeaders,
      ignoreHTTPSErrors: req.skipTlsVerification ?? false,
      bypassCSP: true,
      serviceWorkers: 'block',
      acceptDownloads: false,
      ...(req.storageState ? { storageState: req.storageState } : {}),
      ...(credentials ? { httpCredentials: { ...credentials, origin: url.origin } } : {}),
    };
    const flavor: BrowserFlavor = req.stealth ? 'stealth' : 'standard';
    const deadline = Date.now() + req.timeoutMs;
    const remaining = () => deadline - Date.now();
    const plugins = this.plugins.filter((p) => p.enabled(req));
    // A session's context is reused only by pages that would have made the very same context: the
    // key holds everything the context and its setup are made of (the egress route is the proxy's).
    const reusable = req.session !== undefined && !req.actions?.length && !req.screenshot && !req.storageState && !req.captureStorageState;
    // Images, fonts and media are not loaded for a page only read (no pixels: no screenshot, no
    // actions, which may look at or print the page); the stealth browser loads what a visitor would.
    // (Every reusable page of a flavor decides alike: the session key needs nothing more.)
    const skipMedia = this.options.skipMedia === true && flavor === 'standard' && !req.actions?.length && !req.screenshot;
    const session = reusable
      ? JSON.stringify([req.session, flavor, contextOptions, cookie ?? null, plugins.map((p) => p.name), req.proxy?.url.href ?? null, emulation.languages])
      : undefined;
    // One egress route per context: its refusals explain this context's failures and nobody else's.
    // It closes with the context.
    let opened: EgressRoute | undefined;
    const open = async () => {
      const route = this.options.egress ? await this.options.egress.openRoute(req.proxy ?? null) : undefined;
      opened = route;
      const options: BrowserContextOptions = { ...contextOptions };
      if (route) options.proxy = egressContextProxy(route.url);
      else if (req.proxy) options.proxy = upstreamProxy(req.proxy);
      return { contextOptions: options, ...(route ? { onClosed: () => route.close() } : {}) };
    };
    // A crashed renderer (out of memory, or killed by the pool past its cap) leaves page calls and
    // waits hanging: the crash aborts the whole fetch, with its own code as the reason.
    const crash = new AbortController();
    const signal = AbortSignal.any([req.signal, crash.signal]);
    const run = { ...req, signal };
    try {
      return await this.options.pool.withContext({ flavor, open, signal, ...(session ? { session } : {}) }, async (context, lease) => {
        let setup = lease.state.get(SETUP) as ContextSetup | undefined;
        if (!setup) {
          // Cookies and plugins are set up at once: each is a round trip to the browser (on a busy
          // machine a noticeable part of a page's time), and none depends on another. The page comes
          // after them, so their bindings and init scripts are in place for its first document.
          const [, sessions] = await Promise.all([
            cookie ? context.addCookies(cookiesFromHeader(cookie, req.url)) : undefined,
            Promise.all(plugins.map((plugin) => plugin.attach(context))),
            // Lets the smart wait see that a loaded page has nothing scheduled (the stealth browser
            // keeps the page's own timer functions, and waits the full quiet period); blocks popups.
            flavor === 'standard' ? context.addInitScript({ content: PENDING_WORK_SCRIPT + POPUP_GUARD_SCRIPT }) : undefined,
          ]);
          const page = await context.newPage();
          // Popups and new tabs are closed as they open: a page opening a thousand of them stays scrapable.
          context.on('page', (other) => { if (other !== page) void other.close().catch(() => undefined); });
          // A crashed renderer never serves another page of the session.
          page.on('crash', () => lease.discard());
          // The standard browser's client hints are made to match its user agent (the headless shell's
          // own say `HeadlessChrome`); the stealth browser's plugin sets its own.
          const ua = contextOptions.userAgent;
          const metadata = flavor === 'standard' && ua ? userAgentMetadata(ua, context.browser()?.version() ?? '', contextOptions.isMobile === true) : undefined;
          // One protocol session for the page's overrides and its request interception. It stays
          // attached (detaching it would drop them) and ends with the page.
          const cdp = await context.newCDPSession(page);
          const blockers = sessions.flatMap((s) => (s.requestBlocker ? [s.requestBlocker] : []));
          await Promise.all([
            overrideUserAgent(cdp, ua, emulation.languages, metadata),
            interceptRequests(cdp, { skipMedia, blockers }),
          ]);
          setup = { page, cdp, sessions, route: opened, network: new NetworkTracker(context), mainFrame: watchMainFrame(page, opened), fetches: 0 };
          lease.state.set(SETUP, setup);
        } else if (setup.route) {
          // Refusals of the session's earlier pages explain nothing about this one.
          setup.route.lastRefusal = undefined;
        }
        const { page, sessions, route, network, mainFrame } = setup;
        const downloadContext = { emulation, userAgent: contextOptions.userAgent, credentials, started };
        const onCrash = () => crash.abort(pageCrashedError());
        page.on('crash', onCrash);
        network.reset();
        mainFrame.reset();
        try {
          const screenshots = run.screenshot !== undefined || (run.actions ?? []).some((a) => a.type === 'screenshot');
          for (const session of sessions) session.beforeNavigate?.(page, { screenshots });
          const response = await this.navigate(page, run, remaining, route, () => mainFrame.lastResponseUrl());
          const ttfbMs = Date.now() - started;
          if (response instanceof NotRendered) return await this.download(context, run, response.url, downloadContext);
          const result = await this.render(page, network, response, run, { remaining, sessions });
          if (result instanceof NotRendered) return await this.download(context, run, result.url, downloadContext);
          // A later navigation of the page itself (script, meta refresh) to a refused address.
          mainFrame.throwIfRefused();
          return {
            ...result,
            requestedUrl: req.url,
            redirects: redirectChain(response),
            timezone: emulation.timezoneId,
            locale: emulation.locale,
            timings: { ttfbMs, totalMs: Date.now() - started },
            ...(req.captureStorageState ? { storageState: await context.storageState() } : {}),
          };
        } finally {
          page.off('crash', onCrash);
          setup.fetches += 1;
          // Sent, not awaited: the renderer collects while the page waits for the session's next fetch.
          if (session && setup.fetches % SESSION_COLLECT_EVERY === 0) {
            setup.cdp.send('HeapProfiler.collectGarbage').then(() => { this.sessionCollections += 1; }, () => undefined);
          }
        }
      });
    } catch (err) {
      if (signal.aborted) throw abortError(signal);
      throw err;
    }
  }

  /**
   * The page as {@link BrowserFetcherOptions.downloads} fetches it, for a navigation to `target` the
   * browser did not render: with the context's cookies for the URL, the browser's user agent and
   * languages, and the URL's credentials while it stays on their origin.
   */
  private async download(
    context: BrowserContext, req: BrowserFetchRequest, target: string,
    ctx: { emulation: Emulation; userAgent: string | undefined; credentials: { username: string; password: string } | undefined; started: number },
  ): Promise<BrowserFetchResult> {
    const downloads = this.options.downloads;
    if (!downloads) throw new TrawlError('SCRAPE_FAILED', 'The browser does not render this page (a download or a PDF), and no http engine is configured to fetch it');
    const url = new URL(target);
    if (ctx.credentials && url.origin === new URL(req.url).origin) {
      url.username = encodeURIComponent(ctx.credentials.username);
      url.password = encodeURIComponent(ctx.credentials.password);
    }
    // The request's own cookies are in the jar since the context was set up.
    const cookies = (await context.cookies(target)).map((c) => `${c.name}=${c.value}`).join('; ');
    const headers = Object.fromEntries(Object.entries(req.headers ?? {}).filter(([k]) => k.toLowerCase() !== 'cookie'));
    const fetched = await downloads.fetch({
      ...req, url: url.href, headers: cookies ? { ...headers, cookie: cookies } : headers,
      ...(ctx.userAgent ? { userAgent: ctx.userAgent } : {}),
      ...(ctx.emulation.languages.length ? { acceptLanguage: acceptLanguageFor(ctx.emulation.languages) } : {}),
    });
    return {
      ...fetched,
      requestedUrl: req.url,
      timezone: ctx.emulation.timezoneId,
      locale: ctx.emulation.locale,
      timings: { ttfbMs: fetched.timings.ttfbMs, totalMs: Date.now() - ctx.started },
      ...(req.captureStorageState ? { storageState: await context.storageState() } : {}),
    };
  }

  /** `lastResponseUrl`: where the main frame's last response came from (a download's URL). */
  private async navigate(
    page: Page, req: BrowserFetchRequest, remaining: () => number, route: EgressRoute | undefined, lastResponseUrl: () => string | undefined,
  ): Promise<Response | NotRendered> {
    let response: Response | null;
    try {
      response = await page.goto(req.url, { waitUntil: 'domcontentloaded', timeout: Math.max(1, remaining()) });
    } catch (err) {
      if (req.signal.aborted) throw abortError(req.signal);
      if (/Download is starting/.test(String((err as Error).message))) return new NotRendered(lastResponseUrl() ?? req.url);
      if (/net::ERR_ABORTED/.test(String((err as Error).message))) {
        // A renderer that died under the navigation aborts it before its `crash` event arrives: one
        // call to the page tells (it fails once the crash is known) whether that is what happened.
        // At most CRASH_PROBE_MS: a page kept from an earlier navigation may be too busy to answer.
        const settled = new AbortController();
        const probe = await Promise.race([
          page.evaluate('0').then(() => '', (e: unknown) => String((e as Error).message)),
          abortableDelay(Math.max(0, Math.min(remaining(), CRASH_PROBE_MS)), AbortSignal.any([req.signal, settled.signal])).then(() => '', () => ''),
        ]).finally(() => settled.abort());
        if (req.signal.aborted) throw abortError(req.signal);
        if (/crashed/i.test(probe)) throw pageCrashedError(err);
      }
      const refusal = route?.lastRefusal;
      if (refusal && /ERR_TUNNEL_CONNECTION_FAILED|ERR_PROXY|ERR_CONNECTION|ERR_EMPTY_RESPONSE/.test(String((err as Error).message))) {
        throw refusalError(refusal.code, refusal.retryable, { host: refusal.host }, err);
      }
      throw mapNavigationError(err, remaining());
    }
    if (!response) throw new TrawlError('SCRAPE_FAILED', 'The browser got no response for the page');
    return response;
  }

  private async render(
    page: Page,
    network: NetworkTracker,
    response: Response,
    req: BrowserFetchRequest,
    ctx: { remaining: () => number; sessions: readonly BrowserPluginSession[] },
  ): Promise<Omit<BrowserFetchResult, 'requestedUrl' | 'redirects' | 'timezone' | 'locale' | 'timings'> | NotRendered> {
    const responseHeaders = await response.allHeaders();
    // The egress answers a refused plain-http request itself, marked with the code.
    const refused = egressRefusalOf(response.url(), responseHeaders);
    if (refused) throw refusalError(refused.code, refused.retryable, {});
    const { mimeType: declared, charset: declaredCharset } = parseContentType(responseHeaders['content-type']);
    // The full browser shows a PDF in its viewer: the response's body is then the viewer's page.
    if (declared === 'application/pdf') return new NotRendered(response.url());
    if (declared && !/html|xml/.test(declared)) {
      // Not a page (a PDF, JSON, an image): the body as served, for the same pipeline as plain HTTP.
      const body = await response.body();
      if (body.length > req.maxBytes) throw new TrawlError('SCRAPE_TOO_LARGE', `The page is larger than ${req.maxBytes} bytes`);
      const detected = detectContentKind({ mimeType: declared, bytes: body });
      const textual = ['html', 'xhtml', 'text', 'json', 'xml'].includes(detected.kind);
      return {
        url: response.url(), statusCode: response.status(), headers: responseHeaders, contentType: detected.mimeType,
        kind: detected.kind,
        ...(textual ? { text: body.toString('utf8'), charset: await documentCharset(page, declaredCharset) } : { body }),
      };
    }
    const settle = !(req.dropsErrorPages && response.status() >= 400);
    const budget = (ms: number) => Math.max(0, Math.min(ms, ctx.remaining() - CAPTURE_RESERVE_MS));
    if (settle) {
      await waitForQuiet(page, network, { budgetMs: budget(this.smartWaitMaxMs), signal: req.signal });
      // Plugins (cookie banners) finish what they found while the page settled.
      for (const session of ctx.sessions) await session.beforeCapture?.(page, { budgetMs: budget(5000), signal: req.signal });
      if (req.waitForMs) await abortableDelay(budget(req.waitForMs), req.signal);
    }
    const actions = settle && req.actions?.length
      ? await runActions(req.actions, {
        page, network, signal: req.signal, remaining: ctx.remaining,
        maxReturnBytes: req.maxActionReturnBytes ?? DEFAULT_MAX_ACTION_RETURN_BYTES, maxOutputBytes: req.maxBytes,
      })
      : undefined;
    const screenshot = settle && req.screenshot ? await takeScreenshot(page, { ...req.screenshot, timeoutMs: ctx.remaining() }) : undefined;
    if (screenshot && screenshot.data.length > req.maxBytes) {
      throw new TrawlError('RESULT_TOO_LARGE', `The screenshot is larger than ${req.maxBytes} bytes`, { details: { part: 'screenshot', limitBytes: req.maxBytes } });
    }
    const captured = await capturePage(page, { maxBytes: req.maxBytes });
    if (captured.html === undefined) {
      throw new TrawlError('SCRAPE_TOO_LARGE', `The rendered page is larger than ${req.maxBytes} bytes`);
    }
    return {
      url: captured.url,
      statusCode: response.status(),
      headers: responseHeaders,
      contentType: declared ?? 'text/html',
      // The encoding the page was decoded with (as the http engine reports it), not that of the serialisation.
      charset: normalizeCharsetLabel(captured.characterSet) ?? 'utf-8',
      kind: declared === 'application/xhtml+xml' ? 'xhtml' : 'html',
      text: captured.html,
      ...(screenshot ? { screenshot } : {}),
      ...(actions ? { actions } : {}),
    };
  }
}
