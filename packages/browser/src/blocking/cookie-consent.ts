import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import {
  filterCompactRules,
  type CompactCMPRuleset,
  type Config,
  type ConsentState,
  type IndexedCMPRuleset,
} from '@duckduckgo/autoconsent';
import type { BrowserContext, Frame, Page } from 'playwright-core';
import { judgeConsent, type ConsentSettlement, type FrameConsentState } from './consent-settlement.js';

/** Files of `@duckduckgo/autoconsent` read once per process by {@link loadConsentAssets}. */
export interface ConsentAssets {
  /** `dist/autoconsent.playwright.js`: the content script injected into every frame. */
  contentScript: string;
  /** `rules/compact-rules.json`: the opt-out rules, filtered per frame before they are sent. */
  rules: IndexedCMPRuleset;
}

/**
 * How unknown banners (no CMP rule) are handled by autoconsent's text heuristics:
 * `off`; `reject`: click a reject button only; `tier1`: also click an acknowledge-only button
 * ("OK", "Got it") when the banner offers no reject and no settings. An "accept" button is never clicked.
 */
export type ConsentHeuristicMode = 'off' | 'reject' | 'tier1';

/** Options of {@link attachConsentDismisser}. */
export interface ConsentDismisserOptions {
  /** Content script and rules, from {@link loadConsentAssets}. */
  assets: ConsentAssets;
  /** Handling of banners no rule knows. Default `tier1`. */
  heuristicMode?: ConsentHeuristicMode;
  /** CMP detection attempts after the first one (autoconsent's `detectRetries`). Default 20. */
  detectRetries?: number;
  /** Receives autoconsent's error reports and failures of the bridge; they never fail a scrape. */
  onError?: (error: unknown) => void;
}

/** Options of {@link ConsentDismisser.waitForSettled}. */
export interface WaitForConsentOptions {
  /** Longest wait, ms. */
  timeoutMs: number;
  /** The scrape's deadline or cancellation; an abort ends the wait with outcome `aborted`. */
  signal?: AbortSignal;
  /**
   * Quiet time after which a detection that is still searching counts as "no pop-up", ms. Default
   * 1500; pass 0 when the page has already settled (the browser engine's smart wait): then only a
   * detected CMP or a running opt-out is waited for.
   */
  searchQuietMs?: number;
}

/** Cookie-consent handling of one browser context. */
export interface ConsentDismisser {
  /**
   * Resolves once the consent flow of the page's current document is over (pop-up dismissed, failed,
   * or none found) or the budget runs out. Never rejects.
   */
  waitForSettled(page: Page, options: WaitForConsentOptions): Promise<ConsentSettlement>;
  /**
   * Whether the page's next documents pre-hide known banners (autoconsent's `enablePrehide`) while
   * their opt-out runs. Off unless set: see the config's comment.
   */
  prehide(page: Page, on: boolean): void;
}

/** Reads autoconsent's Playwright content script and compact rules (about 400 kB). */
export async function loadConsentAssets(): Promise<ConsentAssets> {
  const require = createRequire(import.meta.url);
  // The package exports its CJS entry (dist/autoconsent.cjs.js); the content script sits next to it.
  const scriptPath = join(dirname(require.resolve('@duckduckgo/autoconsent')), 'autoconsent.playwright.js');
  const [contentScript, rulesText] = await Promise.all([
    readFile(scriptPath, 'utf8'),
    readFile(require.resolve('@duckduckgo/autoconsent/rules/compact-rules.json'), 'utf8'),
  ]);
  const rules = JSON.parse(rulesText) as IndexedCMPRuleset;
  if (!Array.isArray(rules.r) || !Array.isArray(rules.s) || typeof rules.index !== 'object') {
    throw new Error('unexpected format of @duckduckgo/autoconsent/rules/compact-rules.json');
  }
  return { contentScript, rules };
}

