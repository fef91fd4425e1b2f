import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import type { Firecrawl as FirecrawlClient } from '@mendable/firecrawl-js';
import { monitorCheckDetailResponseSchema, monitorCheckListResponseSchema, monitorCheckResponseSchema } from '@trawl/api-schema';
import { MonitorScheduler, RedisKeys, nameUuid } from '@trawl/queue';
import { FixtureSite, startFakeSearxng, type FakeSearxngServer } from '@trawl/testing';
import { BOOT_KEY, TestCluster } from './helpers/cluster.js';

jest.setTimeout(60_000);

let cluster: TestCluster;
let site: FixtureSite;
let fc: FirecrawlClient;
let jobs: MonitorJobs;
let receiver: Receiver;
let searxng: FakeSearxngServer;

/** Page bodies the test changes between checks. */
const content: Record<string, string | undefined> = {};
/** Requests to `/slow` wait until this is resolved. */
let releaseSlow: () => void = () => undefined;

function article(title: string, body: string): string {
  return `<!doctype html><html><head><title>${title}</title></head><body><main><article><h1>${title}</h1>${body}</article></main></body></html>`;
}

function paragraph(text: string): string {
  return `<p>${text} This paragraph is long enough to be kept as main content of the page by the extractor.</p>`;
}

/** A webhook receiver that keeps every body and wakes waiters. */
class Receiver {
  server!: Server;
  url = '';
  received: any[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any -- arbitrary payloads
  private waiters: { until: () => boolean; resolve: () => void }[] = [];

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        this.received.push(JSON.parse(raw));
        res.writeHead(200).end('ok');
        this.waiters = this.waiters.filter((w) => (w.until() ? (w.resolve(), false) : true));
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  waitFor(until: () => boolean): Promise<void> {
    if (until()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ until, resolve }));
  }

  /** Events about one check: its pages and its completion. */
  ofCheck(checkId: string) {
    return this.received.filter((b) => (b.type === 'monitor.page' ? b.data[0].checkId : b.data[0]?.id) === checkId);
  }

  close(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}

/** Completed `monitor` queue jobs, recorded from BullMQ's event stream (started before any job). */
class MonitorJobs {
  private readonly done = new Set<string>();
  private readonly failed = new Map<string, string>();
  private waiters: { id: string; resolve: () => void; reject: (e: Error) => void }[] = [];
  readonly queue: Queue;
  private readonly events: QueueEvents;
  private readonly connections: Redis[] = [];

  constructor(url: string) {
    const prefix = new RedisKeys('trawl').bullPrefix('monitor');
    const a = new Redis(url, { maxRetriesPerRequest: null });
    const b = new Redis(url, { maxRetriesPerRequest: null });
    this.connections.push(a, b);
    this.queue = new Queue('monitor', { connection: a, prefix });
    this.events = new QueueEvents('monitor', { connection: b, prefix });
    this.events.on('completed', ({ jobId }) => this.settle(jobId));
    this.events.on('failed', ({ jobId, failedReason }) => this.settle(jobId, failedReason));
  }

  ready(): Promise<void> {
    return this.events.waitUntilReady().then(() => undefined);
  }

  private settle(id: string, error?: string): void {
    if (error === undefined) this.done.add(id);
    else this.failed.set(id, error);
    this.waiters = this.waiters.filter((w) => {
      if (w.id !== id) return true;
      if (error === undefined) w.resolve();
      else w.reject(new Error(`monitor job ${id} failed: ${error}`));
      return false;
    });
  }

  /** Resolves when the job with this id has completed. */
  completed(id: string): Promise<void> {
    if (this.done.has(id)) return Promise.resolve();
    const failure = this.failed.get(id);
    if (failure !== undefined) return Promise.reject(new Error(`monitor job ${id} failed: ${failure}`));
    return new Promise((resolve, reject) => this.waiters.push({ id, resolve, reject }));
  }

  /** Resolves when a check has finished: the job reporting the end of its last target completed. */
  checkFinished(checkId: string, targetIds: readonly string[]): Promise<unknown> {
    return Promise.all(targetIds.map((t) => this.completed(`target-done-${checkId}-${t}`)));
  }

  async close(): Promise<void> {
    await this.events.close();
    await this.queue.close();
    for (const c of this.connections) c.disconnect();
  }
}

