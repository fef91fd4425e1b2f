import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import { TrawlError, scrapeRequestSchema } from '@trawl/api-schema';
import type { BrowserFetchRequest, BrowserFetchResult } from '@trawl/browser';
import { loadConfig } from '@trawl/config';
import { createQueueStack, type QueueStack } from '@trawl/queue';
import type { FetchRequest, FetchResult, Fetcher } from '@trawl/scrape-engine';
import { buildPdf } from '@trawl/testing';
import { workerConfigSchema } from '@trawl/worker';
import { TestCluster } from './helpers/cluster.js';

// The scrape pipeline end to end with fake engines (implementations of the Fetcher interface and of
// the browser engine's `fetch`) and a real Redis: cache, each hand-off, billing once, dedupe after a
// crash, the slot given back on every path, and the step metrics.

const ORIGIN = 'http://127.0.0.1:9';
const events = new EventEmitter();

type Call = { engine: 'http' | 'browser'; path: string; stealth?: boolean };
const calls: Call[] = [];
const callsTo = (path: string) => calls.filter((c) => c.path === path);

function page(url: string, html: string, statusCode = 200): FetchResult {
  return {
    requestedUrl: url, url, statusCode, headers: {}, contentType: 'text/html', charset: 'utf-8', kind: 'html', text: html,
    redirects: [], timings: { ttfbMs: 0, totalMs: 0 },
  };
}

const article = (text: string) => `<html><head><title>${text}</title></head><body><main><h1>${text}</h1><p>${text} `
  + 'is a page with enough words in it to be a real article rather than an empty application frame. '.repeat(4) + '</p></main></body></html>';
const SHELL = '<html><head><script src="/app.js"></script></head><body><div id="root"></div></body></html>';
const WALL = '<html><head><title>Just a moment...</title></head><body>Checking your browser</body></html>';

/** Waits for the request's signal to abort (deadline, cancellation), then fails as the engines do. */
async function hang(path: string, signal: AbortSignal): Promise<never> {
  events.emit(`started:${path}`);
  if (!signal.aborted) await once(signal, 'abort');
  events.emit(`aborted:${path}`);
  const reason: unknown = signal.reason;
  if (reason instanceof DOMException && reason.name === 'TimeoutError') throw new TrawlError('SCRAPE_TIMEOUT', 'The fake engine timed out');
  throw TrawlError.from(reason);
}

const fakeHttp: Fetcher = {
  name: 'http',
  async fetch(req: FetchRequest): Promise<FetchResult> {
    const path = new URL(req.url).pathname;
    calls.push({ engine: 'http', path });
    switch (path) {
      case '/spa': return page(req.url, SHELL);
      case '/missing-spa': return page(req.url, SHELL, 404);
      case '/broken-spa': return page(req.url, SHELL, 500);
      case '/wall': return page(req.url, WALL, 403);
      case '/doc.pdf':
        return {
          ...page(req.url, ''), text: undefined, kind: 'pdf', contentType: 'application/pdf',
          body: buildPdf([[{ text: 'Quarterly report of the pipeline', y: 100 }]]),
        };
      case '/refused': throw new TrawlError('SCRAPE_BLOCKED_TARGET', 'refused by the fake');
      case '/busy':
        // "Not now" more times than the queue has attempts: only waits that spend no attempt get through.
        if (callsTo('/busy').length <= 3) throw new TrawlError('TOO_MANY_CONNECTIONS', 'the fake target is busy');
        return page(req.url, article('Finally free'));
      case '/hang':
      case '/cancel': return hang(path, req.signal!);
      default: return page(req.url, article(`Article ${path.slice(1)}`));
    }
  },
};

const fakeBrowser = {
  name: 'browser' as const,
  async fetch(req: BrowserFetchRequest): Promise<BrowserFetchResult> {
    const path = new URL(req.url).pathname;
    calls.push({ engine: 'browser', path, stealth: req.stealth === true });
    return { ...page(req.url, article(`Rendered ${path.slice(1)}`)), timezone: 'UTC', locale: 'en-US' };
  },
};

let cluster: TestCluster;
let stack: QueueStack;

beforeAll(async () => {
  cluster = await TestCluster.start({ TRAWL_WORKER_ROLES: 'http,browser,documents' }, { worker: false });
  await cluster.startWorker({ fetcher: fakeHttp, browserFetcher: fakeBrowser });
  stack = createQueueStack(loadConfig(workerConfigSchema, cluster.env), { connectionName: 'pipeline-test', onWebhookError: () => undefined });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await cluster.stop();
}, 30_000);

