import type { ConsentState } from '@duckduckgo/autoconsent';

/** autoconsent's lifecycle of one frame, from its `report` messages. */
export type ConsentLifecycle = ConsentState['lifecycle'];

/** What is known about the autoconsent instance of one frame (its current document). */
export interface FrameConsentState {
  lifecycle: ConsentLifecycle;
  /** Name of the CMP rule that detected or handled a pop-up, when one did. */
  cmp: string | undefined;
  /** Time of the last report of the instance, ms since epoch. */
  reportedAt: number;
  /** Time the lifecycle last changed, ms since epoch. */
  lifecycleSince: number;
}

/**
 * - `dismissed`: a consent pop-up was found and autoconsent opted out (or hid it).
 * - `failed`: a pop-up was found but the opt-out steps failed; the pop-up may still cover the page.
 * - `none`: no consent pop-up showed up.
 * - `timeout` / `aborted`: the budget ran out or the caller's signal aborted while the flow still ran.
 * - `closed`: the page closed while waiting.
 */
export type ConsentOutcome = 'dismissed' | 'failed' | 'none' | 'timeout' | 'aborted' | 'closed';

/** Result of waiting for the consent flow of a page. */
export interface ConsentSettlement {
  outcome: ConsentOutcome;
  /** CMP rule name (`Onetrust`, `Cookiebot`, `HEURISTIC-REJECT` ...) when a pop-up was handled. */
  cmp?: string;
}

export type ConsentVerdict =
  | { settled: true; settlement: ConsentSettlement }
  /** `recheckAt`: when a quiet period ends and the verdict may change without a new report. */
  | { settled: false; recheckAt: number | undefined };

/**
 * autoconsent retries CMP detection every 500 ms, then waits for a DOM mutation before trying again
 * (up to 60 s). A main frame still "searching" that has not reported for this long is waiting on a
 * DOM that stopped changing: no pop-up is coming.
 */
export const SEARCH_QUIET_MS = 1500;

/**
 * autoconsent polls for a detected CMP's pop-up 10 times every 500 ms and reports nothing when none
 * shows (the CMP is present but shows no pop-up in this region or for this visitor).
 */
export const POPUP_WAIT_MS = 5500;

const WORKING: ReadonlySet<ConsentLifecycle> = new Set(['openPopupDetected', 'runningOptOut', 'runningOptIn']);
const DISMISSED: ReadonlySet<ConsentLifecycle> = new Set(['done', 'optOutSucceeded', 'optInSucceeded']);
const FAILED: ReadonlySet<ConsentLifecycle> = new Set(['optOutFailed', 'optInFailed']);

/**
 * Decides whether the consent flow of a page is over. The main frame decides; an iframe counts only
 * while it is handling a pop-up (CMPs such as Sourcepoint live in iframes) or when it handled one.
 */
export function judgeConsent(input: {
  main: FrameConsentState | undefined;
  children: readonly FrameConsentState[];
  /** When the caller started waiting, ms since epoch. */
  waitingSince: number;
  now: number;
  /**
   * How long a detection still searching must stay quiet to count as "no pop-up". Default
   * {@link SEARCH_QUIET_MS}; 0 when the caller already waited for the page to settle.
   */
  searchQuietMs?: number;
}): ConsentVerdict {
  const { main, children, waitingSince, now } = input;
  const searchQuietMs = input.searchQuietMs ?? SEARCH_QUIET_MS;
  const frames = main ? [main, ...children] : children;
  if (frames.some((frame) => WORKING.has(frame.lifecycle))) return { settled: false, recheckAt: undefined };

  const handled = frames.find((frame) => DISMISSED.has(frame.lifecycle) || FAILED.has(frame.lifecycle));
  const finishedWithoutPopup = (): ConsentVerdict =>
    handled ? settledFrom(handled) : { settled: true, settlement: { outcome: 'none' } };

  if (!main) {
    // No report from the page yet: the script may be starting, or it cannot run in this document.
    const quietUntil = waitingSince + searchQuietMs;
    return now >= quietUntil ? finishedWithoutPopup() : { settled: false, recheckAt: quietUntil };
  }
  if (DISMISSED.has(main.lifecycle) || FAILED.has(main.lifecycle)) return settledFrom(main);
  if (main.lifecycle === 'nothingDetected') return finishedWithoutPopup();
  if (main.lifecycle === 'cmpDetected') {
    const popupDeadline = main.lifecycleSince + POPUP_WAIT_MS;
    return now >= popupDeadline ? finishedWithoutPopup() : { settled: false, recheckAt: popupDeadline };
  }
  // loading, initialized, waitingForInitResponse, started: detection is running.
  const searchQuietUntil = Math.min(main.reportedAt + SEARCH_QUIET_MS, waitingSince + searchQuietMs);
  return now >= searchQuietUntil ? finishedWithoutPopup() : { settled: false, recheckAt: searchQuietUntil };
}

function settledFrom(frame: FrameConsentState): ConsentVerdict {
  const outcome = DISMISSED.has(frame.lifecycle) ? 'dismissed' : 'failed';
  return { settled: true, settlement: frame.cmp === undefined ? { outcome } : { outcome, cmp: frame.cmp } };
}