/**
 * Runs DuckDuckGo's autoconsent in every frame of the context: it detects consent pop-ups of known
 * CMPs (and, heuristically, unknown banners), opts out, preferring "reject", and hides what it cannot
 * click. Call once per context, before its pages navigate.
 */
export async function attachConsentDismisser(
  context: BrowserContext,
  options: ConsentDismisserOptions,
): Promise<ConsentDismisser> {
  const bridge = new ConsentBridge(options);
  // The binding must exist before the content script runs: the script reads it once, at start-up.
  // Playwright installs context bindings ahead of init scripts in every new document, so both are
  // registered at once (one round trip instead of two).
  await Promise.all([
    context.exposeBinding(BINDING_NAME, (source: { frame: Frame }, message: unknown) => bridge.receive(source.frame, message)),
    context.addInitScript({ content: options.assets.contentScript }),
  ]);
  return bridge;
}

const BINDING_NAME = 'autoconsentSendMessage';

interface AutoconsentWindow {
  autoconsentReceiveMessage?: (message: unknown) => Promise<void>;
}

/** Messages of the content script this bridge reads (see autoconsent's lib/messages.ts). */
type PageMessage =
  | { type: 'init'; url?: unknown }
  | { type: 'report'; instanceId: string; state: ConsentState }
  | { type: 'cmpDetected' | 'popupFound' | 'optOutResult' | 'autoconsentDone'; cmp?: unknown }
  | { type: 'autoconsentError'; details?: unknown };

class ConsentBridge implements ConsentDismisser {
  private readonly frames = new WeakMap<Frame, FrameConsentState & { instanceId: string }>();
  /** Waiters re-check on every report. */
  private readonly listeners = new Set<() => void>();
  private readonly config: Config;
  /** Pages whose documents pre-hide banners ({@link prehide}). */
  private readonly prehiding = new WeakSet<Page>();
  /** {@link config} with banners pre-hidden. */
  private readonly prehideConfig: Config;
  private readonly initResponses: ConsentInitResponses;

  constructor(private readonly options: ConsentDismisserOptions) {
    this.initResponses = consentInitResponses(options.assets.rules);
    const heuristicMode = options.heuristicMode ?? 'tier1';
    this.config = {
      enabled: true,
      autoAction: 'optOut',
      disabledCmps: [],
      // Pre-hiding only for a fetch that takes a screenshot ({@link ConsentDismisser.prehide}): it
      // puts a stylesheet of every known CMP's selectors into each document from its start, which
      // every style recalculation of the page then matches, and only hides banners from view while
      // the opt-out runs (for at most `prehideTimeout`), which the captured HTML does not show. The
      // Jena browser crawl (in-process, 4 pages in flight) took 36-39 s without it against 40-43 s with
      // it, and 31-32 s with no consent handling at all (scratch timings, alternated).
      enablePrehide: false,
      enableCosmeticRules: true,
      enableGeneratedRules: true,
      enableHeuristicDetection: heuristicMode !== 'off',
      heuristicMode,
      enablePopupMutationObserver: false,
      detectRetries: options.detectRetries ?? 20,
      // addInitScript runs the script in the page's main world: eval snippets run inline, so Node
      // never evaluates code sent by a page.
      isMainWorld: true,
      prehideTimeout: 2000,
      visualTest: false,
      performanceLoggingEnabled: false,
      heuristicPopupSearchTimeout: 100,
      logs: { lifecycle: false, rulesteps: false, detectionsteps: false, evals: false, errors: false, messages: false, waits: false },
    };
    this.prehideConfig = { ...this.config, enablePrehide: true };
  }

