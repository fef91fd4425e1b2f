import { afterAll, describe, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Document } from '@trawl/api-schema';
import { redisPerFile, waitFor } from '@trawl/testing';
import { RedisKeys } from './redis-keys.js';
import { COMPRESS_RESULT_MIN_CHARS, INLINE_RESULT_BYTES, ResultStore, type StoredResult } from './result-store.js';
import { ResultWaiter } from './result-waiter.js';

const db = redisPerFile();
const clients: Redis[] = [];
afterAll(() => {
  for (const c of clients) c.disconnect();
});

function client(): Redis {
  const c = db.redis.duplicate();
  clients.push(c);
  return c;
}

/** A store and a waiter on their own key prefix, and every announcement on its results channel. */
async function setup(opts: { compress?: boolean } = {}) {
  const keys = new RedisKeys(`t${randomUUID().slice(0, 8)}`);
  const store = new ResultStore(db.redis, keys, opts);
  const waiter = new ResultWaiter(client(), keys, store);
  await waiter.start();
  const announced: string[] = [];
  const listener = client();
  listener.on('message', (_channel: string, message: string) => announced.push(message.split('\n')[0]!));
  await listener.subscribe(keys.resultsChannel());
  /** Every announcement sent so far has arrived once this marker has (one channel, one order). */
  const flushed = async () => {
    const marker = `marker-${randomUUID()}`;
    const arrived = new Promise<void>((resolve) => listener.on('message', (_c: string, m: string) => {
      if (m === marker) resolve();
    }));
    await db.redis.publish(keys.resultsChannel(), marker);
    await arrived;
    return announced.filter((m) => !m.startsWith('marker-'));
  };
  return { store, waiter, flushed, keys };
}

function result(jobId: string): StoredResult {
  return {
    jobId, teamId: 'team-1', finishedAt: new Date().toISOString(),
    outcome: { ok: true, document: { markdown: '# hi', metadata: { sourceURL: 'http://example.test/', statusCode: 200, scrapeId: jobId } } as Document },
  };
}

describe('result store: the document JSON a caller wrote already', () => {
  it('stores exactly what it would have written itself, and a failure as it is', async () => {
    const { store, keys } = await setup();
    const plain = result(randomUUID());
    const given = { ...result(randomUUID()), finishedAt: plain.finishedAt };
    given.outcome = { ok: true, document: { ...(plain.outcome as { document: Document }).document, scrapeId: given.jobId } as Document };
    const documentJson = JSON.stringify((given.outcome as { document: Document }).document);
    await store.put(given, { zeroDataRetention: false, documentJson });
    const raw = await db.redis.get(keys.result(given.jobId));
    expect(raw).toBe(JSON.stringify(given));
    expect(await store.get(given.jobId)).toEqual(given);
    // A failed outcome ignores it (its document was never kept).
    const failed: StoredResult = { ...result(randomUUID()), outcome: { ok: false, error: { code: 'SCRAPE_FAILED', message: 'x', retryable: false } } };
    await store.put(failed, { zeroDataRetention: false, documentJson });
    expect(await db.redis.get(keys.result(failed.jobId))).toBe(JSON.stringify(failed));
  });
});