const scrape = (key: string, body: Record<string, unknown>) => cluster.call('POST', '/v2/scrape', { key, body });
const spent = async (key: string) => {
  const r = await cluster.call('GET', '/v2/team/credit-usage', { key });
  return (r.body.data.planCredits as number) - (r.body.data.remainingCredits as number);
};

/** Resolves once the team holds no slot and has nothing waiting: whatever ran has ended for good. */
async function settled(key: string): Promise<void> {
  for (;;) {
    const qs = await cluster.call('GET', '/v2/team/queue-status', { key });
    if (qs.body.activeJobsInQueue === 0 && qs.body.waitingJobsInQueue === 0) return;
    await new Promise((r) => setImmediate(r));
  }
}

describe('scrape pipeline', () => {
  it('a cache miss fetches and stores; a hit is converted from the stored page without a fetch', async () => {
    const t = await cluster.team({ credits: 100 });
    const first = await scrape(t.key, { url: `${ORIGIN}/cached`, formats: ['markdown', 'html'] });
    expect(first.status).toBe(200);
    expect(first.body.data.metadata).toMatchObject({ cacheState: 'miss', creditsUsed: 1, proxyUsed: 'basic' });
    const second = await scrape(t.key, { url: `${ORIGIN}/cached`, formats: ['markdown', 'links'] });
    expect(second.status).toBe(200);
    expect(second.body.data.metadata).toMatchObject({ cacheState: 'hit', creditsUsed: 1 });
    expect(second.body.data.markdown).toBe(first.body.data.markdown);
    expect(second.body.data.links).toEqual([]);
    expect(second.body.data.html).toBeUndefined();
    expect(callsTo('/cached')).toHaveLength(1);
    await settled(t.key);
    expect(await spent(t.key)).toBe(2);
  });

  it('a JavaScript shell hands over to the browser queue, keeping its slot; billed once', async () => {
    const t = await cluster.team({ credits: 100, concurrency: 1 });
    const r = await scrape(t.key, { url: `${ORIGIN}/spa`, formats: ['markdown'], maxAge: 0 });
    expect(r.status).toBe(200);
    expect(r.body.data.markdown).toContain('Rendered spa');
    expect(r.body.data.metadata).toMatchObject({ proxyUsed: 'basic', creditsUsed: 1 });
    expect(callsTo('/spa')).toEqual([{ engine: 'http', path: '/spa' }, { engine: 'browser', path: '/spa', stealth: false }]);
    await settled(t.key);
    expect(await spent(t.key)).toBe(1);
  });

  it('a non-2xx answer that looks like a JavaScript shell is final: no browser', async () => {
    const t = await cluster.team({ credits: 100 });
    for (const [path, status] of [['/missing-spa', 404], ['/broken-spa', 500]] as const) {
      const r = await scrape(t.key, { url: `${ORIGIN}${path}`, formats: ['markdown'], maxAge: 0 });
      expect(r.status).toBe(200);
      expect(r.body.data.metadata).toMatchObject({ statusCode: status, proxyUsed: 'basic' });
      expect(callsTo(path)).toEqual([{ engine: 'http', path }]);
    }
    await settled(t.key);
  });

  it('proxy auto: a bot wall on plain HTTP goes to the browser with the enhanced tier', async () => {
    const t = await cluster.team({ credits: 100 });
    const r = await scrape(t.key, { url: `${ORIGIN}/wall`, formats: ['markdown'], proxy: 'auto', maxAge: 0 });
    expect(r.status).toBe(200);
    expect(r.body.data.markdown).toContain('Rendered wall');
    expect(r.body.data.metadata).toMatchObject({ proxyUsed: 'enhanced', creditsUsed: 5 });
    expect(callsTo('/wall')).toEqual([{ engine: 'http', path: '/wall' }, { engine: 'browser', path: '/wall', stealth: true }]);
    await settled(t.key);
    expect(await spent(t.key)).toBe(5);
  });

  it('a PDF hands over to the documents queue, which parses it', async () => {
    const t = await cluster.team({ credits: 100 });
    const r = await scrape(t.key, { url: `${ORIGIN}/doc.pdf`, formats: ['markdown'], maxAge: 0 });
    expect(r.status).toBe(200);
    expect(r.body.data.markdown).toContain('Quarterly report of the pipeline');
    expect(r.body.data.metadata).toMatchObject({ numPages: 1, creditsUsed: 1, contentType: 'application/pdf' });
    expect(callsTo('/doc.pdf')).toEqual([{ engine: 'http', path: '/doc.pdf' }]);
    await settled(t.key);
    expect(await spent(t.key)).toBe(1);
  });

  it('a job whose outcome exists (a crash after it was written) is only released: no fetch, no charge', async () => {
    const t = await cluster.team({ credits: 100 });
    const jobId = randomUUID();
    const document = { markdown: 'written before the crash', metadata: { sourceURL: `${ORIGIN}/crashed`, statusCode: 200, creditsUsed: 1 } };
    const stored = { jobId, teamId: t.id, finishedAt: new Date().toISOString(), outcome: { ok: true as const, document } };
    await stack.results.put(stored, { zeroDataRetention: false });
    const request = scrapeRequestSchema.parse({ url: `${ORIGIN}/crashed`, formats: ['markdown'] });
    await stack.dispatcher.submit({
      jobId, teamId: t.id, queue: 'scrape', name: 'scrape', priorityClass: 'interactive', enqueuedAt: Date.now(),
      data: { v: 1, jobId, teamId: t.id, request, deadline: Date.now() + 60_000, mode: 'async', zeroDataRetention: false },
    });
    await settled(t.key);
    expect(callsTo('/crashed')).toEqual([]);
    expect(await stack.results.get(jobId)).toEqual(stored);
    expect(await spent(t.key)).toBe(0);
  });

  it('the slot is given back after a failure, a timeout and a cancellation, none of them billed', async () => {
    const t = await cluster.team({ credits: 100 });
    const failed = await scrape(t.key, { url: `${ORIGIN}/refused`, maxAge: 0 });
    expect(failed.body.code).toBe('SCRAPE_BLOCKED_TARGET');
    await settled(t.key);

    const aborted = once(events, 'aborted:/hang');
    const timedOut = await scrape(t.key, { url: `${ORIGIN}/hang`, timeout: 1500, maxAge: 0 });
    expect([timedOut.status, timedOut.body.code]).toEqual([408, 'SCRAPE_TIMEOUT']);
    await aborted;
    await settled(t.key);

    // The caller goes away while the engine runs: the job is cancelled and its engine stopped.
    const started = once(events, 'started:/cancel');
    const cancelled = once(events, 'aborted:/cancel');
    const client = new AbortController();
    const call = fetch(`${cluster.api.url}/v2/scrape`, {
      method: 'POST', signal: client.signal,
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${ORIGIN}/cancel`, timeout: 60_000, maxAge: 0 }),
    }).catch((err: unknown) => err);
    await started;
    client.abort();
    await call;
    await cancelled;
    await settled(t.key);
    expect(await spent(t.key)).toBe(0);
  }, 60_000);

  it('a rate-limited target (retry class delay) is waited for without spending attempts', async () => {
    const t = await cluster.team({ credits: 100 });
    const r = await scrape(t.key, { url: `${ORIGIN}/busy`, formats: ['markdown'], maxAge: 0, timeout: 60_000 });
    expect(r.status).toBe(200);
    expect(r.body.data.markdown).toContain('Finally free');
    // The scrape queue has 3 attempts: 3 refusals and a success are 4 runs.
    expect(callsTo('/busy')).toHaveLength(4);
    await settled(t.key);
    expect(await spent(t.key)).toBe(1);
  }, 60_000);

  it('every step is timed into trawl_scrape_step_seconds{step}', async () => {
    const t = await cluster.team();
    expect((await scrape(t.key, { url: `${ORIGIN}/metrics-page`, formats: ['markdown', 'links'], maxAge: 0 })).status).toBe(200);
    const text = await fetch(`http://127.0.0.1:${cluster.worker!.metricsPort}/metrics`).then((r) => r.text());
    const steps = new Set([...text.matchAll(/trawl_scrape_step_seconds_count\{[^}]*step="([^"]+)"/g)].map((m) => m[1]));
    for (const step of ['parse', 'dedupe', 'admit', 'cache-lookup', 'fetch', 'convert', 'transform:markdown', 'transform:links', 'cache-store', 'finish', 'handoff']) {
      expect(steps).toContain(step);
    }
  });
});