  /** Handles a message of a frame's content script. Pages can call the binding too: trust nothing. */
  receive(frame: Frame, raw: unknown): void {
    try {
      if (typeof raw !== 'object' || raw === null || typeof (raw as { type?: unknown }).type !== 'string') return;
      const message = raw as PageMessage;
      switch (message.type) {
        case 'init': {
          const url = typeof message.url === 'string' ? message.url : frame.url();
          // about:blank and srcdoc documents (a new page before its first navigation, ad slots) host
          // no CMP; leaving their instance uninitialised saves sending them the rules.
          if (/^https?:/i.test(url)) this.answerInit(frame, url);
          return;
        }
        case 'report':
          this.record(frame, message);
          return;
        case 'cmpDetected':
        case 'popupFound':
        case 'autoconsentDone': {
          const state = this.frames.get(frame);
          if (state && typeof message.cmp === 'string') state.cmp = message.cmp;
          return;
        }
        case 'autoconsentError':
          this.options.onError?.(message.details);
          return;
        default:
          return;
      }
    } catch (error) {
      this.options.onError?.(error);
    }
  }

  prehide(page: Page, on: boolean): void {
    if (on) this.prehiding.add(page);
    else this.prehiding.delete(page);
  }

  waitForSettled(page: Page, options: WaitForConsentOptions): Promise<ConsentSettlement> {
    if (page.isClosed()) return Promise.resolve({ outcome: 'closed' });
    const waitingSince = Date.now();
    const signals = [AbortSignal.timeout(options.timeoutMs), ...(options.signal ? [options.signal] : [])];
    const deadline = AbortSignal.any(signals);
    return new Promise<ConsentSettlement>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const finish = (settlement: ConsentSettlement): void => {
        clearTimeout(timer);
        this.listeners.delete(check);
        deadline.removeEventListener('abort', onAbort);
        page.off('close', onClose);
        resolve(settlement);
      };
      const check = (): void => {
        try {
          const verdict = judgeConsent({
            ...this.statesOf(page), waitingSince, now: Date.now(),
            ...(options.searchQuietMs !== undefined ? { searchQuietMs: options.searchQuietMs } : {}),
          });
          if (verdict.settled) return finish(verdict.settlement);
          clearTimeout(timer);
          if (verdict.recheckAt !== undefined) timer = setTimeout(check, Math.max(0, verdict.recheckAt - Date.now()));
        } catch (error) {
          this.options.onError?.(error);
          finish({ outcome: 'none' });
        }
      };
      const onAbort = (): void => finish({ outcome: options.signal?.aborted ? 'aborted' : 'timeout' });
      const onClose = (): void => finish({ outcome: 'closed' });
      if (deadline.aborted) return onAbort();
      deadline.addEventListener('abort', onAbort, { once: true });
      page.on('close', onClose);
      this.listeners.add(check);
      check();
    });
  }

  private statesOf(page: Page): { main: FrameConsentState | undefined; children: FrameConsentState[] } {
    const main = page.mainFrame();
    const children: FrameConsentState[] = [];
    for (const frame of page.frames()) {
      const state = frame === main ? undefined : this.frames.get(frame);
      if (state) children.push(state);
    }
    return { main: this.frames.get(main), children };
  }

  private record(frame: Frame, message: { instanceId: unknown; state: unknown }): void {
    const lifecycle = (message.state as Partial<ConsentState> | null)?.lifecycle;
    if (typeof message.instanceId !== 'string' || typeof lifecycle !== 'string') return;
    const now = Date.now();
    const previous = this.frames.get(frame);
    if (previous?.instanceId === message.instanceId) {
      if (previous.lifecycle !== lifecycle) previous.lifecycleSince = now;
      previous.lifecycle = lifecycle;
      previous.reportedAt = now;
    } else {
      // A new document in this frame: its flow starts over.
      this.frames.set(frame, { instanceId: message.instanceId, lifecycle, cmp: undefined, reportedAt: now, lifecycleSince: now });
    }
    for (const listener of this.listeners) listener();
  }

  private answerInit(frame: Frame, url: string): void {
    const json = this.initResponses.get(url, frame.parentFrame() === null, this.prehiding.has(frame.page()) ? this.prehideConfig : this.config);
    // One JSON string, parsed in the page: passed as an object, the ~65 kB of rules went through
    // Playwright's argument serialization, whose page-side half ran on the loading page's main thread
    // and delayed its DOMContentLoaded by about 300 ms (TodoMVC pages); a string costs a JSON.parse.
    frame
      .evaluate(
        (text) => (globalThis as unknown as AutoconsentWindow).autoconsentReceiveMessage?.(JSON.parse(text) as unknown),
        json,
      )
      .catch((error: unknown) => {
        // The frame navigated away or closed before the answer arrived; its next document asks again.
        if (!frame.isDetached()) this.options.onError?.(error);
      });
  }
}