/**
 * Schedules whose next run is about half a day (or some days) away, so no scheduled check fires while
 * a test runs manual ones (the scheduler test starts its run explicitly).
 */
const AWAY = new Date(Date.now() + 12 * 3_600_000);
const farCron = `${AWAY.getUTCMinutes()} ${AWAY.getUTCHours()} * * *`;
const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const farText = `every ${DAYS[(new Date().getUTCDay() + 3) % 7]} at ${AWAY.getUTCHours()}:${String(AWAY.getUTCMinutes()).padStart(2, '0')}`;

/** Types of the webhook deliveries queued about a check (the queue keeps them for an hour). */
async function webhookEvents(checkId: string): Promise<string[]> {
  const queue = new Queue('webhook', { connection: cluster.redis, prefix: new RedisKeys('trawl').bullPrefix('webhook') });
  const all = await queue.getJobs();
  return all.filter((j) => JSON.stringify(j.data.body.data).includes(checkId)).map((j) => j.data.event as string).sort();
}

beforeAll(async () => {
  // The search provider of search targets: two queries, the pricing page found by both.
  searxng = await startFakeSearxng({
    results: (r) => (r.q === 'monitoring tools' ? [{ url: site.url('/about'), title: 'About' }, { url: site.url('/pricing'), title: 'Pricing' }]
      : r.q === 'pricing plans' ? [{ url: site.url('/pricing'), title: 'Pricing' }] : []),
  });
  cluster = await TestCluster.start({
    TRAWL_SEARXNG_URL: searxng.baseUrl,
    TRAWL_WEBHOOK_BACKOFF_MS: '50',
    TRAWL_CRAWL_WATCH_INTERVAL_MS: '300',
    TRAWL_MONITOR_MIN_INTERVAL_SEC: '120',
  });
  jobs = new MonitorJobs(cluster.redisServer.url);
  await jobs.ready();
  receiver = await new Receiver().start();
  content.pricing = paragraph('Basic plan: 10 EUR per month.');
  site = await new FixtureSite()
    .route('/pricing', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(article('Pricing', content.pricing!));
    })
    .page('/about', article('About', paragraph('We make monitoring tools.')))
    .route('/docs', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(article('Docs', paragraph('Start here.') + content.docsLinks!));
    })
    .page('/docs/a', article('Doc A', paragraph('Chapter A.')))
    .route('/docs/b', (_req, res) => {
      // Deleted in the course of the crawl test.
      if (content.docsB === undefined) res.writeHead(404, { 'content-type': 'text/html' }).end(article('Not found', paragraph('No such page.')));
      else res.writeHead(200, { 'content-type': 'text/html' }).end(article('Doc B', content.docsB));
    })
    .start();
  const { default: Firecrawl } = await import('@mendable/firecrawl-js');
  fc = new Firecrawl({ apiKey: BOOT_KEY, apiUrl: cluster.api.url });
});

afterAll(async () => {
  releaseSlow();
  await receiver?.close();
  await site?.stop();
  await jobs?.close();
  await cluster?.stop();
  await searxng?.close();
});

