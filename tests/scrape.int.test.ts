import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { EventEmitter, once } from 'node:events';
import { scrapeResponseSchema } from '@trawl/api-schema';
import { FixtureSite, waitFor } from '@trawl/testing';
import { TestCluster } from './helpers/cluster.js';

const ARTICLE = `<!doctype html><html lang="en"><head><title>Fixture article</title>
<meta name="description" content="A page about fixtures"><meta name="keywords" content="a, b">
<meta property="og:title" content="OG fixture"><meta property="og:locale:alternate" content="fr_FR">
<link rel="icon" href="/fav.png"><script>var x = 1;</script><style>p{}</style></head>
<body><nav><a href="/nav1">Nav one</a> <a href="/nav2">Nav two</a></nav>
<main><article><h1>Fixture heading</h1>
<p>This is the first paragraph of the article with enough words to count as content for the extractor.</p>
<p>A second paragraph links to <a href="/other">another page</a> and shows <img src="/img/a.png" alt="pic">.</p>
<pre><code class="language-js">const a = 1;</code></pre>
<table><tr><th>k</th><th>v</th></tr><tr><td>one</td><td>1</td></tr></table>
</article></main><footer>Copyright footer text</footer></body></html>`;

let cluster: TestCluster;
let site: FixtureSite;
/**
 * `/slow` answers after `delayMs`, or, while `held` is set, once the test emits `release` on `slowEvents`;
 * every request to it emits `arrived`.
 */
const slowGate = { delayMs: 400, held: false };
const slowEvents = new EventEmitter();

beforeAll(async () => {
  site = new FixtureSite()
    .page('/article', ARTICLE)
    .route('/redirect', (_req, res) => {
      res.writeHead(302, { location: '/article' });
      res.end();
    })
    .route('/missing', (_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<html><head><title>Gone</title></head><body><p>Nothing here</p></body></html>');
    })
    .route('/sjis', (_req, res) => {
      // "日本語のページ" in Shift_JIS, declared in the header only
      res.writeHead(200, { 'content-type': 'text/html; charset=Shift_JIS' });
      res.end(Buffer.concat([Buffer.from('<html><body><p>'), Buffer.from('93fa967b8cea82cc8379815b8357', 'hex'), Buffer.from('</p></body></html>')]));
    })
    .route('/slow', async (_req, res) => {
      const answer = slowGate.held ? once(slowEvents, 'release') : new Promise((r) => setTimeout(r, slowGate.delayMs));
      slowEvents.emit('arrived');
      await answer;
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><head><title>Slow</title></head><body><p>Slow page content here.</p></body></html>');
    })
    .route('/hang', async (_req, res) => {
      await new Promise((r) => setTimeout(r, 5000));
      res.end('late');
    })
    .route('/big', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body>' + '<p>x</p>'.repeat(100_000) + '</body></html>');
    })
    .page('/doc.pdf', '%PDF-1.4\n1 0 obj<<>>endobj\n%%EOF', 'application/pdf')
    .page('/data.json', '{"a": 1}', 'application/json');
  await site.start();
  cluster = await TestCluster.start({ TRAWL_MAX_RESPONSE_BYTES: '300000' });
});
afterAll(async () => {
  await cluster.stop();
  await site.stop();
}, 30_000);

const scrape = (body: Record<string, unknown>, key?: string) => cluster.call('POST', '/v2/scrape', { body, ...(key ? { key } : {}) });