describe('result store: compressed results', () => {
  it('keeps a large result compressed, reads it back, and reads results stored as plain JSON', async () => {
    const { store, keys } = await setup({ compress: true });
    const large = result(randomUUID());
    (large.outcome as { document: Document }).document.markdown = 'Paragraphe répété, avec des accents ✓. '.repeat(200);
    const json = JSON.stringify(large);
    expect(json.length).toBeGreaterThan(COMPRESS_RESULT_MIN_CHARS);
    await store.put(large, { zeroDataRetention: false });
    const raw = await db.redis.getBuffer(keys.result(large.jobId));
    expect([...raw!.subarray(0, 2)]).toEqual([0xff, 0x01]);
    expect(raw!.length).toBeLessThan(Buffer.byteLength(json) / 2);
    expect(await store.getWithJson(large.jobId)).toEqual({ result: large, json });
    // Small and zero-data-retention results are kept as they are; so were all results before.
    const zdr = { ...large, jobId: randomUUID() };
    await store.put(zdr, { zeroDataRetention: true });
    expect(await db.redis.get(keys.result(zdr.jobId))).toBe(JSON.stringify(zdr));
    const older = { ...large, jobId: randomUUID() };
    await db.redis.set(keys.result(older.jobId), JSON.stringify(older));
    expect(await store.get(older.jobId)).toEqual(older);
    expect(await store.has(older.jobId)).toBe(true);
    expect(await store.has(randomUUID())).toBe(false);
    // A later format is refused, not misread.
    const later = randomUUID();
    await db.redis.set(keys.result(later), Buffer.from([0xff, 0x02, 1, 2, 3]));
    await expect(store.get(later)).rejects.toThrow('unknown stored result version');
  });

  it('without compression (the default), stores every result as JSON', async () => {
    const keys = new RedisKeys(`t${randomUUID().slice(0, 8)}`);
    const store = new ResultStore(db.redis, keys);
    const large = result(randomUUID());
    (large.outcome as { document: Document }).document.markdown = 'z'.repeat(COMPRESS_RESULT_MIN_CHARS * 2);
    await store.put(large, { zeroDataRetention: false, copy: store.storedCopy(large, { zeroDataRetention: false }) });
    expect(await db.redis.get(keys.result(large.jobId))).toBe(JSON.stringify(large));
  });

  it('a copy started ahead of the put (beside a charge) is what it stores; a large result handed over is stored compressed after', async () => {
    const { store, waiter, keys } = await setup({ compress: true });
    const large = result(randomUUID());
    const document = (large.outcome as { document: Document }).document;
    document.markdown = 'Texte assez long, répété. '.repeat(300);
    const documentJson = JSON.stringify(document);
    const copy = store.storedCopy(large, { zeroDataRetention: false, documentJson });
    await store.put(large, { zeroDataRetention: false, documentJson, copy });
    expect([...(await db.redis.getBuffer(keys.result(large.jobId)))!.subarray(0, 2)]).toEqual([0xff, 0x01]);
    expect(await store.getWithJson(large.jobId)).toEqual({ result: large, json: copy.json });
    expect(copy.json).toBe(JSON.stringify(large));
    store.deliverLocally(waiter);
    const handed = { ...large, jobId: randomUUID() };
    const waiting = waiter.wait(handed.jobId, 60_000, { beforeSubmit: true });
    const { retained } = await store.put(handed, { zeroDataRetention: false, handOverFirst: true });
    expect(await waiting).toBe(handed);
    await retained;
    expect([...(await db.redis.getBuffer(keys.result(handed.jobId)))!.subarray(0, 2)]).toEqual([0xff, 0x01]);
    expect(await store.get(handed.jobId)).toEqual(handed);
  });

  it('announces a compressed result as JSON, and a waiter gets it either way', async () => {
    const { store, waiter } = await setup({ compress: true });
    const large = result(randomUUID());
    // Too large to ride its announcement, and still larger than 64 KiB compressed (read off the event loop).
    (large.outcome as { document: Document }).document.markdown = randomBytes(INLINE_RESULT_BYTES).toString('base64');
    const waiting = waiter.wait(large.jobId, 60_000, { beforeSubmit: true });
    const mid = result(randomUUID());
    (mid.outcome as { document: Document }).document.markdown = 'y'.repeat(COMPRESS_RESULT_MIN_CHARS * 2);
    const waitingMid = waiter.wait(mid.jobId, 60_000, { beforeSubmit: true });
    await store.put(large, { zeroDataRetention: false });
    await store.put(mid, { zeroDataRetention: false });
    expect(await waiting).toEqual(large);
    expect(await waitingMid).toEqual(mid);
  });
});

describe('result waiter: the document JSON of an outcome read through Redis (split gateway and worker)', () => {
  it('cuts it out of the announced outcome, and out of a stored one too large to ride its announcement', async () => {
    const { store, waiter } = await setup();
    const small = result(randomUUID());
    const waitingSmall = waiter.wait(small.jobId, 60_000, { beforeSubmit: true });
    // Equal once parsed, but not as JSON.stringify writes it: the waiter must hand back this very text.
    const smallDocument = JSON.stringify((small.outcome as { document: Document }).document).replace('# hi', '\\u0023 hi');
    await store.put(small, { zeroDataRetention: false, documentJson: smallDocument });
    const gotSmall = (await waitingSmall)!;
    expect(gotSmall).toEqual(small);
    expect(waiter.documentJsonOf(gotSmall)).toBe(smallDocument);
    // Past INLINE_RESULT_BYTES the announcement names the job only: the waiter reads the store.
    const large = result(randomUUID());
    (large.outcome as { document: Document }).document.markdown = 'x'.repeat(INLINE_RESULT_BYTES);
    const waitingLarge = waiter.wait(large.jobId, 60_000, { beforeSubmit: true });
    await store.put(large, { zeroDataRetention: false });
    const gotLarge = (await waitingLarge)!;
    expect(gotLarge).toEqual(large);
    expect(waiter.documentJsonOf(gotLarge)).toBe(JSON.stringify((large.outcome as { document: Document }).document));
    // A failure has none.
    const failed: StoredResult = { ...result(randomUUID()), outcome: { ok: false, error: { code: 'SCRAPE_FAILED', message: 'x', retryable: false } } };
    const waitingFailed = waiter.wait(failed.jobId, 60_000, { beforeSubmit: true });
    await store.put(failed, { zeroDataRetention: false });
    expect(waiter.documentJsonOf((await waitingFailed)!)).toBeUndefined();
  });
});

