import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { EventEmitter, once } from 'node:events';
import { scrapeResponseSchema } from '@trawl/api-schema';
import { childBrowserPids } from '@trawl/browser';
import { FixtureSite, ForwardProxyFixture } from '@trawl/testing';
import { TestCluster } from './helpers/cluster.js';

jest.setTimeout(60_000);

let cluster: TestCluster;
let site: FixtureSite;
let proxy: ForwardProxyFixture;
const seen: Array<{ path: string; headers: Record<string, string | string[] | undefined> }> = [];
const gate = { walledOnce: false, slowHits: 0 };
/** `arrived:<path>` when a held page is asked for; `release:<path>` lets it answer. */
const events = new EventEmitter();

const SPA = `<!doctype html><html><head><title>Todo SPA</title></head><body><div id="root"></div>
<script>setTimeout(() => { document.getElementById('root').innerHTML =
  '<main><h1>Rendered todos</h1><ul><li>Write the browser engine</li><li>Test it end to end</li></ul>' +
  '<p>These items exist only after the script has run in a real browser.</p></main>'; }, 100);</script></body></html>`;

beforeAll(async () => {
  site = new FixtureSite()
    .page('/spa', SPA)
    .route('/echo', (req, res) => {
      seen.push({ path: '/echo', headers: req.headers });
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<html><head><meta name="viewport" content="width=device-width"><title>Echo</title></head><body><main>
        <h1>Echo page</h1><p id="env"></p><button id="more" onclick="document.getElementById('extra').textContent='Clicked content'">More</button>
        <p id="extra"></p><input id="q"><p>Enough text to be content for the extractor, repeated. Enough text to be content.</p></main>
        <script>document.getElementById('env').textContent = [window.innerWidth, Intl.DateTimeFormat().resolvedOptions().timeZone].join('|');</script></body></html>`);
    })
    .page('/profile', `<html><body><main><h1>Profile page</h1><p id="v"></p></main><script>
      document.getElementById('v').textContent = 'visits=' + (Number(localStorage.getItem('visits') || 0));
      localStorage.setItem('visits', String(Number(localStorage.getItem('visits') || 0) + 1));</script></body></html>`)
    .route('/slow-profile', (_req, res) => {
      // Held until the test has tried the same profile: the saving session's lock is taken by then.
      const answer = () => { res.writeHead(200, { 'content-type': 'text/html' }); res.end('<p>slow</p>'); };
      events.once('release:/slow-profile', answer);
      res.on('close', () => events.off('release:/slow-profile', answer));
      events.emit('arrived:/slow-profile');
    })
    .route('/walled', (_req, res) => {
      // A bot wall for the first visitor only: the auto proxy retry gets through.
      if (!gate.walledOnce) {
        gate.walledOnce = true;
        res.writeHead(403, { 'content-type': 'text/html' });
        res.end('<html><head><title>Just a moment...</title></head><body>Checking your browser</body></html>');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body><main><h1>Past the wall</h1><p>Content behind the bot wall, visible after the retry.</p></main></body></html>');
    })
    .route('/slow', (_req, res) => {
      // The first request never gets an answer (the test crashes the browser that made it); the retry does.
      gate.slowHits += 1;
      if (gate.slowHits === 1) {
        events.emit('arrived:/slow');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body><main><h1>Slow but fine</h1><p>Arrived after a crash.</p></main></body></html>');
    });
  await site.start();
  proxy = await new ForwardProxyFixture().start();
  cluster = await TestCluster.start({
    TRAWL_WORKER_ROLES: 'http,browser',
    TRAWL_PROXY_ENHANCED: proxy.url,
    TRAWL_BROWSER_SMART_WAIT_MS: '3000',
  });
});

afterAll(async () => {
  await cluster?.stop();
  await proxy?.close();
  await site?.stop();
  expect(await childBrowserPids()).toEqual([]);
}, 30_000);

describe('browser scrapes through the cluster', () => {
  it('moves a JavaScript shell from plain HTTP to the browser and returns the rendered content', async () => {
    const r = await cluster.call('POST', '/v2/scrape', { body: { url: site.url('/spa') } });
    expect(r.status).toBe(200);
    expect(scrapeResponseSchema.safeParse(r.body).success).toBe(true);
    expect(r.body.data.markdown).toContain('Write the browser engine');
    expect(r.body.data.metadata).toMatchObject({ statusCode: 200, proxyUsed: 'basic', creditsUsed: 1 });
  });

  it('runs actions and serves screenshots and PDFs at signed URLs', async () => {
    const r = await cluster.call('POST', '/v2/scrape', {
      body: {
        url: site.url('/echo'),
        formats: ['markdown', { type: 'screenshot', fullPage: true }],
        actions: [
          { type: 'click', selector: '#more' },
          { type: 'screenshot' },
          { type: 'scrape' },
          { type: 'executeJavascript', script: 'return document.title' },
          { type: 'pdf' },
        ],
      },
    });
    expect(r.status).toBe(200);
    const data = r.body.data;
    expect(data.markdown).toContain('Clicked content');
    expect(Object.keys(data.actions)).toEqual(['screenshots', 'scrapes', 'javascriptReturns', 'pdfs']);
    expect(data.actions.javascriptReturns).toEqual([{ type: 'string', value: 'Echo' }]);
    expect(data.actions.scrapes[0].html).toContain('Clicked content');
    const shot = await fetch(data.screenshot as string);
    expect(shot.status).toBe(200);
    expect(shot.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await shot.arrayBuffer()).subarray(1, 4).toString()).toBe('PNG');
    const pdf = await fetch(data.actions.pdfs[0] as string);
    expect(Buffer.from(await pdf.arrayBuffer()).subarray(0, 5).toString()).toBe('%PDF-');
    expect((await fetch(data.actions.screenshots[0] as string)).status).toBe(200);
    // A tampered URL is refused.
    const tampered = (data.screenshot as string).replace(/signature=([0-9a-f])/, (_m, c: string) => `signature=${c === 'a' ? 'b' : 'a'}`);
    expect((await fetch(tampered)).status).toBe(403);
  });

  it('emulates a phone in a country and sends the request headers', async () => {
    seen.length = 0;
    const r = await cluster.call('POST', '/v2/scrape', {
      body: { url: site.url('/echo'), mobile: true, location: { country: 'JP' }, headers: { 'X-Trace': 't1', Cookie: 'sid=42' }, formats: ['html'] },
    });
    expect(r.status).toBe(200);
    expect(r.body.data.html).toContain('412|Asia/Tokyo');
    expect(r.body.data.metadata.timezone).toBe('Asia/Tokyo');
    const h = seen[0]?.headers ?? {};
    expect(h['x-trace']).toBe('t1');
    expect(h.cookie).toBe('sid=42');
    expect(h['accept-language']).toBe('ja-JP,ja;q=0.9');
    expect(String(h['user-agent'])).toContain('Mobile');
  });

  it('keeps a profile across scrapes and allows one saving session at a time', async () => {
    const profile = { name: 'shop-login' };
    const first = await cluster.call('POST', '/v2/scrape', { body: { url: site.url('/profile'), profile } });
    const second = await cluster.call('POST', '/v2/scrape', { body: { url: site.url('/profile'), profile } });
    expect(first.body.data.markdown).toContain('visits=0');
    expect(second.body.data.markdown).toContain('visits=1');
    const readOnly = await cluster.call('POST', '/v2/scrape', { body: { url: site.url('/profile'), profile: { name: 'shop-login', saveChanges: false } } });
    const third = await cluster.call('POST', '/v2/scrape', { body: { url: site.url('/profile'), profile } });
    expect(readOnly.body.data.markdown).toContain('visits=2');
    expect(third.body.data.markdown).toContain('visits=2');

    const arrived = once(events, 'arrived:/slow-profile');
    const slow = cluster.call('POST', '/v2/scrape', { body: { url: site.url('/slow-profile'), profile: { name: 'busy' } } });
    await arrived;
    const locked = await cluster.call('POST', '/v2/scrape', { body: { url: site.url('/profile'), profile: { name: 'busy' } } });
    expect(locked.status).toBe(409);
    expect(locked.body.code).toBe('PROFILE_LOCKED');
    events.emit('release:/slow-profile');
    expect((await slow).status).toBe(200);
  });

  it('sends enhanced scrapes through the enhanced proxy pool and bills 5 credits', async () => {
    const before = proxy.requests.length;
    const r = await cluster.call('POST', '/v2/scrape', { body: { url: site.url('/echo'), proxy: 'enhanced' } });
    expect(r.status).toBe(200);
    expect(r.body.data.metadata).toMatchObject({ proxyUsed: 'enhanced', creditsUsed: 5 });
    const through = proxy.requests.slice(before).map((q) => q.target);
    expect(through.some((t) => t.includes(`127.0.0.1:${site.port}`))).toBe(true);
  });

  it('reads proxy "stealth" (older clients, n8n) as enhanced: the enhanced pool, proxyUsed enhanced', async () => {
    const before = proxy.requests.length;
    const r = await cluster.call('POST', '/v2/scrape', { body: { url: site.url('/echo'), proxy: 'stealth', maxAge: 0 } });
    expect(r.status).toBe(200);
    expect(r.body.data.metadata).toMatchObject({ proxyUsed: 'enhanced', creditsUsed: 5 });
    expect(proxy.requests.slice(before).some((q) => q.target.includes(`127.0.0.1:${site.port}`))).toBe(true);
  });

  it('retries a blocked auto scrape with the enhanced tier', async () => {
    const r = await cluster.call('POST', '/v2/scrape', { body: { url: site.url('/walled') } });
    expect(r.status).toBe(200);
    expect(r.body.data.markdown).toContain('Past the wall');
    expect(r.body.data.metadata).toMatchObject({ statusCode: 200, proxyUsed: 'enhanced', creditsUsed: 5 });
  });

  it('recovers when the browser crashes mid-scrape (the job is retried)', async () => {
    const arrived = once(events, 'arrived:/slow');
    const pending = cluster.call('POST', '/v2/scrape', { body: { url: site.url('/slow'), waitFor: 100 } });
    await arrived;
    for (const pid of await childBrowserPids()) process.kill(pid, 'SIGKILL');
    const r = await pending;
    expect(r.status).toBe(200);
    expect(r.body.data.markdown).toContain('Arrived after a crash');
    expect(gate.slowHits).toBe(2);
  });

  it('works with the official SDK: actions and screenshot', async () => {
    const { default: Firecrawl } = await import('@mendable/firecrawl-js');
    const fc = new Firecrawl({ apiKey: 'tr-test-bootstrap-key-0123456789', apiUrl: cluster.api.url });
    const doc = await fc.scrape(site.url('/echo'), {
      formats: ['markdown', 'screenshot'],
      actions: [{ type: 'click', selector: '#more' }, { type: 'wait', milliseconds: 50 }],
    });
    expect(doc.markdown).toContain('Clicked content');
    expect(doc.screenshot).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v2\/blobs\//);
  });
});
