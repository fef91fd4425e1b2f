import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { EventEmitter, once } from 'node:events';
import { TrawlError, actionSchema, type ActionInput } from '@trawl/api-schema';
import { DEFAULT_USER_AGENT, HttpFetcher } from '@trawl/scrape-engine';
import { FixtureSite } from '@trawl/testing';
import { BrowserFetcher, type BrowserFetchRequest } from './browser-fetcher.js';
import { BrowserPool, childBrowserPids } from './browser-pool.js';
import { AdBlocker } from './blocking/ad-blocker.js';
import { adBlockPlugin } from './browser-plugins.js';

jest.setTimeout(30_000);

const site = new FixtureSite();
const seen: Array<{ path: string; headers: Record<string, string | string[] | undefined> }> = [];
/** `arrived` when `/slow` is asked for. */
const slowEvents = new EventEmitter();
let pool: BrowserPool;
let fetcher: BrowserFetcher;

const PDF_BYTES = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

function request(path: string, extra: Partial<BrowserFetchRequest> = {}): BrowserFetchRequest {
  const timeoutMs = extra.timeoutMs ?? 20_000;
  return { url: site.url(path), signal: AbortSignal.timeout(timeoutMs), timeoutMs, maxBytes: 5_000_000, ...extra };
}

/** The media files of `/media`, each recorded when asked for. */
const MEDIA_FILES = ['/m/a.png', '/m/b.JPG', '/m/clip.mp4', '/m/font.woff2', '/m/plain'];
/** A 1x1 transparent PNG. */
const PNG_1X1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

const actions = (list: ActionInput[]) => list.map((a) => actionSchema.parse(a));