describe('formats and metadata', () => {
  it('returns only the requested formats, main content only by default, with full metadata', async () => {
    const r = await scrape({ url: site.url('/article'), formats: ['markdown', 'html', 'rawHtml', 'links', 'images'] });
    expect(r.status).toBe(200);
    const parsed = scrapeResponseSchema.safeParse(r.body);
    expect(parsed.error?.issues ?? []).toEqual([]);
    const d = r.body.data;
    expect(Object.keys(d).sort()).toEqual(['html', 'images', 'links', 'markdown', 'metadata', 'rawHtml']);
    expect(d.markdown).toContain('# Fixture heading');
    expect(d.markdown).toContain('```js');
    expect(d.markdown).toContain('| k | v |');
    expect(d.markdown).toContain(`[another page](${site.url('/other')})`);
    expect(d.markdown).not.toContain('Nav one');
    expect(d.markdown).not.toContain('Copyright footer');
    expect(d.html).not.toContain('<script');
    expect(d.html).toContain(`src="${site.url('/img/a.png')}"`);
    expect(d.rawHtml).toContain('<script>var x = 1;</script>');
    expect(d.links).toEqual(expect.arrayContaining([site.url('/nav1'), site.url('/other')]));
    expect(d.images).toContain(site.url('/img/a.png'));
    expect(d.metadata).toMatchObject({
      title: 'Fixture article', description: 'A page about fixtures', language: 'en', ogTitle: 'OG fixture',
      sourceURL: site.url('/article'), url: site.url('/article'), statusCode: 200, contentType: 'text/html',
      favicon: site.url('/fav.png'), proxyUsed: 'basic', creditsUsed: 1,
    });
    expect(d.metadata.ogLocaleAlternate).toEqual(['fr_FR']);
    expect(d.metadata.concurrencyLimited).toBeUndefined();
    const again = await cluster.call('GET', `/v2/scrape/${d.metadata.scrapeId}`);
    expect(again.body.data.markdown).toBe(d.markdown);
  });
  it('onlyMainContent false keeps navigation; includeTags and excludeTags select', async () => {
    const all = await scrape({ url: site.url('/article'), onlyMainContent: false });
    expect(all.body.data.markdown).toContain('Nav one');
    const inc = await scrape({ url: site.url('/article'), includeTags: ['table'] });
    expect(inc.body.data.markdown).toContain('| one | 1 |');
    expect(inc.body.data.markdown).not.toContain('first paragraph');
    const exc = await scrape({ url: site.url('/article'), excludeTags: ['pre', 'table'] });
    expect(exc.body.data.markdown).not.toContain('const a = 1');
    expect(exc.body.data.markdown).toContain('first paragraph');
  });
  it('follows redirects: url is final, sourceURL requested', async () => {
    const r = await scrape({ url: site.url('/redirect') });
    expect(r.body.data.metadata).toMatchObject({ sourceURL: site.url('/redirect'), url: site.url('/article') });
  });
  it('a 404 page is a successful scrape reporting its status', async () => {
    const r = await scrape({ url: site.url('/missing') });
    expect(r.status).toBe(200);
    expect(r.body.data.metadata).toMatchObject({ statusCode: 404, error: 'Not Found', title: 'Gone' });
  });
  it('decodes Shift_JIS declared in the HTTP header', async () => {
    const r = await scrape({ url: site.url('/sjis') });
    expect(r.body.data.markdown).toContain('日本語のページ');
  });
  it('JSON answers as a code block', async () => {
    const r = await scrape({ url: site.url('/data.json') });
    expect(r.body.data.markdown).toContain('```json');
    expect(r.body.data.metadata.contentType).toBe('application/json');
  });
});

describe('failures carry codes', () => {
  it('a PDF is refused with a code where document parsing is off', async () => {
    const r = await scrape({ url: site.url('/doc.pdf') });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('SCRAPE_UNSUPPORTED_CONTENT');
  });
  it('connection refused, oversized page, timeout', async () => {
    const refused = await scrape({ url: 'http://127.0.0.1:1/' });
    expect(refused.body).toMatchObject({ success: false, code: 'SCRAPE_CONNECTION_REFUSED' });
    const big = await scrape({ url: site.url('/big') });
    expect(big.body.code).toBe('SCRAPE_TOO_LARGE');
    const slow = await scrape({ url: site.url('/hang'), timeout: 1000 });
    expect(slow.status).toBe(408);
    expect(slow.body.code).toBe('SCRAPE_TIMEOUT');
  });
});

