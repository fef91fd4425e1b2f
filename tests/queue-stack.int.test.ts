import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { apiConfigSchema } from '@trawl/api';
import { scrapeOptionsSchema } from '@trawl/api-schema';
import { loadConfig } from '@trawl/config';
import { createQueueStack, type QueueStack } from '@trawl/queue';
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
