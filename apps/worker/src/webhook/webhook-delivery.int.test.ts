import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import { QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { webhookPayloadSchema, type WebhookConfig, type WebhookPayload } from '@trawl/api-schema';
import { createLogger, createMetricsRegistry, type Registry } from '@trawl/observability';
import { QueueSet, RedisKeys, WebhookOrder, WebhookSender } from '@trawl/queue';
import { TargetGuard, type DnsResolver } from '@trawl/net-guard';
import { RedisServerFixture } from '@trawl/testing';
import { startWebhookWorker, type WebhookWorkerConfig } from './start-webhook-worker.js';

const SECRET = 'whsec-test-0123456789';
const TEAM = 'team-1';

let redisServer: RedisServerFixture;
let redis: Redis;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  redisServer = await RedisServerFixture.start({ appendonly: false });
  redis = new Redis(redisServer.url, { maxRetriesPerRequest: null });
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  redis.disconnect();
  await redisServer.stop();
});

/** One request the receiver got, with what it answered. */
interface Received {
  raw: Buffer;
  headers: IncomingMessage['headers'];
  payload: WebhookPayload;
  status: number;
  /** Arrival time, ms since epoch. */
  at: number;
}

/** How the receiver answers one request. */
type Answer = number | { status: number; headers: Record<string, string> };

/**
 * A loopback webhook receiver on port 0. `answer` picks each response's status; it can take the
 * server down (connection refused) and bring it back on the same port.
 */
class Receiver {
  readonly received: Received[] = [];
  private readonly server: Server;
  private waiters: { predicate: () => boolean; resolve: () => void }[] = [];
  port = 0;

  /** Arrival order of the payloads (a held request is recorded on arrival, before its answer). */
  readonly arrived: WebhookPayload[] = [];

