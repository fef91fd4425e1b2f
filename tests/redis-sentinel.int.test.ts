import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { closeRedisClient, createRedisClient } from '@trawl/queue';
import { FixtureSite, RedisSentinelFixture, waitFor } from '@trawl/testing';
import { Redis } from 'ioredis';
import { TestCluster } from './helpers/cluster.js';

const ROOT = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');

/**
 * The whole system on Redis behind Sentinel (`REDIS_SENTINELS`, `REDIS_SENTINEL_NAME`): scrapes and
 * crawls run; and when the primary freezes (SIGSTOP: its connections stay open, nothing answers) and
 * the Sentinel fails over to the replica, every client reconnects to the new primary (ioredis'
 * failover detector, subscribed to `+switch-master`) and the cluster serves again while the old
 * primary is still frozen. Before, every client waited on the frozen primary until TCP gave up,
 * minutes later. The Sentinel also watches another deployment's master: its failovers leave
 * Trawl's connections alone.
 */
const page = (name: string) => `<html><head><title>${name}</title></head><body><main><p>Page ${name}, served while Redis fails over.</p><a href="/b">b</a></main></body></html>`;

let site: FixtureSite;
let sentinel: RedisSentinelFixture;
let cluster: TestCluster;

beforeAll(async () => {
  site = new FixtureSite();
  for (const name of ['a', 'b', 'c', 'd']) site.page(`/${name}`, page(name));
  site.page('/', '<html><head><title>home</title></head><body><main><p>The home page of the site.</p><a href="/a">a</a> <a href="/b">b</a></main></body></html>');
  await site.start();
  sentinel = await RedisSentinelFixture.start({ otherMaster: true });
  cluster = await TestCluster.start(
    { REDIS_SENTINELS: sentinel.sentinels.join(','), REDIS_SENTINEL_NAME: sentinel.name },
    { redisUrl: sentinel.primaryUrl },
  );
}, 60_000);

afterAll(async () => {
  sentinel?.resumePrimary();
  await cluster?.stop();
  await sentinel?.stop();
}, 30_000);

const scrape = (path: string, signal?: AbortSignal) =>
  cluster.call('POST', '/v2/scrape', { body: { url: site.url(path), maxAge: 0, timeout: 10_000 }, ...(signal ? { signal } : {}) });

