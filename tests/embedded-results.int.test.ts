import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { Redis } from 'ioredis';
import { FixtureSite, RedisMonitor, waitFor } from '@trawl/testing';
import { BOOT_KEY, TestCluster } from './helpers/cluster.js';

// Embedded mode (`npm start`: apps/cli/src/embedded.ts) wires the API to its in-process worker as
// here: the worker runs what the API admits, and hands the outcome to the waiting request in-process.
let cluster: TestCluster;
let site: FixtureSite;
let listener: Redis;
const announced: string[] = [];
/** Outcomes announced on a waiter's own channel (`<prefix>:results:to:<id>`), as `<channel>\t<jobId>`. */
const replied: string[] = [];
let channel: string;

beforeAll(async () => {
  site = new FixtureSite()
    .page('/article', '<html><head><title>Local outcome</title></head><body><main><p>A page whose outcome never crosses the results channel.</p></main></body></html>');
  for (let i = 0; i < 5; i++) site.page(`/again-${i}`, `<html><head><title>Again ${i}</title></head><body><main><p>Page ${i}, asked for twice in a row.</p></main></body></html>`);
  await site.start();
  cluster = await TestCluster.start();
  const worker = cluster.worker!;
  cluster.api.runLocally(worker.localRunner, { results: worker.results, pageCache: worker.pageCache });
  channel = `${cluster.env.TRAWL_REDIS_PREFIX ?? 'trawl'}:results`;
  listener = new Redis(cluster.env.REDIS_URL!);
  listener.on('message', (_c: string, m: string) => announced.push(m.split('\n')[0]!));
  listener.on('pmessage', (_p: string, c: string, m: string) => replied.push(`${c}\t${m.split('\n')[0]!}`));
  await listener.subscribe(channel);
  await listener.psubscribe(`${channel}:to:*`);
});
// Each test starts embedded, as `npm start` runs (some switch to a gateway in its own process).
afterEach(() => {
  const worker = cluster.worker!;
  cluster.api.runLocally(worker.localRunner, { results: worker.results, pageCache: worker.pageCache });
});
afterAll(async () => {
  listener.disconnect();
  await cluster.stop();
  await site.stop();
}, 30_000);

/** Every announcement published so far, once a marker published after them has arrived. */
async function announcedSoFar(): Promise<string[]> {
  const marker = `marker-${randomUUID()}`;
  const arrived = new Promise<void>((resolve) => listener.on('message', (_c: string, m: string) => {
    if (m === marker) resolve();
  }));
  await cluster.redis.publish(channel, marker);
  await arrived;
  return announced.filter((m) => !m.startsWith('marker-'));
}

/**
 * `POST /v2/scrape` of the article, the document JSON the worker gives its store rewritten by
 * `mark` (a marker in it shows which text the answer sends): the answer's status, type and text.
 */