  /** `hold` delays the answer to a request until the promise it returns settles. */
  constructor(
    private readonly answer: (payload: WebhookPayload, receiver: Receiver) => Answer,
    private readonly hold?: (payload: WebhookPayload) => Promise<void>,
  ) {
    this.server = createServer((req, res) => this.handle(req, res));
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks/in?token=url-secret-marker`;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(this.port, '127.0.0.1', resolve));
    const address = this.server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
    cleanups.push(() => this.stop());
    return this;
  }

  /** Closes the listening socket and every open connection: new attempts get ECONNREFUSED. */
  async stop(): Promise<void> {
    if (!this.server.listening) return;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }

  /** Resolves once `predicate` holds, checked after every request. */
  until(predicate: () => boolean): Promise<void> {
    if (predicate()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ predicate, resolve }));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void (async () => {
      const raw = Buffer.concat(chunks);
      const payload = webhookPayloadSchema.parse(JSON.parse(raw.toString('utf8')));
      this.arrived.push(payload);
      this.notifyWaiters();
      if (this.hold) await this.hold(payload);
      const answer = this.answer(payload, this);
      const { status, headers } = typeof answer === 'number' ? { status: answer, headers: {} } : answer;
      this.received.push({ raw, headers: req.headers, payload, status, at: Date.now() });
      res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end('ok');
      res.on('finish', () => this.notifyWaiters());
    })());
  }

  private notifyWaiters(): void {
    this.waiters = this.waiters.filter((w) => (w.predicate() ? (w.resolve(), false) : true));
  }
}

/** Terminal BullMQ events of the webhook queue, awaited by job id. */
class Outcomes {
  readonly completed = new Set<string>();
  readonly failed = new Map<string, string>();
  /** Jobs moved back to the delayed set (a held terminal event). */
  readonly delayed = new Set<string>();
  private waiters: { predicate: () => boolean; resolve: () => void }[] = [];

  constructor(events: QueueEvents) {
    events.on('delayed', ({ jobId }) => this.record(() => this.delayed.add(jobId)));
    events.on('completed', ({ jobId }) => this.record(() => this.completed.add(jobId)));
    events.on('failed', ({ jobId, failedReason }) => this.record(() => this.failed.set(jobId, failedReason)));
  }

  until(predicate: () => boolean): Promise<void> {
    if (predicate()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ predicate, resolve }));
  }

  private record(change: () => void): void {
    change();
    this.waiters = this.waiters.filter((w) => (w.predicate() ? (w.resolve(), false) : true));
  }
}

/** The worker's log lines, awaited by content. */
class LogCapture {
  readonly lines: string[] = [];
  private waiters: { predicate: () => boolean; resolve: () => void }[] = [];
  readonly stream = new Writable({
    write: (chunk: Buffer, _enc, done) => {
      this.lines.push(chunk.toString());
      this.waiters = this.waiters.filter((w) => (w.predicate() ? (w.resolve(), false) : true));
      done();
    },
  });

  count(fragment: string): number {
    return this.lines.filter((l) => l.includes(fragment)).length;
  }

  until(predicate: () => boolean): Promise<void> {
    if (predicate()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ predicate, resolve }));
  }
}

/** A webhook worker and a producer on their own key prefix, with logs captured. */
async function setup(opts: { guard?: TargetGuard; secret?: string } = {}) {
  const keys = new RedisKeys(`wh${randomUUID().slice(0, 8)}`);
  const queues = new QueueSet(redis, keys);
  const sender = new WebhookSender(queues, { backoffMs: 25, attempts: 10 });
  const events = new QueueEvents('webhook', { connection: { host: '127.0.0.1', port: redisServer.port }, prefix: keys.bullPrefix('webhook') });
  await events.waitUntilReady();
  const outcomes = new Outcomes(events);
  const logs = new LogCapture();
  const logger = createLogger({ role: 'worker', level: 'debug', destination: logs.stream });
  const registry = createMetricsRegistry({ role: 'worker', collectDefaults: false });
  const config: WebhookWorkerConfig = {
    TRAWL_ALLOW_PRIVATE_TARGETS: false,
    TRAWL_WEBHOOK_ALLOW_PRIVATE: true,
    TRAWL_WEBHOOK_BACKOFF_MS: 25,
    TRAWL_WEBHOOK_SECRET: opts.secret,
    TRAWL_WEBHOOK_TIMEOUT_MS: 5000,
    TRAWL_WEBHOOK_CONCURRENCY: 4,
  };
  const shutdown = new AbortController();
  const worker = startWebhookWorker(config, {
    connection: redis, keys, logger, registry, shutdown: shutdown.signal,
    ...(opts.guard ? { guard: opts.guard } : {}),
  });
  cleanups.push(async () => {
    shutdown.abort();
    await worker.close();
    await events.close();
    await queues.close();
  });
  return { keys, queues, sender, outcomes, logs, registry };
}

/** `trawl_webhook_deliveries_total` summed by outcome. */
async function deliveriesByOutcome(registry: Registry): Promise<Record<string, number>> {
  const metric = await registry.getSingleMetric('trawl_webhook_deliveries_total')?.get();
  const out: Record<string, number> = {};
  for (const v of metric?.values ?? []) out[String(v.labels.outcome)] = (out[String(v.labels.outcome)] ?? 0) + v.value;
  return out;
}

function verifies(secret: string, raw: Buffer, header: string | string[] | undefined): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`);
  const given = Buffer.from(typeof header === 'string' ? header : '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

describe('webhook delivery', () => {
  it('delivers every event exactly once through 503s and a receiver that is down for a while', async () => {
    const { sender, outcomes, logs, registry } = await setup({ secret: SECRET });
    let up = false;
    const receiver = await new Receiver(() => (up ? 200 : 503)).start();
    const config: WebhookConfig = { url: receiver.url };
    const sent: { id: string; webhookId: string }[] = [];
    for (let i = 0; i < 5; i += 1) {
      const id = `crawl-${i}`;
      const webhookId = await sender.send(TEAM, config, { type: 'crawl.page', id, data: { markdown: `page ${i}` } });
      sent.push({ id, webhookId: webhookId! });
    }

    // Two 503s, then the receiver goes away: further attempts find the port closed.
    await receiver.until(() => receiver.received.length >= 2);
    await receiver.stop();
    await logs.until(() => logs.count('"reason":"ECONNREFUSED"') >= 3);
    up = true;
    await receiver.start();
    const ids = sent.map((s) => s.webhookId);
    await outcomes.until(() => ids.every((id) => outcomes.completed.has(id)));

    expect(receiver.received.slice(0, 2).map((r) => r.status)).toEqual([503, 503]);
    const acknowledged = receiver.received.filter((r) => r.status === 200);
    const ackCounts = new Map<string, number>();
    for (const r of acknowledged) ackCounts.set(r.payload.webhookId, (ackCounts.get(r.payload.webhookId) ?? 0) + 1);
    expect([...ackCounts.keys()].sort()).toEqual([...ids].sort());
    expect([...ackCounts.values()].every((n) => n === 1)).toBe(true);
    expect(acknowledged.map((r) => r.payload.id).sort()).toEqual(sent.map((s) => s.id));
    expect(acknowledged.every((r) => r.payload.success && r.payload.data.length === 1)).toBe(true);
    expect(receiver.received.every((r) => verifies(SECRET, r.raw, r.headers['x-firecrawl-signature']))).toBe(true);
    expect(outcomes.failed.size).toBe(0);
    const byOutcome = await deliveriesByOutcome(registry);
    expect(byOutcome.delivered).toBe(5);
    expect(byOutcome.retry).toBeGreaterThanOrEqual(5);
    expect(byOutcome.failed).toBeUndefined();
  }, 60_000);

  it('signs the exact bytes sent, sends the config headers, and logs no URL, header or content', async () => {
    const { sender, outcomes, queues, logs } = await setup({ secret: SECRET });
    const receiver = await new Receiver(() => 204).start();
    const config: WebhookConfig = {
      url: receiver.url,
      headers: { Authorization: 'Bearer header-secret-marker', 'Content-Type': 'text/plain' },
      metadata: { run: 'r-1' },
      events: ['page', 'crawl.completed'],
    };
    expect(await sender.send(TEAM, config, { type: 'crawl.started', id: 'c1' })).toBeNull();
    expect(await sender.send(TEAM, undefined, { type: 'crawl.page', id: 'c1' })).toBeNull();
    const pageId = await sender.send(TEAM, config, { type: 'crawl.page', id: 'c1', data: { markdown: 'content-marker é' } });
    const zdrId = await sender.send(TEAM, config, { type: 'crawl.completed', id: 'c1' }, { zeroDataRetention: true });
    await outcomes.until(() => outcomes.completed.has(pageId!) && outcomes.completed.has(zdrId!));

    expect(receiver.received).toHaveLength(2);
    for (const r of receiver.received) {
      expect(verifies(SECRET, r.raw, r.headers['x-firecrawl-signature'])).toBe(true);
      expect(verifies('another-secret', r.raw, r.headers['x-firecrawl-signature'])).toBe(false);
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers.authorization).toBe('Bearer header-secret-marker');
    }
    const page = receiver.received.find((r) => r.payload.webhookId === pageId)!;
    expect(page.payload).toEqual({
      success: true, type: 'crawl.page', id: 'c1', webhookId: pageId, data: [{ markdown: 'content-marker é' }], metadata: { run: 'r-1' },
    });
    // Retries keep the id: it is the BullMQ job id. A ZDR delivery leaves no record behind.
    expect((await queues.get('webhook').getJob(pageId!))?.data.webhookId).toBe(pageId);
    expect(await queues.get('webhook').getJob(zdrId!)).toBeUndefined();
    const logText = logs.lines.join('');
    expect(logText).toContain(pageId);
    expect(logText).not.toMatch(/url-secret-marker|header-secret-marker|content-marker/);
  }, 30_000);

  it('never contacts a private address when private targets are not allowed, and ends it blocked', async () => {
    // A public-looking name that resolves to loopback: the guard checks the address connected to.
    const resolver: DnsResolver = { resolve: async () => [{ address: '127.0.0.1', family: 4 }] };
    const { sender, outcomes, queues, registry } = await setup({ guard: new TargetGuard({ allowPrivateTargets: false, resolver }) });
    const receiver = await new Receiver(() => 200).start();
    const literal = await sender.send(TEAM, { url: receiver.url }, { type: 'batch_scrape.completed', id: 'b1' });
    const rebound = await sender.send(TEAM, { url: `http://hooks.example.com:${receiver.port}/in` }, { type: 'batch_scrape.completed', id: 'b1' });
    await outcomes.until(() => outcomes.failed.has(literal!) && outcomes.failed.has(rebound!));

    expect(receiver.received).toHaveLength(0);
    for (const id of [literal!, rebound!]) {
      expect(outcomes.failed.get(id)).toMatch(/blocked \(loopback\)/);
      expect((await queues.get('webhook').getJob(id))?.attemptsMade).toBe(1);
    }
    expect(await deliveriesByOutcome(registry)).toEqual({ blocked: 2 });
  }, 30_000);

  it('does not retry a delivery the receiver rejects with 400', async () => {
    const { sender, outcomes, queues, registry } = await setup();
    const receiver = await new Receiver(() => 400).start();
    const id = await sender.send(TEAM, { url: receiver.url }, { type: 'extract.failed', id: 'e1', error: 'no schema' });
    await outcomes.until(() => outcomes.failed.has(id!));

    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]!.payload).toMatchObject({ success: false, error: 'no schema' });
    expect(receiver.received[0]!.headers['x-firecrawl-signature']).toBeUndefined();
    expect(outcomes.failed.get(id!)).toMatch(/status 400/);
    expect((await queues.get('webhook').getJob(id!))?.attemptsMade).toBe(1);
    expect(await deliveriesByOutcome(registry)).toEqual({ failed: 1 });
  }, 30_000);