describe('result store: reply channels', () => {
  it('announces an outcome on the channel of the waiter its job names, which hears the shared channel too', async () => {
    const { store, waiter, flushed, keys } = await setup();
    const other = new ResultWaiter(client(), keys, store);
    await other.start();
    const elsewhere: string[] = [];
    const spy = client();
    spy.on('message', (_c: string, m: string) => elsewhere.push(m.split('\n')[0]!));
    await spy.subscribe(keys.replyChannel(other.replyTo));
    const mine = randomUUID();
    const waiting = waiter.wait(mine, 60_000, { beforeSubmit: true });
    await store.put(result(mine), { zeroDataRetention: false, replyTo: waiter.replyTo });
    expect((await waiting)?.jobId).toBe(mine);
    // A producer that names no waiter (an earlier version): the shared channel, heard all the same.
    const unnamed = randomUUID();
    const waitingUnnamed = waiter.wait(unnamed, 60_000, { beforeSubmit: true });
    await store.put(result(unnamed), { zeroDataRetention: false });
    expect((await waitingUnnamed)?.jobId).toBe(unnamed);
    expect(await flushed()).toEqual([unnamed]);
    await db.redis.publish(keys.replyChannel(other.replyTo), 'marker');
    await waitFor(() => elsewhere.includes('marker'), { what: 'the marker on the other waiter\'s channel' });
    expect(elsewhere).toEqual(['marker']); // the other waiter's channel carried none of them
    other.close();
    waiter.close();
  });
});

describe('result store: in-process delivery (embedded mode)', () => {
  it('hands an outcome to a waiter of this process as the object itself, stored, and announces nothing', async () => {
    const { store, waiter, flushed } = await setup();
    store.deliverLocally(waiter);
    const jobId = randomUUID();
    const waiting = waiter.wait(jobId, 60_000, { beforeSubmit: true });
    const stored = result(jobId);
    await store.put(stored, { zeroDataRetention: false });
    expect(await waiting).toBe(stored);
    expect(await store.get(jobId)).toEqual(stored);
    expect(await flushed()).toEqual([]);
  });

  it('handOverFirst: the waiter has the outcome while its write is still held, then `retained` settles with the write', async () => {
    const { store, waiter, flushed, keys } = await setup();
    store.deliverLocally(waiter);
    const jobId = randomUUID();
    const waiting = waiter.wait(jobId, 60_000, { beforeSubmit: true });
    const stored = result(jobId);
    // Redis holds every write until unpaused (reads go on): the hand-over cannot wait for the write.
    const admin = client();
    await admin.call('CLIENT', 'PAUSE', '10000', 'WRITE');
    let retained: Promise<void> | undefined;
    try {
      ({ retained } = await store.put(stored, { zeroDataRetention: false, handOverFirst: true }));
      expect(await waiting).toBe(stored);
      expect(await admin.exists(keys.result(jobId))).toBe(0); // not written yet
    } finally {
      await admin.call('CLIENT', 'UNPAUSE');
    }
    await retained;
    expect(await store.get(jobId)).toEqual(stored);
    expect(await flushed()).toEqual([]);
  });

  it('handOverFirst: a zero-data-retention outcome, and one nobody here waits for, are handed over once written', async () => {
    const { store, waiter, flushed } = await setup();
    store.deliverLocally(waiter);
    const jobId = randomUUID();
    const waiting = waiter.wait(jobId, 60_000, { beforeSubmit: true });
    const stored = result(jobId);
    expect(await store.put(stored, { zeroDataRetention: true, handOverFirst: true })).toEqual({});
    expect(await waiting).toBe(stored);
    const elsewhere = randomUUID();
    expect(await store.put(result(elsewhere), { zeroDataRetention: false, handOverFirst: true })).toEqual({});
    expect(await flushed()).toEqual([elsewhere]);
  });

  it('handOverFirst: a write that fails after the hand-over rejects `retained`, not the put', async () => {
    const keys = new RedisKeys(`t${randomUUID().slice(0, 8)}`);
    const broken = client();
    const store = new ResultStore(broken, keys);
    const waiter = new ResultWaiter(client(), keys, store);
    await waiter.start();
    store.deliverLocally(waiter);
    const jobId = randomUUID();
    const waiting = waiter.wait(jobId, 60_000, { beforeSubmit: true });
    // The store's connection is closed: its writes fail after the hand-over.
    broken.disconnect();
    const { retained } = await store.put(result(jobId), { zeroDataRetention: false, handOverFirst: true });
    expect((await waiting)?.jobId).toBe(jobId);
    await expect(retained).rejects.toThrow();
    waiter.close();
  });

  it('announces as before an outcome nobody here waits for, and every outcome once delivery is off', async () => {
    const { store, waiter, flushed } = await setup();
    store.deliverLocally(waiter);
    const elsewhere = randomUUID();
    await store.put(result(elsewhere), { zeroDataRetention: false });
    store.deliverLocally(undefined);
    const jobId = randomUUID();
    const waiting = waiter.wait(jobId, 60_000, { beforeSubmit: true });
    const stored = result(jobId);
    await store.put(stored, { zeroDataRetention: false });
    // Through the channel: a parsed copy, not the object.
    const got = await waiting;
    expect(got).toEqual(stored);
    expect(got).not.toBe(stored);
    expect(await flushed()).toEqual([elsewhere, jobId]);
  });
});
