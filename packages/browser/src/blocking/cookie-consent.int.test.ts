import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { FixtureSite } from '@trawl/testing';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_ARGS } from '../browser-pool.js';
import { attachConsentDismisser, loadConsentAssets, type ConsentAssets } from './cookie-consent.js';

// A page reproducing OneTrust's banner the way its SDK serves it: markup injected by a script after
// DOMContentLoaded (ids and classes as on real sites: #onetrust-consent-sdk > #onetrust-banner-sdk,
// #onetrust-reject-all-handler, #onetrust-accept-btn-handler, #onetrust-pc-btn-handler). The buttons
// report the choice to the server, which therefore proves which one was clicked.
const ONETRUST_SDK = `
document.addEventListener('DOMContentLoaded', () => setTimeout(() => {
  const sdk = document.createElement('div');
  sdk.id = 'onetrust-consent-sdk';
  sdk.innerHTML = \`
    <div class="onetrust-pc-dark-filter ot-fade-in" style="position:fixed;inset:0;background:rgba(0,0,0,.5)"></div>
    <div id="onetrust-banner-sdk" class="otFlat" role="region" aria-label="Cookie banner" tabindex="0"
         style="position:fixed;bottom:0;left:0;right:0;background:#fff;padding:20px;z-index:2147483645">
      <div class="ot-sdk-container"><div class="ot-sdk-row">
        <div id="onetrust-policy"><div id="onetrust-policy-text">We and our partners use cookies to personalise ads.</div></div>
        <div id="onetrust-button-group-parent" class="ot-sdk-three ot-sdk-columns"><div id="onetrust-button-group">
          <button id="onetrust-pc-btn-handler">Cookie Settings</button>
          <button id="onetrust-reject-all-handler">Reject All</button>
          <button id="onetrust-accept-btn-handler">Accept All Cookies</button>
        </div></div>
      </div></div>
    </div>\`;
  document.body.appendChild(sdk);
  const close = (choice) => {
    fetch('/consent/' + choice, { method: 'POST' });
    document.cookie = 'OptanonAlertBoxClosed=' + new Date().toISOString();
    document.getElementById('onetrust-banner-sdk').style.display = 'none';
    document.querySelector('.onetrust-pc-dark-filter').remove();
  };
  document.getElementById('onetrust-reject-all-handler').addEventListener('click', () => close('reject'));
  document.getElementById('onetrust-accept-btn-handler').addEventListener('click', () => close('accept'));
}, 200));
`;

const ARTICLE = (extraHead: string) =>
  `<!doctype html><html><head><title>Article</title>${extraHead}</head><body><h1>Headline</h1><p>Body text.</p></body></html>`;

let site: FixtureSite;
let browser: Browser;
let assets: ConsentAssets;

beforeAll(async () => {
  site = await new FixtureSite().start();
  site.page('/onetrust.html', ARTICLE('<script src="/otSDKStub.js"></script>'));
  site.page('/otSDKStub.js', ONETRUST_SDK, 'text/javascript');
  site.page('/plain.html', ARTICLE(''));
  for (const choice of ['reject', 'accept']) site.page(`/consent/${choice}`, '{}', 'application/json');
  assets = await loadConsentAssets();
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [...CHROMIUM_ARGS],
  });
});

afterAll(async () => {
  await browser?.close();
  await site?.stop();
});

beforeEach(() => site.resetCounters());

// Detection retries run on autoconsent's own clock (500 ms steps); a loaded CI machine needs headroom.
jest.setTimeout(30_000);

describe('attachConsentDismisser (real Chromium)', () => {
  it('rejects a OneTrust banner before the page is captured', async () => {
    const context = await browser.newContext();
    const errors: unknown[] = [];
    const consent = await attachConsentDismisser(context, { assets, onError: (error) => errors.push(error) });
    const page = await context.newPage();
    await page.goto(site.url('/onetrust.html'), { waitUntil: 'load' });

    const settlement = await consent.waitForSettled(page, { timeoutMs: 20_000 });
    const bannerVisible = await page.locator('#onetrust-banner-sdk').isVisible();
    const headline = await page.locator('h1').textContent();
    await context.close();

    expect(settlement).toEqual({ outcome: 'dismissed', cmp: 'Onetrust' });
    expect(bannerVisible).toBe(false);
    expect(headline).toBe('Headline');
    expect(site.hits.get('/consent/reject')).toBe(1);
    expect(site.hits.get('/consent/accept')).toBeUndefined();
    expect(errors).toEqual([]);
  });

  it('leaves the banner in place without the dismisser (control)', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(site.url('/onetrust.html'), { waitUntil: 'load' });
    await page.locator('#onetrust-banner-sdk').waitFor({ state: 'visible' });
    await context.close();

    expect(site.hits.get('/consent/reject')).toBeUndefined();
  });

  it('pre-hides banners only on pages set to (those a screenshot is taken of)', async () => {
    // Records whether autoconsent's pre-hiding stylesheet was ever added to the document.
    const watch = `new MutationObserver((records) => {
      for (const r of records) for (const n of r.addedNodes) if (n.id === 'autoconsent-prehide') window.__prehidden = true;
    }).observe(document, { childList: true, subtree: true });`;
    const seen = async (on: boolean | undefined): Promise<boolean> => {
      const context = await browser.newContext();
      await context.addInitScript({ content: watch });
      const consent = await attachConsentDismisser(context, { assets });
      const page = await context.newPage();
      if (on !== undefined) consent.prehide(page, on);
      await page.goto(site.url('/plain.html'), { waitUntil: 'load' });
      await consent.waitForSettled(page, { timeoutMs: 20_000 });
      const prehidden = await page.evaluate(() => (globalThis as unknown as { __prehidden?: boolean }).__prehidden === true);
      await context.close();
      return prehidden;
    };
    expect(await seen(true)).toBe(true);
    expect(await seen(undefined)).toBe(false);
    expect(await seen(false)).toBe(false);
  });

  it('settles as "none" on a page without a consent pop-up', async () => {
    const context = await browser.newContext();
    const errors: unknown[] = [];
    const consent = await attachConsentDismisser(context, { assets, onError: (error) => errors.push(error) });
    const page = await context.newPage();
    await page.goto(site.url('/plain.html'), { waitUntil: 'load' });

    const settlement = await consent.waitForSettled(page, { timeoutMs: 20_000 });
    await context.close();

    expect(settlement).toEqual({ outcome: 'none' });
    expect(errors).toEqual([]);
  });

  it('never rejects: an aborted scrape or a closed page end the wait', async () => {
    const context = await browser.newContext();
    const consent = await attachConsentDismisser(context, { assets });
    const page = await context.newPage();
    // Loaded first: closing a page that is still starting its content script can hang Chromium for
    // a long time on a loaded machine (seen twice in full runs), which is not what this test is about.
    await page.goto(site.url('/plain.html'), { waitUntil: 'load' });

    const aborted = await consent.waitForSettled(page, { timeoutMs: 20_000, signal: AbortSignal.abort() });
    // A long quiet period: only the close can end this wait.
    const waiting = consent.waitForSettled(page, { timeoutMs: 40_000, searchQuietMs: 40_000 });
    const [closed] = await Promise.all([waiting, page.close({ runBeforeUnload: false })]);
    await context.close();

    expect(aborted).toEqual({ outcome: 'aborted' });
    expect(closed).toEqual({ outcome: 'closed' });
  }, 60_000);
});