  it('a batched job POSTs each event once, in order, its own id and signature each; a retry resumes at the failed one', async () => {
    const { sender, outcomes, queues, registry } = await setup({ secret: SECRET });
    // The third delivery gets a 503 twice, the fifth a 400 (rejected for good); the others 200.
    const answers = new Map<string, number>();
    const receiver = await new Receiver((payload) => {
      const n = (answers.get(payload.id) ?? 0) + 1;
      answers.set(payload.id, n);
      if (payload.id === 'p2' && n <= 2) return 503;
      return payload.id === 'p4' ? 400 : 200;
    }).start();
    const config: WebhookConfig = { url: receiver.url, metadata: { run: 'b' } };
    const events = Array.from({ length: 6 }, (_, i) => ({ type: 'crawl.page' as const, id: `p${i}`, data: { markdown: `page ${i}` } }));
    const ids = await sender.sendBatch(TEAM, config, events);
    expect(ids).toHaveLength(6);
    await outcomes.until(() => outcomes.failed.has(ids[0]!));

    // One job for the six events: POSTs p0 p1 p2(503), then p2(503), then p2 p3 p4(400) p5.
    expect(receiver.received.map((r) => `${r.payload.id}:${r.status}`)).toEqual([
      'p0:200', 'p1:200', 'p2:503', 'p2:503', 'p2:200', 'p3:200', 'p4:400', 'p5:200',
    ]);
    for (const r of receiver.received) {
      expect(r.payload.webhookId).toBe(ids[Number(r.payload.id.slice(1))]);
      expect(r.payload).toMatchObject({ success: true, type: 'crawl.page', data: [{ markdown: `page ${r.payload.id.slice(1)}` }], metadata: { run: 'b' } });
      expect(verifies(SECRET, r.raw, r.headers['x-firecrawl-signature'])).toBe(true);
    }
    expect(outcomes.failed.get(ids[0]!)).toMatch(/status 400/);
    expect(await queues.get('webhook').getJob(ids[1]!)).toBeUndefined();
    expect(await deliveriesByOutcome(registry)).toEqual({ delivered: 5, retry: 2, failed: 1 });
    // A filter that selects none of the events queues nothing.
    expect(await sender.sendBatch(TEAM, { url: receiver.url, events: ['completed'] }, events)).toEqual([]);
  }, 30_000);