function pngSize(buf: Buffer): { width: number; height: number } {
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

beforeAll(async () => {
  site
    .route('/spa', (req, res) => {
      seen.push({ path: '/spa', headers: req.headers });
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<html><head><title>SPA</title></head><body><div id="root"></div>
        <script>fetch('/api/items').then(r => r.json()).then(items => {
          document.getElementById('root').innerHTML = '<h1>Rendered list</h1><ul>' + items.map(i => '<li>' + i + '</li>').join('') + '</ul>';
        });</script></body></html>`);
    })
    .page('/after-load', `<html><head><title>After load</title></head><body><div id="root"></div>
        <script>window.addEventListener('load', () => setTimeout(() => fetch('/api/items').then(r => r.json()).then(items => {
          document.getElementById('root').innerHTML = '<h1>Loaded later</h1><p>' + items.join(', ') + '</p>';
        }), 100));</script></body></html>`)
    // Work a loaded page schedules without a request in flight: a timer, a chain of animation frames,
    // a response that starts a timer. The smart wait's short quiet (nothing scheduled) must not cut them off.
    .page('/timer-after-load', `<html><body><div id="root">loading</div>
        <script>window.addEventListener('load', () => setTimeout((a, b) => {
          document.getElementById('root').textContent = 'Timer ' + a + b;
        }, 200, 'ran', '!'));</script></body></html>`)
    .page('/frames-after-load', `<html><body><div id="root">loading</div>
        <script>window.addEventListener('load', () => { let n = 0; const step = () => {
          n += 1; if (n < 8) requestAnimationFrame(step); else document.getElementById('root').textContent = 'Frames done ' + n; };
          requestAnimationFrame(step); });</script></body></html>`)
    .page('/response-then-timer', `<html><body><div id="root">loading</div>
        <script>window.addEventListener('load', () => fetch('/api/items').then(r => r.json()).then(items => setTimeout(() => {
          document.getElementById('root').textContent = 'After timer: ' + items.join(', ');
        }, 150)));</script></body></html>`)
    .page('/timers-behave', `<html><body><p id="out"></p><script>
        const log = [];
        const cleared = setTimeout(() => log.push('cleared ran'), 10);
        clearTimeout(cleared);
        const frame = requestAnimationFrame(() => log.push('cancelled frame ran'));
        cancelAnimationFrame(frame);
        const id = setTimeout(function (x) { log.push('timeout ' + x + ' ' + (this === window)); }, 0, 'arg');
        setTimeout('log.push("string handler")', 0);
        setTimeout(() => { log.push('long'); }, 1000);
        // Written once a frame ran (the timers above ran before it: theirs are due earlier).
        requestAnimationFrame((t) => { log.push('frame ' + (typeof t)); setTimeout(() => {
          document.getElementById('out').textContent = [typeof id, setTimeout.name, setTimeout.length, ...log].join('|'); }, 20); });
      </script></body></html>`)
    .route('/api/items', (_req, res) => {
      setTimeout(() => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(JSON.stringify(['alpha', 'beta', 'gamma'])); }, 150).unref();
    })
    .page('/shadow', `<html><body><p>light text</p><my-card><span slot="title">Slotted title</span></my-card>
      <script>customElements.define('my-card', class extends HTMLElement { constructor() { super();
        this.attachShadow({mode: 'open'}).innerHTML = '<h2><slot name="title"></slot></h2><p>Shadow paragraph text</p>'; } });</script></body></html>`)
    .route('/headers', (req, res) => {
      seen.push({ path: '/headers', headers: req.headers });
      res.writeHead(302, { location: '/headers-final' });
      res.end();
    })
    .route('/headers-final', (req, res) => {
      seen.push({ path: '/headers-final', headers: req.headers });
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<html><head><meta name="viewport" content="width=device-width"></head><body><p id="ua"></p><script>document.getElementById('ua').textContent =
        [navigator.userAgent, window.innerWidth, Intl.DateTimeFormat().resolvedOptions().timeZone, navigator.language, navigator.webdriver].join('|');</script></body></html>`);
    })
    .page('/actions', `<html><body>
      <button id="reveal" onclick="document.getElementById('out').textContent = 'Revealed by click'">Reveal</button>
      <p id="out"></p>
      <form onsubmit="event.preventDefault(); document.getElementById('typed').textContent = 'Typed: ' + document.getElementById('q').value">
        <input id="q" name="q"></form>
      <p id="typed"></p>
      <div id="later"></div>
      <script>setTimeout(() => { document.getElementById('later').innerHTML = '<span class="late">Late element</span>'; }, 300);</script>
      <div style="height: 3000px">tall</div>
      <p id="bottom">Bottom</p>
      <script>window.addEventListener('scroll', () => { if (!document.getElementById('more')) {
        const p = document.createElement('p'); p.id = 'more'; p.textContent = 'Loaded on scroll'; document.body.appendChild(p); } });</script>
      </body></html>`)
    .route('/slow', (_req, res) => {
      const t = setTimeout(() => { res.writeHead(200, { 'content-type': 'text/html' }); res.end('<p>late</p>'); }, 5000);
      res.on('close', () => clearTimeout(t));
      slowEvents.emit('arrived');
    })
    .page('/storage', `<html><body><p id="v"></p><script>
      document.getElementById('v').textContent = 'stored=' + localStorage.getItem('k');
      localStorage.setItem('k', 'v1');</script></body></html>`)
    .route('/json', (_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"a":1}'); })
    // Pages Chromium does not render: a PDF (a download in the headless shell, the viewer in the full
    // browser) and an attachment.
    .route('/file.pdf', (req, res) => {
      seen.push({ path: '/file.pdf', headers: req.headers });
      res.writeHead(200, { 'content-type': 'application/pdf' }).end(PDF_BYTES);
    })
    .route('/attachment', (req, res) => {
      seen.push({ path: '/attachment', headers: req.headers });
      res.writeHead(200, { 'content-type': 'text/csv', 'content-disposition': 'attachment; filename="a.csv"' }).end('a,b\n1,2\n');
    })
    .route('/private.pdf', (req, res) => {
      seen.push({ path: '/private.pdf', headers: req.headers });
      if (req.headers.authorization !== `Basic ${Buffer.from('alice:pa ss').toString('base64')}`) return void res.writeHead(401, { 'www-authenticate': 'Basic realm="t"' }).end();
      res.writeHead(200, { 'content-type': 'application/pdf' }).end(PDF_BYTES);
    })
    // window.open without a user gesture, and what the page's scripts see of the user agent's hints.
    .page('/opens-window', `<html><body><p id="r"></p><script>
      document.getElementById('r').textContent = 'opened:' + (window.open('/plain', '_blank') !== null);</script></body></html>`)
    .page('/hints', `<html><body><p id="r"></p><script>
      document.getElementById('r').textContent = JSON.stringify(navigator.userAgentData ? navigator.userAgentData.brands : null);</script></body></html>`)
    // Content written a second after the document loaded: only a page that waits (waitFor) has it.
    .route('/late-content', (req, res) => {
      const status = new URL(req.url ?? '/', 'http://x').searchParams.get('status') ?? '200';
      res.writeHead(Number(status), { 'content-type': 'text/html' }).end(`<html><body><p>Static text</p><div id="late"></div>
        <script>setTimeout(() => { document.getElementById('late').textContent = 'Written late'; }, 1000);</script></body></html>`);
    })
    // A page with images, a web font and a video; each file's request is recorded.
    .page('/media', `<html><head><style>@font-face { font-family: F; src: url(/m/font.woff2); } p { font-family: F; }</style></head>
      <body><p>Media page</p><img src="/m/a.png" alt="a"><img src="/m/b.JPG?v=2" alt="b"><img src="/m/plain" alt="c">
      <video src="/m/clip.mp4" autoplay muted></video><p id="loaded"></p><script src="/js/matomo.js"></script>
      <script>for (const img of document.querySelectorAll('img')) {
        const mark = () => { if (img.naturalWidth > 0) document.getElementById('loaded').textContent += img.alt; };
        if (img.complete) mark(); else img.addEventListener('load', mark);
      }</script></body></html>`)
    .route('/js/matomo.js', (req, res) => {
      seen.push({ path: '/js/matomo.js', headers: req.headers });
      res.writeHead(200, { 'content-type': 'text/javascript' }).end('/* analytics */');
    })
    .route('/basic', (req, res) => {
      if (req.headers.authorization === `Basic ${Buffer.from('alice:pa ss').toString('base64')}`) return void res.writeHead(200, { 'content-type': 'text/html' }).end('<p>members only</p>');
      res.writeHead(401, { 'www-authenticate': 'Basic realm="t"', 'content-type': 'text/html' }).end('<p>who are you</p>');
    });
  for (const path of MEDIA_FILES) {
    site.route(path, (req, res) => {
      seen.push({ path, headers: req.headers });
      res.writeHead(200, { 'content-type': path.endsWith('.png') ? 'image/png' : 'application/octet-stream' }).end(PNG_1X1);
    });
  }
  await site.start();
  pool = new BrowserPool({ recycleAfterContexts: 6 });
  fetcher = new BrowserFetcher({ pool, smartWaitMaxMs: 3000 });
});

afterAll(async () => {
  await pool.close();
  await site.stop();
});

describe('BrowserFetcher', () => {
  it('renders JavaScript content after the smart wait', async () => {
    const r = await fetcher.fetch(request('/spa'));
    expect(r.statusCode).toBe(200);
    expect(r.kind).toBe('html');
    expect(r.text).toContain('<li>gamma</li>');
    expect(r.text).toContain('Rendered list');
  });

  it('waits for content a script fetches and renders shortly after the load event (the shorter quiet after load)', async () => {
    const r = await fetcher.fetch(request('/after-load'));
    expect(r.text).toContain('Loaded later');
    expect(r.text).toContain('alpha, beta, gamma');
  });

  it('waits for a timer, a chain of animation frames and a timer a response starts, after the load event', async () => {
    const [timer, frames, chained] = await Promise.all([
      fetcher.fetch(request('/timer-after-load')), fetcher.fetch(request('/frames-after-load')), fetcher.fetch(request('/response-then-timer')),
    ]);
    expect(timer.text).toContain('Timer ran!');
    expect(frames.text).toContain('Frames done 8');
    expect(chained.text).toContain('After timer: alpha, beta, gamma');
  });

  it('leaves the page\'s timers and animation frames working as the browser\'s own', async () => {
    const r = await fetcher.fetch(request('/timers-behave'));
    const out = /<p id="out">([^<]*)<\/p>/.exec(r.text ?? '')?.[1]?.split('|');
    expect(out?.slice(0, 3)).toEqual(['number', 'setTimeout', '1']);
    expect(out?.slice(3).sort()).toEqual(['frame number', 'string handler', 'timeout arg true']);
  });

  it('answers the Basic challenge of the URL\'s origin with its credentials, reporting the URL without them', async () => {
    const url = site.url('/basic').replace('://', '://alice:pa%20ss@');
    const r = await fetcher.fetch(request('/basic', { url }));
    expect(r.statusCode).toBe(200);
    expect(r.text).toContain('members only');
    expect(r.url).toBe(site.url('/basic'));
  });

  it('captures the content of open shadow roots with slotted nodes in place', async () => {
    const r = await fetcher.fetch(request('/shadow'));
    expect(r.text).toContain('Shadow paragraph text');
    expect(r.text).toMatch(/<h2><span slot="title">Slotted title<\/span><\/h2>/);
    expect(r.text).toContain('light text');
  });

  it('sends headers, a User-Agent and cookies that survive a redirect; reports the redirect chain', async () => {
    seen.length = 0;
    const r = await fetcher.fetch(request('/headers', { headers: { 'X-Custom': 'yes', Cookie: 'session=abc; theme=dark', 'User-Agent': 'TrawlTest/1.0' } }));
    expect(r.url).toBe(site.url('/headers-final'));
    expect(r.redirects).toEqual([site.url('/headers-final')]);
    const first = seen.find((s) => s.path === '/headers');
    const final = seen.find((s) => s.path === '/headers-final');
    expect(first?.headers['x-custom']).toBe('yes');
    expect(final?.headers.cookie).toBe('session=abc; theme=dark');
    expect(final?.headers['user-agent']).toBe('TrawlTest/1.0');
    expect(r.text).toContain('TrawlTest/1.0|1366|');
  });

  it('emulates a phone and a location (timezone, locale, Accept-Language)', async () => {
    seen.length = 0;
    const r = await fetcher.fetch(request('/headers', { mobile: true, location: { country: 'DE' } }));
    const text = /<p id="ua">([^<]*)<\/p>/.exec(r.text ?? '')?.[1] ?? '';
    const [ua, width, tz, lang] = text.split('|');
    expect(ua).toContain('Mobile');
    expect(Number(width)).toBe(412);
    expect(tz).toBe('Europe/Berlin');
    expect(lang).toBe('de-DE');
    expect(r.timezone).toBe('Europe/Berlin');
    expect(seen.find((s) => s.path === '/headers-final')?.headers['accept-language']).toBe('de-DE,de;q=0.9');
  });

  it('runs every action type in order and returns their outputs', async () => {
    const r = await fetcher.fetch(request('/actions', {
      actions: actions([
        { type: 'wait', selector: '.late' },
        { type: 'click', selector: '#reveal' },
        { type: 'click', selector: '#q' },
        { type: 'write', text: 'hello trawl' },
        { type: 'press', key: 'Enter' },
        { type: 'wait', milliseconds: 50 },
        { type: 'scrape' },
        { type: 'executeJavascript', script: 'document.title = "changed"; return document.querySelectorAll("p").length' },
        { type: 'executeJavascript', script: 'document.getElementById("typed").textContent' },
        { type: 'scroll', direction: 'down' },
        { type: 'screenshot', fullPage: false },
        { type: 'screenshot', quality: 50, viewport: { width: 800, height: 600 } },
        { type: 'pdf', format: 'A4' },
      ]),
    }));
    expect(r.text).toContain('Revealed by click');
    expect(r.text).toContain('Typed: hello trawl');
    expect(r.text).toContain('Loaded on scroll');
    expect(r.actions?.scrapes).toHaveLength(1);
    expect(r.actions?.scrapes[0]?.html).toContain('Typed: hello trawl');
    expect(r.actions?.scrapes[0]?.url).toBe(site.url('/actions'));
    expect(r.actions?.javascriptReturns).toEqual([{ type: 'number', value: 3 }, { type: 'string', value: 'Typed: hello trawl' }]);
    const [png, jpeg] = r.actions?.screenshots ?? [];
    expect(png?.contentType).toBe('image/png');
    expect(pngSize(png!.data)).toEqual({ width: 1366, height: 768 });
    expect(jpeg?.contentType).toBe('image/jpeg');
    expect(jpeg?.data.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(r.actions?.pdfs[0]?.data.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('fails a click on a missing selector with a code, unless all is true', async () => {
    const err = await fetcher.fetch(request('/actions', { actions: actions([{ type: 'click', selector: '#nope' }]) })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TrawlError);
    expect((err as TrawlError).code).toBe('SCRAPE_ACTION_ELEMENT_NOT_FOUND');
    expect((err as TrawlError).details).toMatchObject({ index: 0, selector: '#nope' });
    const ok = await fetcher.fetch(request('/actions', { actions: actions([{ type: 'click', selector: '#nope', all: true }]) }));
    expect(ok.statusCode).toBe(200);
  });

  it('reports a script error as SCRAPE_ACTION_FAILED with the action index', async () => {
    const err = await fetcher.fetch(request('/actions', { actions: actions([{ type: 'wait', milliseconds: 1 }, { type: 'executeJavascript', script: 'throw new Error("boom")' }]) }))
      .catch((e: unknown) => e);
    expect((err as TrawlError).code).toBe('SCRAPE_ACTION_FAILED');
    expect((err as TrawlError).details).toMatchObject({ index: 1, type: 'executeJavascript' });
  });

  it('takes a full-page screenshot for the screenshot format', async () => {
    const r = await fetcher.fetch(request('/actions', { screenshot: { fullPage: true } }));
    const size = pngSize(r.screenshot!.data);
    expect(size.width).toBe(1366);
    expect(size.height).toBeGreaterThan(3000);
  });

  it('times out with SCRAPE_TIMEOUT', async () => {
    const err = await fetcher.fetch(request('/slow', { timeoutMs: 1500 })).catch((e: unknown) => e);
    expect((err as TrawlError).code).toBe('SCRAPE_TIMEOUT');
  });

  it('returns non-HTML responses as served', async () => {
    const r = await fetcher.fetch(request('/json'));
    expect(r.kind).toBe('json');
    expect(r.text).toBe('{"a":1}');
  });

  it('hands pages Chromium does not render (a PDF, an attachment) to its http engine, with the context\'s cookies', async () => {
    const downloads = new HttpFetcher({ allowPrivateTargets: true });
    const withDownloads = new BrowserFetcher({ pool, smartWaitMaxMs: 3000, downloads });
    const pdf = await withDownloads.fetch(request('/file.pdf', { headers: { cookie: 'team=blue' } }));
    expect(pdf).toMatchObject({ statusCode: 200, contentType: 'application/pdf', kind: 'pdf', requestedUrl: site.url('/file.pdf') });
    expect(pdf.body?.equals(PDF_BYTES)).toBe(true);
    expect(seen.filter((r) => r.path === '/file.pdf').at(-1)?.headers.cookie).toBe('team=blue');
    const csv = await withDownloads.fetch(request('/attachment', { userAgent: 'TrawlTestAgent/1.0', location: { languages: ['de-DE'] } }));
    expect(csv).toMatchObject({ statusCode: 200, kind: 'text', text: 'a,b\n1,2\n' });
    // The download goes out as the browser's request would: its user agent and languages.
    const asked = seen.filter((r) => r.path === '/attachment').at(-1)?.headers;
    expect(asked?.['user-agent']).toBe('TrawlTestAgent/1.0');
    expect(String(asked?.['accept-language'])).toMatch(/^de-DE/);
    // The URL's credentials answer its origin's challenge on the download too.
    const withCredentials = new URL(site.url('/private.pdf'));
    withCredentials.username = 'alice';
    withCredentials.password = encodeURIComponent('pa ss');
    const privatePdf = await withDownloads.fetch(request('/private.pdf', { url: withCredentials.href }));
    expect(privatePdf).toMatchObject({ statusCode: 200, kind: 'pdf', requestedUrl: site.url('/private.pdf') });
    // Without an http engine, a download is a clear failure.
    const err = await fetcher.fetch(request('/attachment')).catch((e: unknown) => e);
    expect((err as TrawlError).code).toBe('SCRAPE_FAILED');
  });

  it('captures a 4xx page at once when the caller drops such pages, and settles every other page as usual', async () => {
    const dropped = await fetcher.fetch(request('/late-content?status=404', { dropsErrorPages: true, waitForMs: 2500 }));
    expect(dropped.statusCode).toBe(404);
    expect(dropped.text).toContain('Static text');
    expect(dropped.text).toContain('<div id="late"></div>');
    const [kept, ok] = await Promise.all([
      fetcher.fetch(request('/late-content?status=404', { waitForMs: 2500 })),
      fetcher.fetch(request('/late-content', { dropsErrorPages: true, waitForMs: 2500 })),
    ]);
    expect(kept.text).toContain('<div id="late">Written late</div>');
    expect(ok.text).toContain('<div id="late">Written late</div>');
  });

  it('skips images, fonts and video for a page only read, and loads them for a screenshot or actions', async () => {
    const skipping = new BrowserFetcher({ pool, smartWaitMaxMs: 3000, skipMedia: true });
    const media = () => seen.splice(0).map((r) => r.path).filter((path) => path.startsWith('/m/')).sort();
    seen.length = 0;
    const read = await skipping.fetch(request('/media'));
    expect(read.text).toContain('<img src="/m/a.png" alt="a">');
    // Each image loaded (a placeholder), as the page's scripts expect.
    expect(read.text).toContain('<p id="loaded">abc</p>');
    // By kind, not by name: an image URL without an extension is skipped too.
    expect(media()).toEqual([]);
    // A navigation to an image is not a subresource: it loads.
    const image = await skipping.fetch(request('/m/a.png'));
    expect(image.statusCode).toBe(200);
    expect(image.body?.equals(PNG_1X1)).toBe(true);
    expect(media()).toEqual(['/m/a.png']);
    const all = MEDIA_FILES.slice().sort();
    await skipping.fetch(request('/media', { screenshot: { fullPage: false } }));
    expect([...new Set(media())]).toEqual(all);
    await skipping.fetch(request('/media', { actions: actions([{ type: 'wait', milliseconds: 10 }]) }));
    expect([...new Set(media())]).toEqual(all);
    // The stealth browser and a fetcher without the option load what a visitor's browser would.
    await skipping.fetch(request('/media', { stealth: true }));
    expect([...new Set(media())]).toEqual(all);
    await fetcher.fetch(request('/media'));
    expect([...new Set(media())]).toEqual(all);
  });

  it('blocks ads through the ad blocker plugin in the same interception that skips media', async () => {
    const blocking = new BrowserFetcher({ pool, smartWaitMaxMs: 3000, skipMedia: true, plugins: [adBlockPlugin(await AdBlocker.load())] });
    seen.length = 0;
    const page = await blocking.fetch(request('/media'));
    expect(page.text).toContain('<p id="loaded">abc</p>');
    expect(seen.map((r) => r.path)).toEqual([]);
    // Without the plugin the tracker loads.
    await fetcher.fetch(request('/media'));
    expect(seen.map((r) => r.path)).toContain('/js/matomo.js');
  });

  it('opens no window without a user gesture, and its client hints carry the user agent\'s brand, not a headless one', async () => {
    const opened = await fetcher.fetch(request('/opens-window'));
    expect(opened.text).toContain('opened:false');
    const hints = await fetcher.fetch(request('/hints'));
    const brands = JSON.parse(/<p id="r">([^<]*)<\/p>/.exec(hints.text ?? '')?.[1] ?? 'null') as Array<{ brand: string; version: string }> | null;
    expect(brands).toContainEqual({ brand: 'Google Chrome', version: /Chrome\/(\d+)/.exec(DEFAULT_USER_AGENT)?.[1] });
    expect(JSON.stringify(brands)).not.toMatch(/Headless/i);
  });

  it('starts from a storage state and returns the new one', async () => {
    const first = await fetcher.fetch(request('/storage', { captureStorageState: true }));
    expect(first.text).toContain('stored=null');
    const second = await fetcher.fetch(request('/storage', { storageState: first.storageState! }));
    expect(second.text).toContain('stored=v1');
  });

  it('hides automation in the stealth browser', async () => {
    const plain = await fetcher.fetch(request('/headers-final'));
    const stealth = await fetcher.fetch(request('/headers-final', { stealth: true }));
    expect(plain.text).toMatch(/\|true<\/p>/);
    expect(stealth.text).toMatch(/\|false<\/p>/);
  });

  it('recovers from a browser crash mid-job and leaks no Chromium process', async () => {
    const before = pool.stats().crashes;
    const arrived = once(slowEvents, 'arrived');
    const job = fetcher.fetch(request('/slow', { timeoutMs: 10_000 }));
    // Mid-job: the page's request reached the site and waits for its answer.
    await arrived;
    for (const pid of await childBrowserPids()) process.kill(pid, 'SIGKILL');
    const err = await job.catch((e: unknown) => e);
    expect((err as TrawlError).code).toBe('SCRAPE_BROWSER_CRASHED');
    expect((err as TrawlError).retryable).toBe(true);
    expect(pool.stats().crashes).toBeGreaterThan(before);
    const again = await fetcher.fetch(request('/spa'));
    expect(again.text).toContain('<li>alpha</li>');
    await pool.close();
    expect(await childBrowserPids()).toEqual([]);
    pool = new BrowserPool();
    fetcher = new BrowserFetcher({ pool, smartWaitMaxMs: 3000 });
  });
});