/**
 * autoconsent's `initResp` messages ({@link encodeInitResponse}), kept by what they are made of. Which
 * rules a frame gets (`filterCompactRules`) depends on its URL only through the rules' URL patterns:
 * the answer is the same for every frame of the same kind (top or not) whose URL the same patterned
 * rules match, and with the same configuration. In a crawl nearly every page is one case (no site
 * rule matches), whose answer was filtered (about 600 patterns compiled and run) and serialized (about
 * 65 kB) once a page before: now once. At most `maxEntries` cases are kept, the least recently used
 * dropped first (a top frame's answer takes about 130 kB: 16 of them, 2 MB).
 */
export class ConsentInitResponses {
  private readonly cache = new Map<string, string>();
  /** The configurations seen, by identity, as JSON: part of the key (each context has its own object). */
  private readonly configKeys = new WeakMap<Config, string>();
  /** Each rule's URL pattern, compiled once (undefined: none, the rule runs on any URL). */
  private readonly patterns: ReadonlyArray<RegExp | undefined>;

  constructor(
    private readonly rules: IndexedCMPRuleset,
    private readonly maxEntries = 16,
  ) {
    // autoconsent runs `url.match(pattern)`: the pattern compiled as a RegExp without flags.
    this.patterns = rules.r.map((rule) => (rule[3] ? new RegExp(rule[3]) : undefined));
  }

  /** The init response, as a JSON string, for a frame at `url` with `config` (not to be changed once passed). */
  get(url: string, mainFrame: boolean, config: Config): string {
    const [from, to] = mainFrame ? this.rules.index.specificRuleRange : this.rules.index.frameRuleRange;
    let matched = '';
    for (let i = from; i < to; i += 1) if (this.patterns[i]?.test(url)) matched += `${i},`;
    let configKey = this.configKeys.get(config);
    if (configKey === undefined) this.configKeys.set(config, (configKey = JSON.stringify(config)));
    const key = `${mainFrame ? 'top' : 'frame'}:${matched}:${configKey}`;
    let json = this.cache.get(key);
    if (json === undefined) {
      json = encodeInitResponse(config, filterCompactRules(this.rules, { url, mainFrame }));
      if (this.cache.size >= this.maxEntries) this.cache.delete(this.cache.keys().next().value ?? '');
    } else {
      // Used again: the last to be dropped (a Map keeps insertion order).
      this.cache.delete(key);
    }
    this.cache.set(key, json);
    return json;
  }
}

const initResponsesByRules = new WeakMap<IndexedCMPRuleset, ConsentInitResponses>();

/** The process's {@link ConsentInitResponses} of these rules, shared by every context. */
function consentInitResponses(rules: IndexedCMPRuleset): ConsentInitResponses {
  let responses = initResponsesByRules.get(rules);
  if (!responses) initResponsesByRules.set(rules, (responses = new ConsentInitResponses(rules)));
  return responses;
}

/** autoconsent's `initResp` message for a frame, as the JSON string the frame parses. */
export function encodeInitResponse(config: Config, compact: CompactCMPRuleset): string {
  return JSON.stringify({ type: 'initResp', config, rules: { autoconsent: [], compact } });
}
