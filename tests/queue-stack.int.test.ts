import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { apiConfigSchema } from '@trawl/api';
import { documentSchema, scrapeOptionsSchema } from '@trawl/api-schema';
import { loadConfig } from '@trawl/config';
import { CrawlCoordinator, createQueueStack, type JobDispatcher, type QueueStack } from '@trawl/queue';
import { RedisServerFixture } from '@trawl/testing';
import { workerConfigSchema } from '@trawl/worker';

let server: RedisServerFixture;
const stacks: QueueStack[] = [];

beforeAll(async () => {
  server = await RedisServerFixture.start({ appendonly: false });
});
afterAll(async () => {
  for (const stack of stacks) await stack.close();
  await server.stop();
});

function env(extra: Record<string, string>): Record<string, string> {
  return { REDIS_URL: server.url, TRAWL_REDIS_PREFIX: `t${randomUUID().slice(0, 8)}`, ...extra };
}

function stackOf(config: Parameters<typeof createQueueStack>[0], name: string): QueueStack {
  const stack = createQueueStack(config, { connectionName: name, onWebhookError: () => undefined });
  stacks.push(stack);
  return stack;
}

describe('createQueueStack', () => {
  it('admits crawl pages in a worker with the TRAWL_BACKLOG_CAP of its config', async () => {
    const stack = stackOf(loadConfig(workerConfigSchema, env({ TRAWL_BACKLOG_CAP: '2' })), 'test-worker');
    const team = await stack.teams.create({ name: 'a', concurrency: 1 });
    const crawl = await stack.crawls.create({
      id: randomUUID(), kind: 'crawl', teamId: team.id, url: 'http://a.example/', request: { scrapeOptions: scrapeOptionsSchema.parse({ formats: ['markdown'] }) }, limit: 10, maxConcurrency: 10,
      delayMs: 0, kickoffDone: true, zeroDataRetention: false, retentionSec: 60,
    });
    const pages = [1, 2, 3, 4, 5, 6].map((n) => ({ key: `k${n}`, url: `http://a.example/${n}`, depth: 1 }));
    expect((await stack.crawls.enqueue(crawl.id, pages)).accepted).toBe(6);
    // The worker's coordinator starts all six (the crawl allows ten at once): one runs, two wait, the
    // team's backlog is full for the other three, which stay in the crawl for the watchdog.
    await stack.coordinator.pump(crawl.id);
    expect(await stack.dispatcher.counts(team.id)).toEqual({ active: 1, waiting: 2 });
  });

  it('builds the same admission from the API config and the worker config of one environment', () => {
    const shared = env({ TRAWL_BACKLOG_CAP: '7', TRAWL_RESULT_RETENTION_SEC: '120' });
    const api = stackOf(loadConfig(apiConfigSchema, shared), 'test-api');
    const worker = stackOf(loadConfig(workerConfigSchema, shared), 'test-worker');
    expect(worker.admission.backlogCap).toBe(7);
    expect({ cap: worker.admission.backlogCap, checkAfterMs: worker.admission.checkAfterMs, prefix: worker.keys.bullPrefix('scrape') })
      .toEqual({ cap: api.admission.backlogCap, checkAfterMs: api.admission.checkAfterMs, prefix: api.keys.bullPrefix('scrape') });
  });
});

describe('the crawl watchdog', () => {
  /** A one-page crawl whose page is in flight, and a watchdog that finds it stale at once. */
  async function stalePage(liveState: (jobId: string) => Promise<'live' | 'ended' | 'lost'>) {
    const stack = stackOf(loadConfig(workerConfigSchema, env({})), 'test-watchdog');
    const team = await stack.teams.create({ name: 'w', concurrency: 1 });
    const crawl = await stack.crawls.create({
      id: randomUUID(), kind: 'crawl', teamId: team.id, url: 'http://a.example/', request: { scrapeOptions: scrapeOptionsSchema.parse({ formats: ['markdown'] }) }, limit: 1, maxConcurrency: 1,
      delayMs: 0, kickoffDone: true, zeroDataRetention: false, retentionSec: 60,
    });
    await stack.crawls.enqueue(crawl.id, [{ key: 'k1', url: 'http://a.example/1', depth: 0 }]);
    const [page] = (await stack.crawls.pump(crawl.id)).pages;
    // The real dispatcher, but for what it says of the page's job.
    const dispatcher = Object.assign(Object.create(stack.dispatcher) as JobDispatcher, {
      liveState: (_teamId: string, jobId: string) => liveState(jobId),
      stalledOut: async () => false,
    });
    const watchdog = new CrawlCoordinator(stack.crawls, dispatcher, stack.queues, stack.notify, { staleAfterMs: 0 });
    return { stack, crawl, page: page!, watchdog };
  }

  it('records a page whose job ended without a result as failed', async () => {
    const { stack, crawl, page, watchdog } = await stalePage(async () => 'ended');
    expect(await watchdog.watch({ intervalMs: 1000 })).toEqual([{ crawlId: crawl.id, jobId: page.jobId, action: 'failed' }]);
    expect((await stack.crawls.errors(crawl.id)).errors).toMatchObject([{ url: 'http://a.example/1', code: 'SCRAPE_FAILED' }]);
  });

  it('reports nothing for a page its own job recorded after the pass read the pages in flight', async () => {
    // After Redis was away every page in flight is stale: the pass reads them, and jobs that run on
    // record theirs meanwhile.
    let recordPage = async (): Promise<void> => undefined;
    const { stack, crawl, page, watchdog } = await stalePage(async () => {
      await recordPage();
      return 'ended';
    });
    const document = documentSchema.parse({ metadata: { sourceURL: page.url, statusCode: 200 } });
    recordPage = async () => {
      await stack.crawls.pageDone(crawl.id, page.jobId, { kind: 'doc', document, creditsUsed: 1 });
    };
    expect(await watchdog.watch({ intervalMs: 1000 })).toEqual([]);
    expect((await stack.crawls.errors(crawl.id)).errors).toEqual([]);
    expect((await stack.crawls.get(crawl.id))!.completed).toBe(1);
  });
});
