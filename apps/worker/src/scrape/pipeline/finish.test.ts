import { describe, expect, it } from '@jest/globals';
import type { Document } from '@trawl/api-schema';
import { createLogger } from '@trawl/observability';
import type { ScrapeJob } from '@trawl/queue';
import { finishJob } from './finish.js';

type Deps = Parameters<typeof finishJob>[0];

/** Stand-ins of the ledger, the result store and the dispatcher that record what was asked of them, in order. */
function recordingDeps(events: string[]): Deps {
  return {
    credits: { charge: async (_team: string, amount: number) => { events.push(`charge ${amount}`); return amount; } },
    results: { put: async () => { events.push('put'); return {}; } },
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

/** Writes that end a tick after they start, recording when they are done. */
function pendingWrites(events: string[]): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve)).then(() => { events.push('cache written'); });
}

describe('finishJob', () => {
  it('sends the charge while the cache writes are in flight, and stores the outcome only after both', async () => {
    const events: string[] = [];
    const document: Document = { metadata: { statusCode: 200, creditsUsed: 1 } } as Document;
    await finishJob(recordingDeps(events), job, { ok: true, document }, log, { finalUrl: 'https://example.com/', pending: pendingWrites(events) });
    expect(events).toEqual(['charge 1', 'cache written', 'put', 'release']);
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
    await finishJob(deps, page, { ok: true, document }, log, { finalUrl: 'https://example.com/' });
    expect(events).toEqual(['recorded', 'charge 1 sent', 'release', 'charged']);
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
    await finishJob(recordingDeps(events), job, { ok: true, document }, log, { finalUrl: 'https://example.com/', pending: pendingWrites(events) });
    expect(events).toEqual(['cache written', 'put', 'release']);
  });
});
