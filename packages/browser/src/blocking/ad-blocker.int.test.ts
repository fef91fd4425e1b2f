import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { FixtureSite } from '@trawl/testing';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM_ARGS } from '../browser-pool.js';
import { interceptRequests, type Interception } from '../request-interception.js';
import { AdBlocker } from './ad-blocker.js';

// Every host name resolves to the fixture server, so the server's hit counts prove which requests
// Chromium actually sent. Real TrackerDB filters decide: ||doubleclick.net^$3p,
// ||securepubads.g.doubleclick.net^$3p, ||analytics.tiktok.com^$3p, /matomo.js.
const PAGE_HOST = 'news.example';
const AD_PATHS = ['/tag/js/gpt.js', '/ad-frame.html', '/ad-pixel.gif', '/tiktok/events', '/js/matomo.js', '/embed-pixel.gif'];
const CONTENT_PATHS = ['/', '/app.js', '/style.css', '/s/files/product.png', '/recaptcha/api.js', '/embed.html'];

let site: FixtureSite;
let browser: Browser;
let blocker: AdBlocker;

function articleHtml(port: number): string {
  const at = (host: string, path: string) => `http://${host}:${port}${path}`;
  return `<!doctype html><html><head><title>Article</title>
<link rel="stylesheet" href="/style.css">
<script src="/app.js"></script>
<script src="${at('securepubads.g.doubleclick.net', '/tag/js/gpt.js')}"></script>
<script src="/js/matomo.js"></script>
<script src="${at('www.google.com', '/recaptcha/api.js')}"></script>
</head><body><h1>Headline</h1><p>Body text.</p>
<img src="${at('cdn.shopify.com', '/s/files/product.png')}" alt="product">
<img src="${at('ad.doubleclick.net', '/ad-pixel.gif')}" alt="">
<iframe src="${at('googleads.g.doubleclick.net', '/ad-frame.html')}"></iframe>
<iframe src="${at('video.example', '/embed.html')}"></iframe>
</body></html>`;
}

beforeAll(async () => {
  site = await new FixtureSite().start();
  site.page('/', articleHtml(site.port));
  for (const path of ['/app.js', '/tag/js/gpt.js', '/js/matomo.js', '/recaptcha/api.js']) site.page(path, '/* js */', 'text/javascript');
  site.page('/style.css', 'h1 { color: black; }', 'text/css');
  for (const path of ['/s/files/product.png', '/ad-pixel.gif']) site.page(path, 'GIF89a', 'image/gif');
  site.page('/ad-frame.html', '<p>ad</p>');
  // A cross-site content iframe (its own process in the full browser with site isolation) with an ad in it.
  site.page('/embed.html', `<p>video</p><img src="http://ad.doubleclick.net:${site.port}/embed-pixel.gif" alt="">`);
  site.page('/embed-pixel.gif', 'GIF89a', 'image/gif');
  site.page('/tiktok/events', '{}', 'application/json');
  site.page('/mocked.json', '{"from":"server"}', 'application/json');
  site.page('/cached', '<html><head><link rel="stylesheet" href="/cached.css"><script src="/cached.js"></script></head><body><p>cached</p></body></html>');
  for (const [path, type] of [['/cached.css', 'text/css'], ['/cached.js', 'text/javascript']] as const) {
    site.route(path, (_req, res) => void res.writeHead(200, { 'content-type': type, 'cache-control': 'max-age=3600' }).end('/* cached */'));
  }
  blocker = await AdBlocker.load();
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [...CHROMIUM_ARGS, '--host-resolver-rules=MAP * 127.0.0.1'],
  });
});

afterAll(async () => {
  await browser?.close();
  await site?.stop();
});

beforeEach(() => site.resetCounters());

jest.setTimeout(30_000);