describe('per-team concurrency', () => {
  it('a team limited to 2 sending 6 slow scrapes: the target sees at most 2, waiters report their wait', async () => {
    const t = await cluster.team({ concurrency: 2 });
    site.resetCounters();
    slowGate.delayMs = 400;
    // maxAge 0: six fetches of one URL (the cache would serve the last four).
    const results = await Promise.all(Array.from({ length: 6 }, () => scrape({ url: site.url('/slow'), maxAge: 0 }, t.key)));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(site.maxInFlight).toBe(2);
    expect(site.hits.get('/slow')).toBe(6);
    const metas = results.map((r) => r.body.data.metadata);
    const limited = metas.filter((m) => m.concurrencyLimited === true);
    expect(limited).toHaveLength(4);
    for (const m of limited) expect(m.concurrencyQueueDurationMs).toBeGreaterThan(200);
    for (const m of metas.filter((x) => !x.concurrencyLimited)) expect(m.concurrencyQueueDurationMs).toBeUndefined();
    const check = await cluster.call('GET', '/v2/concurrency-check', { key: t.key });
    expect(check.body).toMatchObject({ concurrency: 0, maxConcurrency: 2 });
  });
  it('the wait counts against the timeout: a job that cannot start in time is 408 and never runs', async () => {
    const t = await cluster.team({ concurrency: 1 });
    site.resetCounters();
    slowGate.held = true;
    const arrived = once(slowEvents, 'arrived');
    const first = scrape({ url: site.url('/slow'), maxAge: 0 }, t.key);
    await arrived;
    const second = await scrape({ url: site.url('/article'), timeout: 1000, maxAge: 0 }, t.key);
    expect(second.status).toBe(408);
    slowGate.held = false;
    slowEvents.emit('release');
    expect((await first).status).toBe(200);
    expect(site.hits.get('/article')).toBeUndefined();
  });
  it('one team\'s backlog never delays another team', async () => {
    const a = await cluster.team({ concurrency: 1 });
    const b = await cluster.team({ concurrency: 1 });
    slowGate.held = true;
    const aStarted = once(slowEvents, 'arrived');
    let aDone = 0;
    const aJobs = Array.from({ length: 4 }, () => scrape({ url: site.url('/slow'), maxAge: 0 }, a.key).then((r) => { aDone += 1; return r; }));
    await aStarted;
    // Team a's slot is taken and its other three jobs wait in its backlog while team b scrapes.
    await waitFor(async () => (await cluster.call('GET', '/v2/team/queue-status', { key: a.key })).body.waitingJobsInQueue === 3, { what: 'team a\'s backlog' });
    const bRes = await scrape({ url: site.url('/article') }, b.key);
    expect(bRes.status).toBe(200);
    expect(bRes.body.data.metadata.concurrencyLimited).toBeUndefined();
    // Order, not time: team b's answer came while team a's first job was still running, its backlog queued.
    expect(aDone).toBe(0);
    slowGate.held = false;
    slowEvents.emit('release');
    expect((await Promise.all(aJobs)).map((r) => r.status)).toEqual([200, 200, 200, 200]);
  }, 20_000);
});

describe('private targets', () => {
  it('are refused unless TRAWL_ALLOW_PRIVATE_TARGETS is true', async () => {
    const strict = await TestCluster.start({ TRAWL_ALLOW_PRIVATE_TARGETS: 'false' });
    try {
      for (const url of [site.url('/article'), 'http://169.254.169.254/latest/meta-data/', 'http://[::1]:1/']) {
        const r = await strict.call('POST', '/v2/scrape', { body: { url } });
        expect(r.status).toBe(403);
        expect(r.body.code).toBe('SCRAPE_BLOCKED_TARGET');
      }
    } finally {
      await strict.stop();
    }
  });
});

describe('official SDK', () => {
  it('@mendable/firecrawl-js scrape() works unmodified', async () => {
    const { default: Firecrawl } = await import('@mendable/firecrawl-js');
    const fc = new Firecrawl({ apiKey: 'tr-test-bootstrap-key-0123456789', apiUrl: cluster.api.url });
    const doc = await fc.scrape(site.url('/article'), { formats: ['markdown', 'links'] });
    expect(doc.markdown).toContain('Fixture heading');
    expect(doc.links).toContain(site.url('/other'));
    expect(doc.metadata?.title).toBe('Fixture article');
    await expect(fc.scrape('http://127.0.0.1:1/')).rejects.toThrow();
  }, 30_000); // loading the SDK alone can take seconds on a busy machine
});

void once;
