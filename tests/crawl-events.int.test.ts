import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GeneratedSite } from '@trawl/testing';
import { BOOT_KEY, TestCluster } from './helpers/cluster.js';
import { allDocuments, pathOf, watchCrawl } from './helpers/crawl-watch.js';

jest.setTimeout(60_000);

const SECRET = 'test-webhook-secret';
let cluster: TestCluster;
const sites: GeneratedSite[] = [];

/** A webhook receiver that answers 503 to its first `failFirst` requests, then 200; keeps every body. */
class Receiver {
  server!: Server;
  url = '';
  received: { body: any; raw: string; signature: string | undefined; headers: Record<string, unknown> }[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any -- arbitrary payloads
  attempts = 0;
  private waiters: { until: (r: Receiver) => boolean; resolve: () => void }[] = [];

  constructor(private failFirst: number) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        this.attempts += 1;
        if (this.attempts <= this.failFirst) {
          res.writeHead(503).end();
          return;
        }
        this.received.push({ body: JSON.parse(raw), raw, signature: req.headers['x-firecrawl-signature'] as string | undefined, headers: req.headers });
        res.writeHead(200).end('ok');
        this.waiters = this.waiters.filter((w) => (w.until(this) ? (w.resolve(), false) : true));
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  waitFor(until: (r: Receiver) => boolean): Promise<void> {
    if (until(this)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ until, resolve }));
  }

  types(): string[] {
    return this.received.map((r) => r.body.type);
  }

  close(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}

beforeAll(async () => {
  cluster = await TestCluster.start({
    TRAWL_CRAWL_HOST_RATE_PER_SEC: '20',
    TRAWL_WEBHOOK_SECRET: SECRET,
    TRAWL_WEBHOOK_BACKOFF_MS: '50',
    TRAWL_CRAWL_WATCH_INTERVAL_MS: '300',
  });
  const team = await cluster.api.teams.resolveKey(BOOT_KEY);
  await cluster.api.teams.update(team!.id, { concurrency: 6 });
});

afterAll(async () => {
  await Promise.all(sites.map((s) => s.close()));
  await cluster?.stop();
});

async function site(opts: Parameters<typeof GeneratedSite.start>[0]) {
  const s = await GeneratedSite.start(opts);
  sites.push(s);
  return s;
}

describe('crawl webhooks', () => {
  it('a receiver that fails at first still gets every crawl event once, signed, with its metadata', async () => {
    const s = await site({ pages: 8, sitemap: 'none' });
    const receiver = await new Receiver(3).start();
    const start = await cluster.call('POST', '/v2/crawl', {
      body: { url: s.url('/'), webhook: { url: receiver.url, headers: { 'x-test': 'yes' }, metadata: { run: 7 } } },
    });
    const expectedPages = s.reachable().length;
    await receiver.waitFor((r) => r.types().includes('crawl.completed') && r.types().filter((t) => t === 'crawl.page').length === expectedPages);
    const types = receiver.types();
    expect(types.filter((t) => t === 'crawl.started')).toHaveLength(1);
    expect(types.filter((t) => t === 'crawl.completed')).toHaveLength(1);
    // Page events in batches (the default), and `completed` after all of them.
    expect(types.at(-1)).toBe('crawl.completed');
    const pages = receiver.received.filter((r) => r.body.type === 'crawl.page');
    expect(pages.map((p) => pathOf(p.body.data[0])).sort()).toEqual(s.reachable().sort());
    expect(new Set(receiver.received.map((r) => r.body.webhookId)).size).toBe(receiver.received.length);
    for (const r of receiver.received) {
      expect(r.body).toMatchObject({ success: true, id: start.body.id, metadata: { run: 7 } });
      expect(r.headers['x-test']).toBe('yes');
      expect(r.signature).toBe(`sha256=${createHmac('sha256', SECRET).update(r.raw).digest('hex')}`);
    }
    expect(receiver.attempts).toBe(receiver.received.length + 3);
    await receiver.close();
  });

  it('batch events and the events filter', async () => {
    const s = await site({ pages: 3 });
    const receiver = await new Receiver(0).start();
    const start = await cluster.call('POST', '/v2/batch/scrape', {
      body: { urls: [s.url('/'), s.url('/p/0')], webhook: { url: receiver.url, events: ['completed', 'page'] } },
    });
    await receiver.waitFor((r) => r.types().includes('batch_scrape.completed') && r.types().filter((t) => t === 'batch_scrape.page').length === 2);
    expect(receiver.types()).not.toContain('batch_scrape.started');
    expect(receiver.received.every((r) => r.body.id === start.body.id)).toBe(true);
    await receiver.close();
  });
});

