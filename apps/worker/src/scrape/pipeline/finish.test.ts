import { describe, expect, it } from '@jest/globals';
import type { Document } from '@trawl/api-schema';
import { createLogger } from '@trawl/observability';
import type { ScrapeJob } from '@trawl/queue';
import type { CacheWrites } from '../../cache/cache-step.js';
import { finishJob } from './finish.js';

type Deps = Parameters<typeof finishJob>[0];

/** The result store's copy started ahead of a put: its JSON, as it is. */
function storedCopy(result: unknown): { json: string; value: Promise<string> } {
  const json = JSON.stringify(result);
  return { json, value: Promise.resolve(json) };
}

/** Stand-ins of the ledger, the result store and the dispatcher that record what was asked of them, in order. */
function recordingDeps(events: string[]): Deps {
  return {
    credits: { charge: async (_team: string, amount: number) => { events.push(`charge ${amount}`); return amount; } },
    results: {
      put: async (_result: unknown, opts: { copy?: { json: string } }) => { events.push(opts.copy ? `put ${opts.copy.json.length}` : 'put'); return {}; },
      handsOverFirst: () => false,
      storedCopy,
    },
    dispatcher: { release: async () => { events.push('release'); return true; } },
    documentBodies: { delete: async () => undefined },
    crawlPages: {},
    maxResultBytes: 10_000_000,
    now: () => 0,
  } as unknown as Deps;
}

const job: ScrapeJob = {
  v: 1, jobId: '00000000-0000-4000-8000-000000000001', teamId: 'team', mode: 'sync', deadline: 0, zeroDataRetention: false,
  request: { url: 'https://example.com/' } as ScrapeJob['request'],
};
const log = createLogger({ role: 'test', level: 'silent' });

/**
 * Cache writes that are registered when called, go out once their `after` settles and end a tick
 * later, recording each of these (and the JSON they were given).
 */
function cacheWrites(events: string[], json?: string[], started?: Promise<void>[]): CacheWrites {
  return (documentJson, after) => {
    events.push('cache writes registered');
    json?.push(documentJson ?? 'none');
    const writes = Promise.resolve(after)
      .then(() => { events.push('cache writes sent'); })
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(() => { events.push('cache written'); });
    started?.push(writes);
    return writes;
  };
}