  it('a batched job whose last attempt fails one delivery still POSTs the ones after it', async () => {
    const { queues, outcomes, registry } = await setup();
    const sender = new WebhookSender(queues, { backoffMs: 25, attempts: 1 });
    const receiver = await new Receiver((payload) => (payload.id === 'p0' ? 503 : 200)).start();
    const ids = await sender.sendBatch(TEAM, { url: receiver.url }, ['p0', 'p1'].map((id) => ({ type: 'crawl.page' as const, id })));
    await outcomes.until(() => outcomes.failed.has(ids[0]!));
    expect(receiver.received.map((r) => `${r.payload.id}:${r.status}`)).toEqual(['p0:503', 'p1:200']);
    expect(await deliveriesByOutcome(registry)).toEqual({ delivered: 1, failed: 1 });
  }, 30_000);

  it('a crawl\'s completed waits for its page deliveries still being POSTed (a batch and jobs of one page), then comes last', async () => {
    const { keys, queues, outcomes } = await setup();
    const sender = new WebhookSender(queues, { backoffMs: 25, attempts: 10, order: new WebhookOrder(redis, keys) });
    // Page POSTs are answered only once the completed job has had its chance to overtake them: it
    // arrived (the order is broken), or it went back to the queue to wait for them.
    let completedId = '';
    let overtaken: () => void = () => undefined;
    const overtake = new Promise<void>((resolve) => { overtaken = resolve; });
    const receiver = await new Receiver(() => 200, async (payload) => {
      if (payload.type === 'crawl.page') await overtake;
    }).start();
    const config: WebhookConfig = { url: receiver.url };
    const page = (n: number) => ({ type: 'crawl.page' as const, id: 'c1', data: { markdown: `page ${n}` } });
    const batch = await sender.sendBatch(TEAM, config, [page(0), page(1), page(2)], { pageOf: 'c1' });
    const single = [await sender.send(TEAM, config, page(3), { pageOf: 'c1' }), await sender.send(TEAM, config, page(4), { pageOf: 'c1' })];
    // Another crawl's end does not wait for c1's pages.
    const other = await sender.send(TEAM, config, { type: 'crawl.completed', id: 'c2' });
    completedId = (await sender.send(TEAM, config, { type: 'crawl.completed', id: 'c1' }))!;
    await outcomes.until(() => outcomes.completed.has(other!));
    await Promise.race([
      receiver.until(() => receiver.arrived.some((p) => p.webhookId === completedId)),
      outcomes.until(() => outcomes.delayed.has(completedId)),
    ]);
    overtaken();
    await outcomes.until(() => outcomes.completed.has(completedId) && [batch[0]!, ...single].every((id) => outcomes.completed.has(id!)));

    const c1 = receiver.arrived.filter((p) => p.id === 'c1').map((p) => (p.type === 'crawl.page' ? (p.data[0] as { markdown: string }).markdown : p.type));
    expect(c1).toHaveLength(6);
    expect(c1.at(-1)).toBe('crawl.completed');
    expect(c1.slice(0, 5).sort()).toEqual(['page 0', 'page 1', 'page 2', 'page 3', 'page 4']);
    expect(outcomes.delayed.has(completedId)).toBe(true);
    // Every page job settled: nothing left to hold the crawl's end.
    expect(await redis.exists(new WebhookOrder(redis, keys).key('c1'))).toBe(0);
  }, 30_000);