describe('monitors', () => {
  it('a monitor that notifies on change only', async () => {
    const monitor = await fc.createMonitor({
      name: 'Pricing watch',
      schedule: { cron: farCron, timezone: 'Europe/Paris' },
      webhook: { url: receiver.url, metadata: { team: 'growth' } },
      targets: [{ type: 'scrape', urls: [site.url('/pricing'), site.url('/about')] }],
    });
    expect(monitor).toMatchObject({ name: 'Pricing watch', status: 'active', schedule: { cron: farCron, timezone: 'Europe/Paris' }, retentionDays: 30 });
    expect(Date.parse(monitor.nextRunAt!)).toBeGreaterThan(Date.now());
    const targetId = monitor.targets[0]!.id!;
    const pricing = site.url('/pricing');

    // First check: every page is new, which is a change: one monitor.page per page, then the completion.
    const first = await fc.runMonitor(monitor.id);
    expect(first).toMatchObject({ monitorId: monitor.id, status: 'queued', trigger: 'manual' });
    await jobs.checkFinished(first.id, [targetId]);
    const firstDetail = await fc.getMonitorCheck(monitor.id, first.id);
    expect(firstDetail).toMatchObject({ status: 'completed', trigger: 'manual', billingStatus: 'confirmed', actualCredits: 2 });
    expect(firstDetail.pages.map((p) => p.status)).toEqual(['new', 'new']);
    await receiver.waitFor(() => receiver.ofCheck(first.id).some((b) => b.type === 'monitor.check.completed'));
    const firstEvents = receiver.ofCheck(first.id);
    expect(firstEvents.filter((b) => b.type === 'monitor.page').map((b) => [b.data[0].url, b.data[0].status]).sort()).toEqual([
      [site.url('/about'), 'new'], [pricing, 'new'],
    ]);
    const firstDone = firstEvents.find((b) => b.type === 'monitor.check.completed');
    expect(firstDone).toMatchObject({ success: true, id: monitor.id, metadata: { team: 'growth' } });
    expect(firstDone.data[0]).toMatchObject({ id: first.id, status: 'completed', summary: { totalPages: 2, new: 2, same: 0, changed: 0 } });

    // Second check, nothing changed: every page is the same, and no webhook is sent.
    const second = await fc.runMonitor(monitor.id);
    await jobs.checkFinished(second.id, [targetId]);
    const secondDetail = await fc.getMonitorCheck(monitor.id, second.id);
    expect(secondDetail).toMatchObject({ status: 'completed', summary: { totalPages: 2, same: 2, new: 0, changed: 0, removed: 0, error: 0 } });
    expect(secondDetail.notificationStatus).toEqual({ webhook: 'no_change' });

    // Third check after the page changed: the changed page only, with its diff.
    content.pricing = paragraph('Basic plan: 12 EUR per month.');
    const third = await fc.runMonitor(monitor.id);
    await jobs.checkFinished(third.id, [targetId]);
    expect((await fc.getMonitorCheck(monitor.id, third.id)).summary).toMatchObject({ totalPages: 2, same: 1, changed: 1 });
    await receiver.waitFor(() => receiver.ofCheck(third.id).some((b) => b.type === 'monitor.check.completed'));
    const thirdPages = receiver.ofCheck(third.id).filter((b) => b.type === 'monitor.page');
    expect(thirdPages.map((b) => [b.data[0].url, b.data[0].status])).toEqual([[pricing, 'changed']]);
    expect(thirdPages[0].data[0].diff.text).toMatch(/-.*10 EUR[\s\S]*\+.*12 EUR/);
    // The receiver heard of the third check and never of the second: nothing was even queued for it.
    expect(receiver.ofCheck(second.id)).toEqual([]);
    expect(await webhookEvents(second.id)).toEqual([]);
    expect((await webhookEvents(third.id)).sort()).toEqual(['monitor.check.completed', 'monitor.page']);

    const thirdDetail = await fc.getMonitorCheck(monitor.id, third.id, { status: 'changed' });
    expect(thirdDetail.pages.map((p) => [p.url, p.status, p.diff?.text?.includes('+')])).toEqual([[pricing, 'changed', true]]);
    expect(thirdDetail.summary).toMatchObject({ totalPages: 2, same: 1, changed: 1 });

    const checks = await fc.listMonitorChecks(monitor.id);
    expect(checks.map((c) => c.id)).toEqual([third.id, second.id, first.id]);
    const after = await fc.getMonitor(monitor.id);
    expect(after).toMatchObject({ currentCheckId: null, lastCheckSummary: { totalPages: 2, same: 1, changed: 1 } });
    expect(Date.parse(after.lastRunAt!)).toBeGreaterThanOrEqual(Date.parse(first.createdAt));
  });

  it('a crawl target: pages found by the crawl, an unlinked page still compared, a deleted one removed, pages paginated with next', async () => {
    content.docsLinks = '<ul><li><a href="/docs/a">A</a></li><li><a href="/docs/b">B</a></li></ul>';
    content.docsB = paragraph('Chapter B.');
    const monitor = await fc.createMonitor({
      name: 'Docs', schedule: { text: `daily at ${AWAY.getUTCHours()}:${String(AWAY.getUTCMinutes()).padStart(2, '0')}` },
      webhook: { url: receiver.url, events: ['monitor.page'] },
      targets: [{ type: 'crawl', url: site.url('/docs'), crawlOptions: { sitemap: 'skip' } }],
    });
    expect(monitor.schedule).toMatchObject({ cron: farCron, timezone: 'UTC' });
    const targetId = monitor.targets[0]!.id!;
    // The run answer carries the check's id at the top level too.
    const run = await cluster.call('POST', `/v2/monitor/${monitor.id}/run`, { body: {} });
    expect(run.status).toBe(200);
    expect(run.body.id).toBe(run.body.data.id);
    monitorCheckResponseSchema.parse(run.body);
    const first = run.body.data as { id: string };
    await jobs.checkFinished(first.id, [targetId]);
    const firstDetail = await fc.getMonitorCheck(monitor.id, first.id, { limit: 1 });
    expect(firstDetail.pages.map((p) => p.status)).toEqual(['new', 'new', 'new']);
    const page1 = await cluster.call('GET', `/v2/monitor/${monitor.id}/checks/${first.id}?limit=1`);
    expect(page1.body.next).toBe(`${cluster.api.url}/v2/monitor/${monitor.id}/checks/${first.id}?skip=1&limit=1`);
    expect(page1.body.data.next).toBe(page1.body.next);
    monitorCheckDetailResponseSchema.parse(page1.body);
    // The last page has no `next` at all (not null).
    const last = await cluster.call('GET', `/v2/monitor/${monitor.id}/checks/${first.id}?skip=2&limit=1`);
    expect(last.body.data.pages).toHaveLength(1);
    expect('next' in last.body).toBe(false);
    expect('next' in last.body.data).toBe(false);
    expect(page1.body.data.targetResults).toEqual([{ targetId, type: 'crawl', crawlId: expect.any(String) }]);

    // /docs/b is no longer linked but still there: the crawl compares it anyway (hidden), unchanged.
    content.docsLinks = '<ul><li><a href="/docs/a">A</a></li></ul>';
    const second = await fc.runMonitor(monitor.id);
    await jobs.checkFinished(second.id, [targetId]);
    const detail = await fc.getMonitorCheck(monitor.id, second.id);
    const statuses = (d: typeof detail) => d.pages.map((p) => [new URL(p.url).pathname, p.status, (p.metadata as { visibility?: string }).visibility]).sort();
    expect(statuses(detail)).toEqual([['/docs', 'changed', 'visible'], ['/docs/a', 'same', 'visible'], ['/docs/b', 'same', 'hidden']]);
    // `events` filters: page events only, no completion.
    expect(await webhookEvents(second.id)).toEqual(['monitor.page']);

    // Deleted: removed.
    content.docsB = undefined;
    const third = await fc.runMonitor(monitor.id);
    await jobs.checkFinished(third.id, [targetId]);
    expect(statuses(await fc.getMonitorCheck(monitor.id, third.id))).toEqual([['/docs', 'same', 'visible'], ['/docs/a', 'same', 'visible'], ['/docs/b', 'removed', 'hidden']]);
    await receiver.waitFor(() => receiver.ofCheck(third.id).length === 1);
    expect(receiver.ofCheck(third.id)[0].data[0]).toMatchObject({ status: 'removed', url: site.url('/docs/b'), checkId: third.id });

    // The list of checks pages with a top-level `next`, omitted on the last page.
    const checks1 = await cluster.call('GET', `/v2/monitor/${monitor.id}/checks?limit=2`);
    expect(checks1.body.data.map((c: { id: string }) => c.id)).toEqual([third.id, second.id]);
    expect(checks1.body.next).toBe(`${cluster.api.url}/v2/monitor/${monitor.id}/checks?offset=2&limit=2`);
    monitorCheckListResponseSchema.parse(checks1.body);
    const checks2 = await cluster.call('GET', `/v2/monitor/${monitor.id}/checks?offset=2&limit=2`);
    expect(checks2.body.data.map((c: { id: string }) => c.id)).toEqual([first.id]);
    expect('next' in checks2.body).toBe(false);
    const exact = await cluster.call('GET', `/v2/monitor/${monitor.id}/checks?limit=3`);
    expect(exact.body.data).toHaveLength(3);
    expect('next' in exact.body).toBe(false);
  });

  it('a search target: each check runs its queries and compares the pages found, with the search credits', async () => {
    const monitor = await fc.createMonitor({
      name: 'Search watch', schedule: { cron: farCron },
      targets: [{ type: 'search', queries: ['monitoring tools', 'pricing plans'], searchWindow: '24h', maxResults: 5 }],
    });
    const targetId = monitor.targets[0]!.id!;
    expect(monitor.targets[0]).toMatchObject({ type: 'search', queries: ['monitoring tools', 'pricing plans'], searchWindow: '24h', maxResults: 5 });
    content.pricing = paragraph('Pro plan: 30 EUR per month.');
    const first = await fc.runMonitor(monitor.id);
    await jobs.checkFinished(first.id, [targetId]);
    const firstDetail = await fc.getMonitorCheck(monitor.id, first.id);
    // Two pages scraped (1 credit each) and two searches (2 credits each).
    expect(firstDetail).toMatchObject({ status: 'completed', actualCredits: 6, summary: { totalPages: 2, new: 2 } });
    expect(firstDetail.pages.map((p) => p.url).sort()).toEqual([site.url('/about'), site.url('/pricing')].sort());
    expect(firstDetail.targetResults).toEqual([{ targetId, type: 'search', batchId: expect.any(String), searchCompleted: true, resultCount: 2, searchCredits: 4 }]);
    const asked = searxng.requests.filter((r) => r.q === 'monitoring tools' || r.q === 'pricing plans');
    // Both queries asked (the provider pages on when a page has fewer results than asked), each for the last day.
    expect([...new Set(asked.map((r) => r.q))].sort()).toEqual(['monitoring tools', 'pricing plans']);
    expect(new Set(asked.map((r) => r.time_range))).toEqual(new Set(['day']));

    content.pricing = paragraph('Pro plan: 35 EUR per month.');
    const second = await fc.runMonitor(monitor.id);
    await jobs.checkFinished(second.id, [targetId]);
    const secondDetail = await fc.getMonitorCheck(monitor.id, second.id);
    expect(secondDetail.summary).toMatchObject({ totalPages: 2, same: 1, changed: 1 });
    expect(secondDetail.pages.find((p) => p.status === 'changed')?.url).toBe(site.url('/pricing'));
    // The check's JSON follows the schema (the search target result included).
    const raw = await cluster.call('GET', `/v2/monitor/${monitor.id}/checks/${second.id}`);
    expect(monitorCheckDetailResponseSchema.safeParse(raw.body).success).toBe(true);
  });

  it('runs on its BullMQ job scheduler, which pause removes, resume restores and delete ends', async () => {
    const monitor = await fc.createMonitor({
      name: 'Scheduled', schedule: { text: farText, timezone: 'America/New_York' },
      targets: [{ type: 'scrape', urls: [site.url('/about')] }],
    });
    const schedulerId = MonitorScheduler.schedulerId(monitor.id);
    const scheduler = await jobs.queue.getJobScheduler(schedulerId);
    expect(scheduler).toMatchObject({ pattern: monitor.schedule.cron, tz: 'America/New_York', next: Date.parse(monitor.nextRunAt!) });
    expect(monitor.schedule.cron).toMatch(/^\d+ \d+ \* \* [0-6]$/);
    expect(scheduler?.template?.data).toEqual({ v: 1, kind: 'check', monitorId: monitor.id, teamId: expect.any(String), trigger: 'scheduled' });

    // The run the scheduler queued for its next time (days away), started now.
    const jobId = `repeat:${schedulerId}:${scheduler!.next}`;
    const job = await jobs.queue.getJob(jobId);
    expect(await job!.getState()).toBe('delayed');
    await job!.promote();
    const checkId = nameUuid(`monitor-check:${monitor.id}:${jobId}`);
    await jobs.checkFinished(checkId, [monitor.targets[0]!.id!]);
    const [check] = await fc.listMonitorChecks(monitor.id);
    expect(check).toMatchObject({ id: checkId, trigger: 'scheduled', status: 'completed', scheduledFor: new Date(scheduler!.next!).toISOString() });
    // Taking the job scheduled the following one.
    expect((await jobs.queue.getJobScheduler(schedulerId))?.next).toBeGreaterThan(scheduler!.next!);

    const paused = await fc.updateMonitor(monitor.id, { status: 'paused' });
    expect(paused).toMatchObject({ status: 'paused', nextRunAt: null });
    expect(await jobs.queue.getJobScheduler(schedulerId)).toBeUndefined();
    const resumed = await fc.updateMonitor(monitor.id, { status: 'active', schedule: { cron: farCron, timezone: 'Asia/Tokyo' } });
    expect(resumed.schedule).toEqual({ cron: farCron, timezone: 'Asia/Tokyo' });
    expect(await jobs.queue.getJobScheduler(schedulerId)).toMatchObject({ pattern: farCron, tz: 'Asia/Tokyo', next: Date.parse(resumed.nextRunAt!) });

    expect(await fc.deleteMonitor(monitor.id)).toBe(true);
    expect(await jobs.queue.getJobScheduler(schedulerId)).toBeUndefined();
    await expect(fc.getMonitor(monitor.id)).rejects.toMatchObject({ status: 404 });
  });

  it('one check at a time: a run while one runs is skipped_overlap; a cancelled batch ends its check; no credits: skipped_no_credits', async () => {
    const monitor = await fc.createMonitor({ name: 'Slow', schedule: { cron: farCron }, targets: [{ type: 'scrape', urls: [site.url('/slow')] }] });
    const targetId = monitor.targets[0]!.id!;
    const served = new Promise<void>((r) => site.route('/slow', async (_req, res) => {
      r();
      await new Promise<void>((done) => (releaseSlow = done));
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(article('Slow', paragraph('Finally.')));
    }));
    const slow = await fc.runMonitor(monitor.id);
    await served; // the first check's page is being fetched
    const overlapping = await fc.runMonitor(monitor.id);
    await jobs.completed(`check-${overlapping.id}`);
    expect((await fc.getMonitorCheck(monitor.id, overlapping.id)).status).toBe('skipped_overlap');
    const running = await fc.getMonitorCheck(monitor.id, slow.id);
    expect(running).toMatchObject({ status: 'running', targetResults: [{ targetId, type: 'scrape', batchId: expect.any(String) }] });
    expect((await fc.getMonitor(monitor.id)).currentCheckId).toBe(slow.id);
    // Cancelling the check's batch (in the API process) ends the check too.
    const batchId = (running.targetResults![0] as unknown as { batchId: string }).batchId;
    expect((await cluster.call('DELETE', `/v2/batch/scrape/${batchId}`)).status).toBe(200);
    await jobs.checkFinished(slow.id, [targetId]);
    expect(await fc.getMonitorCheck(monitor.id, slow.id)).toMatchObject({
      status: 'failed', error: `target ${targetId}: batch scrape cancelled`, summary: { totalPages: 0 },
    });
    expect((await fc.getMonitor(monitor.id)).currentCheckId).toBeNull();
    releaseSlow();

    const broke = await cluster.team({ credits: 0 });
    const { default: Firecrawl } = await import('@mendable/firecrawl-js');
    const poor = new Firecrawl({ apiKey: broke.key, apiUrl: cluster.api.url });
    const m = await poor.createMonitor({ name: 'Poor', schedule: { cron: farCron }, targets: [{ type: 'scrape', urls: [site.url('/about')] }] });
    const run = await poor.runMonitor(m.id);
    await jobs.completed(`check-${run.id}`);
    expect(await poor.getMonitorCheck(m.id, run.id)).toMatchObject({ status: 'skipped_no_credits', targetResults: [], summary: { totalPages: 0 } });
  });

  it('list, get, update; another team gets 404 for every route', async () => {
    const a = await fc.createMonitor({ name: 'A', schedule: { text: 'weekly' }, targets: [{ type: 'scrape', urls: [site.url('/about')] }] });
    const b = await fc.createMonitor({ name: 'B', schedule: { text: 'daily at 9:00' }, targets: [{ id: 'main', type: 'scrape', urls: [site.url('/about')] }] });
    expect(b.targets[0]!.id).toBe('main');
    const listed = await fc.listMonitors({ limit: 2 });
    expect(listed.map((m) => m.id)).toEqual([b.id, a.id]);
    expect((await fc.listMonitors({ limit: 1, offset: 1 })).map((m) => m.id)).toEqual([a.id]);
    expect((await fc.getMonitor(a.id)).schedule).toEqual({ cron: '0 0 * * 0', timezone: 'UTC', text: 'weekly' });
    const renamed = await fc.updateMonitor(a.id, { name: 'A2', retentionDays: 7, targets: [{ type: 'scrape', urls: [site.url('/about')] }] });
    // Same URLs without an id: the target keeps its id (and so its history).
    expect(renamed).toMatchObject({ name: 'A2', retentionDays: 7, targets: [{ id: a.targets[0]!.id }] });

    const other = await cluster.team();
    for (const [method, path] of [
      ['GET', `/v2/monitor/${a.id}`], ['PATCH', `/v2/monitor/${a.id}`], ['DELETE', `/v2/monitor/${a.id}`], ['POST', `/v2/monitor/${a.id}/run`],
      ['GET', `/v2/monitor/${a.id}/checks`], ['GET', `/v2/monitor/${a.id}/checks/${a.id}`],
    ] as const) {
      const r = await cluster.call(method, path, { key: other.key, ...(method === 'PATCH' || method === 'POST' ? { body: {} } : {}) });
      expect([method, path, r.status, r.body.code]).toEqual([method, path, 404, 'NOT_FOUND']);
    }
    expect((await cluster.call('GET', '/v2/monitor', { key: other.key })).body).toEqual({ success: true, data: [] });
    expect((await cluster.call('GET', `/v2/monitor/${a.id}/checks/${a.id}`)).status).toBe(404);
    expect((await cluster.call('GET', '/v2/monitor/not-a-uuid')).status).toBe(400);
  });

  it('refuses bad schedules, unknown keys and what nothing serves here, naming the field', async () => {
    const body = { name: 'x', schedule: { cron: farCron }, targets: [{ type: 'scrape' as const, urls: [site.url('/about')] }] };
    const refused = async (patch: Record<string, unknown>) => {
      const r = await cluster.call('POST', '/v2/monitor', { body: { ...body, ...patch } });
      expect(r.status).toBe(400);
      return r.body as { code: string; error: string; details: { issues?: { path: string; message: string }[]; option?: string } };
    };
    expect((await refused({ schedule: { cron: '61 * * * *' } })).details.issues?.[0]?.path).toBe('schedule.cron');
    expect((await refused({ schedule: { cron: '* * * * *' } })).error).toMatch(/runs every 60 s; the shortest interval allowed is 120 s/);
    expect((await refused({ schedule: { text: 'whenever you like' } })).details.issues?.[0]).toMatchObject({ path: 'schedule.text', message: expect.stringMatching(/Unsupported schedule text/) });
    expect((await refused({ schedule: { cron: '0 * * * *', timezone: 'Mars/Olympus' } })).details.issues?.[0]?.path).toBe('schedule.timezone');
    expect((await refused({ schedule: { cron: '0 * * * *', text: 'hourly' } })).details.issues?.[0]?.path).toBe('schedule');
    expect((await refused({ colour: 'blue' })).details.issues).toEqual([{ path: 'colour', code: 'unrecognized_keys', message: 'Unrecognized key: "colour"' }]);
    for (const [patch, option] of [
      [{ judgeEnabled: true }, 'judgeEnabled'],
      [{ goal: 'price drops' }, 'goal'],
      [{ notification: { email: { enabled: true, recipients: ['a@example.com'] } } }, 'notification.email'],
      [{ targets: [{ type: 'crawl', url: site.url('/docs'), crawlOptions: { prompt: 'docs only' } }] }, 'targets[0].crawlOptions.prompt'],
      [{ targets: [{ type: 'scrape', urls: [site.url('/about')], scrapeOptions: { formats: ['markdown', 'screenshot'] } }] }, 'targets[0].scrapeOptions.formats[1]'],
    ] as const) {
      expect([option, await refused(patch)]).toEqual([option, expect.objectContaining({ code: 'UNSUPPORTED_OPTION', details: expect.objectContaining({ option }) })]);
    }
    await expect(fc.createMonitor({ ...body, schedule: { cron: 'nope' } } as never)).rejects.toMatchObject({ status: 400 });
    const patched = await cluster.call('PATCH', `/v2/monitor/${(await fc.createMonitor(body)).id}`, { body: { status: 'deleted' } });
    expect(patched.status).toBe(400);
  });
});
