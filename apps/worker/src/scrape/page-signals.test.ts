import { describe, expect, it } from '@jest/globals';
import { CRAFTED_PAGES, referenceIsBotWall } from './__fixtures__/bot-wall-reference.js';
import { isBotWall, isJavascriptShell, isSuccessStatus } from './page-signals.js';

describe('isJavascriptShell', () => {
  it('sees an empty React mount point with scripts', () => {
    const html = '<html><head><title>App</title></head><body><div id="root"></div><script src="/main.js"></script></body></html>';
    expect(isJavascriptShell(html, '')).toBe(true);
  });

  it('sees a noscript notice', () => {
    const html = '<body><noscript>You need to enable JavaScript to run this app.</noscript><div id="x">Loading</div><script src="/a.js"></script></body>';
    expect(isJavascriptShell(html, 'You need to enable JavaScript to run this app. Loading')).toBe(true);
  });

  it('leaves pages with content alone, scripts or not', () => {
    const article = 'Words of a real article. '.repeat(20);
    expect(isJavascriptShell(`<div id="root"></div><script></script><p>${article}</p>`, article)).toBe(false);
    expect(isJavascriptShell('<p>Short page without scripts</p>', 'Short page without scripts')).toBe(false);
  });

  it('counts link text, not URLs', () => {
    const md = '[Home](https://example.com/a/very/long/url/that/is/not/text/at/all/and/goes/on/and/on/forever/and/ever/and/ever/and/ever/and/ever)';
    expect(isJavascriptShell('<a href="x">Home</a><script></script>', md)).toBe(true);
    // Many links whose targets hold thousands of letters, and images whose targets do: still no text.
    const links = Array.from({ length: 12 }, (_, i) => `[L${i}](https://example.com/${'segment/'.repeat(30)}${i}) ![](/img/${'x'.repeat(200)}.png)`).join('\n');
    expect(isJavascriptShell('<div id="root"></div><script></script>', links)).toBe(true);
    // Text in parentheses that are no link target counts all the same (the full count decides it).
    const aside = `(${'An aside in parentheses that is visible text all the same. '.repeat(6)})`;
    expect(isJavascriptShell('<div id="root"></div><script></script>', aside)).toBe(false);
  });

  it('reads the page (given as a function) only when its markdown leaves the question open', () => {
    let reads = 0;
    const page = (html: string) => () => {
      reads++;
      return html;
    };
    expect(isJavascriptShell(page('<div id="root"></div><script></script><p>text</p>'), 'Words of a real article. '.repeat(20))).toBe(false);
    expect(reads).toBe(0);
    expect(isJavascriptShell(page('<div id="root"></div><script src="/main.js"></script>'), '')).toBe(true);
    expect(reads).toBe(1);
  });
});

describe('isJavascriptShell against its four-pass form', () => {
  // The check as it was before its one-pass shortcut (hasVisibleText): the visible text, always.
  const visibleText = (markdown: string) => markdown
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[#>*_`|~-]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const reference = (markdown: string) => visibleText(markdown).length < 250;

  it('answers alike on random markdown made of link, image and emphasis syntax', () => {
    let seed = 22;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const pieces = ['[', ']', '(', ')', '!', '#', '*', '_', '-', ' ', '\n', 'a', 'Z', '7', 'é', 'word ', 'https://x.example/a', '](', '![', ')(', '((', '))'];
    const html = '<div id="root"></div><script></script>';
    const differ: string[] = [];
    let shells = 0;
    for (let n = 0; n < 20_000; n++) {
      const length = Math.floor(random() * 700);
      let md = '';
      while (md.length < length) md += pieces[Math.floor(random() * pieces.length)];
      if (reference(md)) shells++;
      if (isJavascriptShell(html, md) !== reference(md)) differ.push(md);
    }
    expect(differ).toEqual([]);
    // Both answers are well represented.
    expect(shells).toBeGreaterThan(5_000);
    expect(20_000 - shells).toBeGreaterThan(5_000);
  });
});

describe('isBotWall', () => {
  it('treats 401, 403 and 429 as blocked', () => {
    for (const status of [401, 403, 429]) expect(isBotWall(status, '<p>x</p>')).toBe(true);
    expect(isBotWall(404, '<p>not found</p>')).toBe(false);
    expect(isBotWall(200, '<p>fine</p>')).toBe(false);
  });

  it('recognises challenge pages served with other statuses', () => {
    expect(isBotWall(503, '<html><head><title>Just a moment...</title></head><body>Checking your browser</body></html>')).toBe(true);
    expect(isBotWall(200, '<script src="https://ct.captcha-delivery.com/c.js"></script>')).toBe(true);
    expect(isBotWall(200, '<html><head><title>Pardon Our Interruption</title></head></html>')).toBe(true);
  });

  it('answers as the unfiltered markers do on crafted walls of every service and their near misses', () => {
    for (const { name, html, wall } of CRAFTED_PAGES) {
      for (const status of [200, 404, 503]) {
        expect([name, status, referenceIsBotWall(status, html)]).toEqual([name, status, wall]);
        expect([name, status, isBotWall(status, html)]).toEqual([name, status, wall]);
      }
    }
  });
});

describe('isSuccessStatus', () => {
  it('accepts 2xx only: a 404 or 500 page is never a reason to render', () => {
    for (const status of [200, 203, 299]) expect(isSuccessStatus(status)).toBe(true);
    for (const status of [199, 301, 404, 410, 500, 503]) expect(isSuccessStatus(status)).toBe(false);
  });
});