async function scrapeMarked(mark: (documentJson: string) => string): Promise<{ status: number; type: string | null; text: string }> {
  const results = cluster.worker!.results;
  const put = results.put.bind(results);
  const storedCopy = results.storedCopy.bind(results);
  results.put = ((result, opts) => put(result, opts.documentJson === undefined ? opts : { ...opts, documentJson: mark(opts.documentJson) })) as typeof results.put;
  // An outcome for a gateway elsewhere is stored (and announced) from the copy started before its put.
  results.storedCopy = ((result, opts) => storedCopy(result, opts.documentJson === undefined ? opts : { ...opts, documentJson: mark(opts.documentJson) })) as typeof results.storedCopy;
  try {
    const res = await fetch(`${cluster.api.url}/v2/scrape`, {
      method: 'POST', headers: { authorization: `Bearer ${BOOT_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: site.url('/article'), formats: ['markdown'], maxAge: 0 }),
    });
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  } finally {
    results.put = put;
    results.storedCopy = storedCopy;
  }
}

describe('embedded mode: a sync scrape\'s outcome reaches its request in-process', () => {
  it('answers without announcing the outcome on the results channel, and stores it for GET /v2/scrape/:id', async () => {
    const res = await cluster.call('POST', '/v2/scrape', { body: { url: site.url('/article'), formats: ['markdown'], maxAge: 0 } });
    expect(res.status).toBe(200);
    const data = (res.body as { data: { markdown: string; metadata: { scrapeId: string } } }).data;
    expect(data.markdown).toContain('never crosses the results channel');
    expect(await announcedSoFar()).toEqual([]);
    const got = await cluster.call('GET', `/v2/scrape/${data.metadata.scrapeId}`);
    expect(got.status).toBe(200);
    expect((got.body as { data: { markdown: string } }).data.markdown).toBe(data.markdown);
  });

  it('answers with the JSON the worker wrote for the document (measured and stored), as res.json would write it', async () => {
    const { status, type, text } = await scrapeMarked((json) => json.replace(/^\{/, '{"viaJson":true,'));
    expect(status).toBe(200);
    expect(type).toBe('application/json; charset=utf-8');
    const body = JSON.parse(text) as { success: boolean; data: { viaJson?: boolean; markdown: string; metadata: { scrapeId: string } } };
    expect(body.data.viaJson).toBe(true);
    expect(body.data.markdown).toContain('never crosses the results channel');
    // The same text as the stored document, written out whole: nothing was dropped or reordered.
    // Written right after the answer.
    const stored = await waitFor(() => cluster.worker!.results.get(body.data.metadata.scrapeId), { timeoutMs: 5000, what: 'the stored outcome' });
    expect(text).toBe(JSON.stringify({ success: true, data: (stored.outcome as { document: unknown }).document }));
  });

  it('reads nothing a fresh run already knows: no credit read after the rate limit\'s, no start reads in the worker', async () => {
    const t = await cluster.team({ credits: 100 });
    const url = site.url('/article');
    expect((await cluster.call('POST', '/v2/scrape', { key: t.key, body: { url, formats: ['markdown'], maxAge: 0 } })).status).toBe(200); // key remembered
    const { host, port } = cluster.redis.options;
    const monitor = await RedisMonitor.start(host!, port!);
    const commands: string[] = [];
    const marker = `end-${t.id}`;
    const seen = new Promise<void>((resolve) => {
      monitor.on(({ args, source }) => {
        if (args[0]?.toLowerCase() === 'echo' && args[1] === marker) resolve();
        else if (source !== 'lua') commands.push(args[0]!.toLowerCase());
      });
    });
    const res = await cluster.call('POST', '/v2/scrape', { key: t.key, body: { url, formats: ['markdown'], maxAge: 0 } });
    expect(res.status).toBe(200);
    expect((res.body as { data: { metadata: { creditsUsed: number } } }).data.metadata.creditsUsed).toBe(1);
    await cluster.redis.echo(marker);
    await seen;
    monitor.stop();
    // Before: HMGET of the credits (gateway), HGET of the disabled flag, EXISTS of the cancel mark and
    // GET of the result (worker). What is left are scripts and writes.
    expect(commands.filter((c) => ['hmget', 'hget', 'exists', 'get', 'mget'].includes(c))).toEqual([]);
    expect(commands).toContain('evalsha');
  });

  it('writes a page\'s cache entries after its outcome is handed over; the same request sent at once is still a hit at the gateway', async () => {
    const results = cluster.worker!.results;
    const pages = cluster.worker!.pageCache!;
    const events: string[] = [];
    const put = results.put.bind(results);
    const putEncoded = pages.putEncoded.bind(pages);
    const putDerived = pages.putDerived.bind(pages);
    const encode = pages.encode.bind(pages);
    // A page whose compression is held until the follow-up request has read its team (the last round
    // trip before the gateway's cache lookup): its cache writes are still under way then, so only the
    // lookup's wait for them makes the follow-up a hit at the gateway.
    let compress: () => void = () => undefined;
    pages.encode = ((...args) => new Promise<void>((resolve) => { compress = resolve; }).then(() => encode(...args))) as typeof pages.encode;
    const onHop = ({ hop }: { hop: string }) => {
      if (hop === 'gateway:auth+rate-limit') compress();
    };
    subscribe('trawl:hop', onHop as (message: unknown) => void);
    results.put = ((...args) => {
      events.push('outcome');
      return put(...args);
    }) as typeof results.put;
    /** Records when a write goes out: once its `after` settled (it is registered, for readers, from the call on). */
    const sent = (name: string, after: Promise<unknown> | undefined) => {
      if (after) void after.then(() => events.push(name));
      else events.push(name);
    };
    pages.putEncoded = ((key, page, opts) => {
      sent('page', opts?.after);
      return putEncoded(key, page, opts);
    }) as typeof pages.putEncoded;
    pages.putDerived = ((key, hash, entry, opts) => {
      sent('formats', opts?.after);
      return putDerived(key, hash, entry, opts);
    }) as typeof pages.putDerived;
    try {
      for (let i = 0; i < 5; i++) {
        events.length = 0;
        const url = site.url(`/again-${i}`);
        const first = await cluster.call('POST', '/v2/scrape', { body: { url, formats: ['markdown'] } });
        expect(first.body.data.metadata.cacheState).toBe('miss');
        await waitFor(() => events.length === 3, { timeoutMs: 5000, what: 'the cache writes to go out' });
        expect(events).toEqual(['outcome', 'page', 'formats']);
        const again = await cluster.call('POST', '/v2/scrape', { body: { url, formats: ['markdown'] } });
        expect(again.body.data.metadata).toMatchObject({ cacheState: 'hit', title: `Again ${i}` });
        expect(again.body.data.markdown).toBe(first.body.data.markdown);
        expect(site.hits.get(`/again-${i}`)).toBe(1);
        // Answered by the gateway: no worker ran it (it would have stored an outcome).
        expect(events).toEqual(['outcome', 'page', 'formats']);
      }
    } finally {
      results.put = put;
      pages.putEncoded = putEncoded;
      pages.putDerived = putDerived;
      pages.encode = encode;
      unsubscribe('trawl:hop', onHop as (message: unknown) => void);
    }
  });

  it('with the worker\'s store not handed over (a gateway in its own process), the outcome is announced to that gateway alone', async () => {
    cluster.api.runLocally(cluster.worker!.localRunner);
    cluster.worker!.results.deliverLocally(undefined);
    const res = await cluster.call('POST', '/v2/scrape', { body: { url: site.url('/article'), formats: ['markdown'], maxAge: 0 } });
    expect(res.status).toBe(200);
    const { scrapeId } = (res.body as { data: { metadata: { scrapeId: string } } }).data.metadata;
    // Not on the shared channel, which every gateway and worker hears: on the submitting waiter's own.
    expect(await announcedSoFar()).not.toContain(scrapeId);
    const to = replied.filter((r) => r.endsWith(`\t${scrapeId}`));
    expect(to).toHaveLength(1);
    expect(to[0]).toMatch(new RegExp(`^${channel}:to:[0-9a-f-]{36}\t`));
  });

  it('a gateway in its own process answers with the document JSON the worker wrote, cut out of the announced outcome', async () => {
    cluster.api.runLocally(cluster.worker!.localRunner);
    cluster.worker!.results.deliverLocally(undefined);
    // Equal to the document once parsed, but not as JSON.stringify writes it: only the worker's own
    // text, passed through, keeps the escape.
    const { status, type, text } = await scrapeMarked((json) => json.replace(/^\{/, '{"viaJson":"\\u0041",'));
    expect(status).toBe(200);
    expect(type).toBe('application/json; charset=utf-8');
    expect(text.startsWith('{"success":true,"data":{"viaJson":"\\u0041",')).toBe(true);
    const body = JSON.parse(text) as { data: { viaJson: string; markdown: string } };
    expect(body.data.viaJson).toBe('A');
    expect(body.data.markdown).toContain('never crosses the results channel');
  });
});