describe('politeness', () => {
  it('the per-host rate holds across crawls and workers share it', async () => {
    const s = await site({ pages: 12, branching: 4, sitemap: 'none' });
    const [a, b] = await Promise.all([
      // maxAge 0: both crawls fetch every page (the cache would serve the second).
      cluster.call('POST', '/v2/crawl', { body: { url: s.url('/'), sitemap: 'skip', scrapeOptions: { maxAge: 0 } } }),
      cluster.call('POST', '/v2/crawl', { body: { url: s.url('/'), sitemap: 'skip', scrapeOptions: { maxAge: 0 } } }),
    ]);
    await Promise.all([watchCrawl(cluster, a.body.id), watchCrawl(cluster, b.body.id)]);
    const starts = s.served.map((p) => p.at).sort((x, y) => x - y);
    expect(starts.length).toBe(2 * s.reachable().length);
    // 20 requests/s: over any window, at most one start per 50 ms (small timer slack)
    const spanMs = starts.at(-1)! - starts[0]!;
    expect(spanMs).toBeGreaterThanOrEqual((starts.length - 1) * 50 * 0.9);
  });
});

describe('official SDK (@mendable/firecrawl-js) against the server', () => {
  it('crawl, startCrawl, getCrawlStatus, getCrawlErrors, getActiveCrawls, cancelCrawl', async () => {
    const { default: Firecrawl } = await import('@mendable/firecrawl-js');
    const fc = new Firecrawl({ apiKey: BOOT_KEY, apiUrl: cluster.api.url });
    const s = await site({ pages: 10, brokenLinks: true, privatePages: 1 });
    const job = await fc.crawl(s.url('/'), { limit: 50, scrapeOptions: { formats: ['markdown'] }, pollInterval: 1 });
    expect(job.status).toBe('completed');
    const expected = [...new Set([...s.reachable(), ...s.sitemapPaths()])].filter((p) => !p.startsWith('/private/')).sort();
    expect(job.data.map((d) => pathOf(d as never)).sort()).toEqual(expected);
    expect(job.data[0]!.markdown).toBeTruthy();

    const started = await fc.startCrawl(s.url('/'), { limit: 3, delay: 0.2 });
    expect(started.url).toBe(`${cluster.api.url}/v2/crawl/${started.id}`);
    const active = await fc.getActiveCrawls();
    expect(active.crawls.map((c) => c.id)).toContain(started.id);
    expect(await fc.cancelCrawl(started.id)).toBe(true);
    const cancelled = await fc.getCrawlStatus(started.id);
    expect(cancelled.status).toBe('cancelled');

    const big = await site({ pages: 110, branching: 8, sitemap: 'none' });
    const many = await fc.startCrawl(big.url('/'), { sitemap: 'skip' });
    await watchCrawl(cluster, many.id);
    const status = await fc.getCrawlStatus(many.id);
    expect(status.data).toHaveLength(big.reachable().length);
    const errs = await fc.getCrawlErrors(job.id);
    expect(errs.errors.length).toBeGreaterThan(0);
    expect(errs.robotsBlocked.map((u) => new URL(u).pathname)).toEqual(['/private/0']);
  });

  it('batchScrape, startBatchScrape + getBatchScrapeStatus, map, and the watcher', async () => {
    const { default: Firecrawl } = await import('@mendable/firecrawl-js');
    const fc = new Firecrawl({ apiKey: BOOT_KEY, apiUrl: cluster.api.url });
    const s = await site({ pages: 6, sitemapOnly: 1 });
    const batch = await fc.batchScrape([s.url('/'), s.url('/p/1')], { options: { formats: ['markdown', 'links'] }, pollInterval: 1 });
    expect(batch.status).toBe('completed');
    expect(batch.data.map((d) => pathOf(d as never)).sort()).toEqual(['/', '/p/1']);
    expect(batch.data[0]!.links).toBeDefined();

    const started = await fc.startBatchScrape([s.url('/p/2')], { idempotencyKey: `idem-${Math.random()}` });
    await watchCrawl(cluster, started.id, { kind: 'batch' });
    const st = await fc.getBatchScrapeStatus(started.id);
    expect(st.status).toBe('completed');
    expect(st.completed).toBe(1);

    const map = await fc.map(s.url('/'), { limit: 100 });
    const paths = map.links.map((l) => new URL(l.url).pathname);
    expect(paths).toEqual(expect.arrayContaining([...s.reachable(), ...s.sitemapPaths()]));

    const crawl = await fc.startCrawl(s.url('/'), { sitemap: 'skip' });
    const watcher = fc.watcher(crawl.id, { kind: 'crawl', pollInterval: 1 });
    const docs: unknown[] = [];
    watcher.on('document', (d: unknown) => docs.push(d));
    const done = new Promise<{ status: string }>((resolve) => watcher.on('done', (x: { status: string }) => resolve(x)));
    await watcher.start();
    const result = await done;
    expect(result.status).toBe('completed');
    expect(docs).toHaveLength(s.reachable().length);
    const { docs: stored } = await allDocuments(cluster, crawl.id);
    expect(stored).toHaveLength(docs.length);
  });
});