/** A page of the context with the blocker judging its requests. */
async function blockedPage(context: BrowserContext): Promise<{ page: Page; attachment: Interception }> {
  const page = await context.newPage();
  const attachment = await interceptRequests(await context.newCDPSession(page), { skipMedia: false, blockers: [blocker] });
  if (!attachment) throw new Error('a blocker always intercepts');
  return { page, attachment };
}

async function loadArticle(page: Page): Promise<number> {
  // The page's load event waits for its iframes' own loads, their images included.
  await page.goto(`http://${PAGE_HOST}:${site.port}/`, { waitUntil: 'load' });
  const tracked = await page.evaluate(async (url) => {
    try {
      await fetch(url, { mode: 'no-cors' });
      return 1;
    } catch {
      return 0;
    }
  }, `http://analytics.tiktok.com:${site.port}/tiktok/events`);
  return tracked;
}

describe('AdBlocker (real Chromium)', () => {
  it('loads the TrackerDB list', () => {
    expect(blocker.stats.filters).toBeGreaterThan(3000);
  });

  it('keeps ad and tracker requests from ever reaching the network, and lets the page through', async () => {
    const context = await browser.newContext();
    const { page, attachment } = await blockedPage(context);
    const tracked = await loadArticle(page);
    await context.close();

    expect(tracked).toBe(0);
    for (const path of AD_PATHS) expect([path, site.hits.get(path) ?? 0]).toEqual([path, 0]);
    for (const path of CONTENT_PATHS) expect([path, site.hits.get(path) ?? 0]).toEqual([path, 1]);
    expect(attachment.blocked()).toBe(AD_PATHS.length);
    // The first-party page, script and style match no filter: the engine never judged them.
    expect(attachment.judged()).toBeGreaterThanOrEqual(AD_PATHS.length);
    expect(attachment.judged()).toBeLessThanOrEqual(AD_PATHS.length + CONTENT_PATHS.length + 1 - 3);
  });

  it('without the blocker the same page does send them (control)', async () => {
    const context = await browser.newContext();
    const tracked = await loadArticle(await context.newPage());
    await context.close();

    expect(tracked).toBe(1);
    for (const path of [...AD_PATHS, ...CONTENT_PATHS]) expect([path, site.hits.get(path) ?? 0]).toEqual([path, 1]);
  });

  it('never blocks the page itself, even on an ad domain', async () => {
    const context = await browser.newContext();
    const { page, attachment } = await blockedPage(context);
    const response = await page.goto(`http://ad.doubleclick.net:${site.port}/ad-frame.html`);
    // After a cross-site navigation too (a new renderer process for the same top frame).
    await page.goto(`http://${PAGE_HOST}:${site.port}/cached`);
    const again = await page.goto(`http://googleads.g.doubleclick.net:${site.port}/ad-frame.html`);
    await context.close();

    expect(response?.status()).toBe(200);
    expect(again?.status()).toBe(200);
    expect(attachment.blocked()).toBe(0);
  });

  it('leaves the HTTP cache on: the next page of the context takes its stylesheet and script from it', async () => {
    const context = await browser.newContext();
    const { page, attachment } = await blockedPage(context);
    await page.goto(`http://${PAGE_HOST}:${site.port}/cached`);
    await page.goto(`http://${PAGE_HOST}:${site.port}/cached?again`);
    await attachment.detach();
    await context.close();

    expect(site.hits.get('/cached')).toBe(2);
    expect(site.hits.get('/cached.css')).toBe(1);
    expect(site.hits.get('/cached.js')).toBe(1);
  });

  it('works beside Playwright routes: an unblocked request still reaches them', async () => {
    const context = await browser.newContext();
    await context.route('**/mocked.json', (route) => route.fulfill({ json: { from: 'earlier handler' } }));
    const { page } = await blockedPage(context);
    await page.goto(`http://${PAGE_HOST}:${site.port}/`);
    const body = await page.evaluate(async () => (await fetch('/mocked.json')).json());
    await context.close();

    expect(body).toEqual({ from: 'earlier handler' });
    expect(site.hits.get('/mocked.json')).toBeUndefined();
  });
});