  it('a crawl\'s completed is not held by a page delivery that was given up', async () => {
    const { keys, queues, outcomes } = await setup();
    const sender = new WebhookSender(queues, { backoffMs: 25, attempts: 2, order: new WebhookOrder(redis, keys) });
    const receiver = await new Receiver((payload) => (payload.type === 'crawl.page' ? 503 : 200)).start();
    const config: WebhookConfig = { url: receiver.url };
    const pageId = await sender.send(TEAM, config, { type: 'crawl.page', id: 'c1' }, { pageOf: 'c1' });
    const completedId = await sender.send(TEAM, config, { type: 'crawl.completed', id: 'c1' });
    await outcomes.until(() => outcomes.completed.has(completedId!));
    expect(outcomes.failed.get(pageId!)).toMatch(/status 503/);
    expect(receiver.arrived.map((p) => p.type)).toEqual(['crawl.page', 'crawl.page', 'crawl.completed']);
  }, 30_000);

  it('waits for the Retry-After of a 429 rather than the shorter backoff', async () => {
    const { sender, outcomes } = await setup();
    const receiver = await new Receiver((_p, self) => (self.received.length === 0 ? { status: 429, headers: { 'retry-after': '1' } } : 200)).start();
    const id = await sender.send(TEAM, { url: receiver.url }, { type: 'monitor.page', id: 'm1' });
    await outcomes.until(() => outcomes.completed.has(id!));
    expect(receiver.received.map((r) => r.status)).toEqual([429, 200]);
    // The backoff alone would have retried after 25 ms.
    expect(receiver.received[1]!.at - receiver.received[0]!.at).toBeGreaterThanOrEqual(950);
  }, 30_000);
});