describe('Redis behind Sentinel', () => {
  it('scrapes and crawls', async () => {
    const r = await scrape('/a');
    expect(r.status).toBe(200);
    expect(r.body.data.markdown).toContain('Page a, served while Redis fails over.');
    const crawl = await cluster.call('POST', '/v2/crawl', { body: { url: site.url('/'), limit: 5 } });
    expect(crawl.status).toBe(200);
    await waitFor(async () => (await cluster.call('GET', `/v2/crawl/${crawl.body.id}`)).body.status === 'completed', { what: 'the crawl to complete', timeoutMs: 30_000 });
    expect((await cluster.call('GET', `/v2/crawl/${crawl.body.id}`)).body.completed).toBe(3);
  }, 60_000);

  it('stays connected when the Sentinel fails over another master it watches', async () => {
    // ioredis' failover detector took any master's +switch-master as its own and reconnected every
    // client (patches/ioredis@5.11.1.patch reads the master's name).
    const client = createRedisClient({ sentinels: sentinel.sentinels, sentinelName: sentinel.name });
    const [host, port] = sentinel.sentinels[0]!.split(':');
    const watcher = new Redis({ host, port: Number(port) });
    try {
      await client.ping();
      const id = await client.client('ID');
      let closed = 0;
      client.on('close', () => { closed += 1; });
      // The detector's own connection to the Sentinel, subscribed: a PING answered on it comes after
      // every message sent to it before (one connection, in order).
      const detectorConnections = (): Redis[] => {
        const detector = (client as unknown as { connector: { failoverDetector?: { sentinels: Array<{ client: Redis }> } } }).connector.failoverDetector;
        return detector?.sentinels.map((s) => s.client) ?? [];
      };
      await waitFor(() => detectorConnections().some((c) => c.mode === 'subscriber'), { what: "the client's failover detector to subscribe", timeoutMs: 10_000, intervalMs: 50 });
      let heard = false;
      watcher.on('message', (_channel: string, message: string) => {
        if (message.startsWith(`${sentinel.otherName} `)) heard = true;
      });
      await watcher.subscribe('+switch-master');

      await sentinel.failOverOther();
      await waitFor(() => heard, { what: `the Sentinel to announce ${sentinel.otherName}'s new primary`, timeoutMs: 30_000, intervalMs: 50 });
      await Promise.all(detectorConnections().map((c) => c.ping()));

      expect(closed).toBe(0);
      expect(await client.client('ID')).toBe(id);
    } finally {
      watcher.disconnect();
      await closeRedisClient(client);
    }
  }, 60_000);

  it('serves again once the Sentinel has failed a frozen primary over, the old one still frozen', async () => {
    const before = await sentinel.pausePrimary();
    try {
      await waitFor(async () => {
        const r = await scrape('/c', AbortSignal.timeout(2000)).catch(() => undefined);
        return r?.status === 200;
      }, { what: 'a scrape answered after the failover', timeoutMs: 45_000, intervalMs: 250 });
      expect(await sentinel.currentPrimaryPort()).not.toBe(before);
      // The worker and the API both moved: a scrape goes through admission, the queue and the result store.
      const r = await scrape('/d');
      expect(r.status).toBe(200);
      expect(r.body.data.markdown).toContain('Page d');
    } finally {
      sentinel.resumePrimary();
    }
  }, 90_000);

  // Last: the Sentinel does not come back.
  it('keeps quiet while the Sentinel is down: the failover detector retries it without printing errors', async () => {
    // Each failed attempt of the detector's connection to a Sentinel went unheard, and ioredis printed
    // it to stderr ("[ioredis] Unhandled error event"), for every client every few seconds (patched:
    // logged for DEBUG=ioredis:* only). A client in a process of its own, whose stderr is read.
    const dir = mkdtempSync(join(tmpdir(), 'trawl-sentinel-client-'));
    const script = join(dir, 'client.mjs');
    writeFileSync(script, `
      const { createRedisClient, closeRedisClient } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'packages/queue/dist/index.js')).href)});
      const client = createRedisClient({ sentinels: ${JSON.stringify(sentinel.sentinels)}, sentinelName: ${JSON.stringify(sentinel.name)} });
      await client.ping();
      // Until the detector's connection to the Sentinel has subscribed.
      while (!client.connector.failoverDetector?.sentinels.some((s) => s.client.mode === 'subscriber')) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      let retries = 0;
      // The second retry is scheduled once the first one failed (its connection refused).
      client.on('sentinelReconnecting', async () => {
        if (++retries !== 2) return;
        console.log('retried', await client.ping());
        await closeRedisClient(client);
      });
      console.log('subscribed');
    `);
    const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    // 'close': the process has exited and its output has all been read.
    let code: number | null | undefined;
    child.once('close', (exitCode) => { code = exitCode; });
    try {
      await waitFor(() => stdout.includes('subscribed') || code !== undefined, { what: 'the client to subscribe', timeoutMs: 20_000, intervalMs: 50 });
      if (code !== undefined) throw new Error(`the client ended before subscribing (exit code ${code}): ${stderr}`);
      await sentinel.stopSentinel();
      await waitFor(() => code !== undefined, { what: 'the client to retry twice and end', timeoutMs: 30_000, intervalMs: 50 });

      expect({ code, stdout }).toEqual({ code: 0, stdout: 'subscribed\nretried PONG\n' });
      expect(stderr).not.toContain('Unhandled error event');
      expect(stderr).not.toContain('ECONNREFUSED');
    } finally {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