describe('finishJob', () => {
  it('sends the charge while the cache writes are in flight, and stores the outcome only after both', async () => {
    const events: string[] = [];
    const document: Document = { metadata: { statusCode: 200, creditsUsed: 1 } } as Document;
    const json: string[] = [];
    await finishJob(recordingDeps(events), job, { ok: true, document }, log, { finalUrl: 'https://example.com/', cacheWrites: cacheWrites(events, json) });
    // Stored from the copy started with the charge (the outcome's JSON, prepared before it).
    const stored = JSON.stringify({ jobId: job.jobId, teamId: job.teamId, finishedAt: new Date(0).toISOString(), outcome: { ok: true, document } });
    expect(events).toEqual(['cache writes registered', 'charge 1', 'cache writes sent', 'cache written', `put ${stored.length}`, 'release']);
    expect(json).toEqual([JSON.stringify(document)]);
  });

  it('an outcome handed over first: its cache writes go out once it is answered, and the job ends after them', async () => {
    const events: string[] = [];
    const json: string[] = [];
    const deps = {
      ...recordingDeps(events),
      results: {
        storedCopy,
        handsOverFirst: (jobId: string, opts: { zeroDataRetention: boolean }) => jobId === job.jobId && !opts.zeroDataRetention,
        put: async () => {
          events.push('handed over');
          // The caller's answer, written in the microtasks that follow the hand-over.
          void Promise.resolve().then(() => Promise.resolve()).then(() => events.push('answered'));
          return { retained: Promise.resolve() };
        },
      },
    } as unknown as Deps;
    const document: Document = { metadata: { statusCode: 200, creditsUsed: 1 } } as Document;
    await finishJob(deps, job, { ok: true, document }, log, { finalUrl: 'https://example.com/', cacheWrites: cacheWrites(events, json) });
    events.push('finished');
    // Registered first (reads in this process wait for them), sent once the answer is written.
    expect(events.slice(0, 3)).toEqual(['cache writes registered', 'charge 1', 'handed over']);
    expect(events.indexOf('answered')).toBeLessThan(events.indexOf('cache writes sent'));
    expect(events.slice(-2)).toEqual(['cache written', 'finished']);
    expect(json).toEqual([JSON.stringify(document)]);

    // Zero data retention is never handed over first (nor stored in the cache): the order is the old one.
    events.length = 0;
    await finishJob(deps, { ...job, zeroDataRetention: true }, { ok: true, document }, log, { finalUrl: 'https://example.com/', cacheWrites: cacheWrites(events) });
    expect(events.slice(0, 5)).toEqual(['cache writes registered', 'charge 1', 'cache writes sent', 'cache written', 'handed over']);

    // A charge that fails fails the job, and the page is cached all the same.
    events.length = 0;
    const failing = { ...deps, credits: { charge: async () => { throw new Error('Redis away'); } } } as unknown as Deps;
    const started: Promise<void>[] = [];
    await expect(finishJob(failing, job, { ok: true, document }, log, { finalUrl: 'https://example.com/', cacheWrites: cacheWrites(events, undefined, started) })).rejects.toThrow('Redis away');
    await Promise.all(started);
    expect(events).toEqual(['cache writes registered', 'cache writes sent', 'cache written']);
  });

  it('a crawl page: recorded first, then its charge and the release go out together', async () => {
    const events: string[] = [];
    const deps = {
      ...recordingDeps(events),
      credits: {
        charge: async (_team: string, amount: number) => {
          events.push(`charge ${amount} sent`);
          await new Promise<void>((resolve) => setImmediate(resolve));
          events.push('charged');
          return amount;
        },
      },
      crawlPages: {
        record: async (_job: unknown, _url: unknown, _result: unknown, _log: unknown, charge?: () => Promise<unknown>) => {
          events.push('recorded');
          return { billed: true, charged: charge?.() };
        },
      },
    } as unknown as Deps;
    const page: ScrapeJob = { ...job, mode: 'async', crawl: { id: 'c', kind: 'crawl', depth: 0 } };
    const document: Document = { metadata: { statusCode: 200, creditsUsed: 1 } } as Document;
    await finishJob(deps, page, { ok: true, document }, log, { finalUrl: 'https://example.com/', cacheWrites: cacheWrites(events) });
    events.push('finished');
    // The cache writes, sent first, are not awaited by the record: they end with the charge and the release.
    expect(events.slice(0, 3)).toEqual(['cache writes registered', 'recorded', 'charge 1 sent']);
    expect(events.slice(3).sort()).toEqual(['cache writes sent', 'cache written', 'charged', 'finished', 'release']);
    expect(events.indexOf('release')).toBeLessThan(events.indexOf('charged'));
    expect(events.at(-1)).toBe('finished');
  });

  it('a crawl page: unrequested links are dropped before it is measured, and its JSON is what the crawl stores', async () => {
    let given: { document: Document; documentJson?: string } | undefined;
    const deps = {
      ...recordingDeps([]),
      maxResultBytes: 60, // over this with its links, under it without
      crawlPages: {
        record: async (_job: unknown, _url: unknown, result: { document: Document; documentJson?: string }) => {
          given = result;
          return { billed: false };
        },
      },
    } as unknown as Deps;
    const page: ScrapeJob = { ...job, mode: 'async', crawl: { id: 'c', kind: 'crawl', depth: 0 } };
    const links = Array.from({ length: 10 }, (_, i) => `https://example.com/${i}`);
    const document = { metadata: { statusCode: 200 }, links } as unknown as Document;
    await finishJob(deps, page, { ok: true, document }, log, { finalUrl: 'https://example.com/', links });
    expect(given?.document.links).toBeUndefined();
    expect(given?.documentJson).toBe(JSON.stringify({ metadata: { statusCode: 200 } }));
  });

  it('an outcome handed over before it is written: released once the write ends, whose failure does not fail the job', async () => {
    const events: string[] = [];
    let opts: unknown;
    const deps = {
      ...recordingDeps(events),
      results: {
        handsOverFirst: () => true,
        put: async (_result: unknown, o: unknown) => {
          opts = o;
          events.push('handed over');
          const retained = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
            events.push('write failed');
            throw new Error('Redis away');
          });
          return { retained };
        },
      },
    } as unknown as Deps;
    const document: Document = { metadata: { statusCode: 200, creditsUsed: 1 } } as Document;
    await finishJob(deps, job, { ok: true, document }, log, { finalUrl: 'https://example.com/' });
    events.push('finished');
    // The document's JSON, written to measure it, goes with it (stored as it is).
    expect(opts).toEqual({ zeroDataRetention: false, handOverFirst: true, documentJson: JSON.stringify(document) });
    expect(events).toEqual(['charge 1', 'handed over', 'write failed', 'release', 'finished']);
  });

  it('stores the outcome after the cache writes when there is nothing to charge', async () => {
    const events: string[] = [];
    const document: Document = { metadata: { statusCode: 200, creditsUsed: 0 } } as Document;
    await finishJob(recordingDeps(events), job, { ok: true, document }, log, { finalUrl: 'https://example.com/', cacheWrites: cacheWrites(events) });
    expect(events.map((e) => e.replace(/^put \d+$/, 'put'))).toEqual(['cache writes registered', 'cache writes sent', 'cache written', 'put', 'release']);
  });
});
