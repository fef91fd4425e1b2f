import { describe, expect, it } from '@jest/globals';
import { POPUP_WAIT_MS, SEARCH_QUIET_MS, judgeConsent, type FrameConsentState } from './consent-settlement.js';

const T0 = 1_000_000;
const frame = (lifecycle: FrameConsentState['lifecycle'], at = T0, cmp?: string): FrameConsentState => ({
  lifecycle,
  cmp,
  reportedAt: at,
  lifecycleSince: at,
});

describe('judgeConsent', () => {
  it('settles on the main frame outcome', () => {
    expect(judgeConsent({ main: frame('done', T0, 'Onetrust'), children: [], waitingSince: T0, now: T0 })).toEqual({
      settled: true,
      settlement: { outcome: 'dismissed', cmp: 'Onetrust' },
    });
    expect(judgeConsent({ main: frame('optOutFailed', T0, 'Cookiebot'), children: [], waitingSince: T0, now: T0 })).toEqual({
      settled: true,
      settlement: { outcome: 'failed', cmp: 'Cookiebot' },
    });
    expect(judgeConsent({ main: frame('nothingDetected'), children: [], waitingSince: T0, now: T0 })).toEqual({
      settled: true,
      settlement: { outcome: 'none' },
    });
  });

  it('waits while any frame handles a pop-up', () => {
    const verdict = judgeConsent({ main: frame('nothingDetected'), children: [frame('runningOptOut')], waitingSince: T0, now: T0 + 60_000 });
    expect(verdict).toEqual({ settled: false, recheckAt: undefined });
  });

  it('reports a pop-up an iframe dismissed', () => {
    const verdict = judgeConsent({ main: frame('nothingDetected'), children: [frame('done', T0, 'Sourcepoint-frame')], waitingSince: T0, now: T0 });
    expect(verdict).toEqual({ settled: true, settlement: { outcome: 'dismissed', cmp: 'Sourcepoint-frame' } });
  });

  it('gives up on a search that went quiet', () => {
    const main = frame('started', T0);
    expect(judgeConsent({ main, children: [], waitingSince: T0, now: T0 + 10 })).toEqual({ settled: false, recheckAt: T0 + SEARCH_QUIET_MS });
    expect(judgeConsent({ main, children: [], waitingSince: T0, now: T0 + SEARCH_QUIET_MS })).toEqual({
      settled: true,
      settlement: { outcome: 'none' },
    });
  });

  it('gives a detected CMP time to show its pop-up', () => {
    const main = frame('cmpDetected', T0);
    expect(judgeConsent({ main, children: [], waitingSince: T0, now: T0 + SEARCH_QUIET_MS })).toEqual({
      settled: false,
      recheckAt: T0 + POPUP_WAIT_MS,
    });
    expect(judgeConsent({ main, children: [], waitingSince: T0, now: T0 + POPUP_WAIT_MS }).settled).toBe(true);
  });

  it('settles a page whose script never reported after a quiet period', () => {
    expect(judgeConsent({ main: undefined, children: [], waitingSince: T0, now: T0 })).toEqual({ settled: false, recheckAt: T0 + SEARCH_QUIET_MS });
    expect(judgeConsent({ main: undefined, children: [], waitingSince: T0, now: T0 + SEARCH_QUIET_MS }).settled).toBe(true);
  });
});
