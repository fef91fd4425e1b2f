import { describe, expect, it } from '@jest/globals';
import { scrapeRequestSchema, type Document } from '@trawl/api-schema';
import { createLogger, createMetricsRegistry } from '@trawl/observability';
import type { CachedPage, EncodedPage, PageCache } from '@trawl/queue';
import { deferText, undecodedUtf8, type FetchResult } from '@trawl/scrape-engine';
import type { PageSource } from '../convert/page-source.js';
import { createWorkerMetrics } from '../worker-metrics.js';
import { cacheablePage } from '../scrape/fetch/http-stage.js';
import { CacheStep } from './cache-step.js';

const log = createLogger({ role: 'test', level: 'silent' });

/** A fetched page whose bytes the fetch kept (FetchResult.utf8), as the http stage builds it. */
function fetched(status = 200): PageSource {
  const body = '<p>héllo ✓</p>';
  const bytes = Buffer.from(body, 'utf8');
  const page = {
    requestedUrl: 'http://a.example/', url: 'http://a.example/', statusCode: status, headers: {}, contentType: 'text/html',
    kind: 'html', charset: 'utf-8', text: body, utf8: bytes, redirects: [], timings: { ttfbMs: 1, totalMs: 1 },
  } as FetchResult;
  const cacheable: CachedPage = {
    kind: 'page', url: page.url, statusCode: status, contentType: 'text/html', contentKind: 'html', charset: 'utf-8',
    cachedAt: 1, engine: 'http', proxyUsed: 'basic', body, bodyUtf8: bytes,
  };
  return { engine: 'http', page, proxyUsed: 'basic', creditsUsed: 1, cacheable };
}

/**
 * A cache that records what it was given to encode, as it was when given: PageCache.encode reads the
 * page (and copies its bytes) before it returns. Its `body` is not read when the bytes are there.
 */
function step(): { cacheStep: CacheStep; encoded: { page: CachedPage; bodyUtf8: Buffer | undefined }[] } {
  const encoded: { page: CachedPage; bodyUtf8: Buffer | undefined }[] = [];
  const cache = {
    encode: (p: CachedPage): Promise<EncodedPage> => {
      encoded.push({ page: p, bodyUtf8: p.bodyUtf8 });
      return Promise.resolve({ value: Buffer.alloc(0), stamp: String(p.cachedAt) });
    },
  } as unknown as PageCache;
  const metrics = createWorkerMetrics(createMetricsRegistry({ role: 'test' }));
  return { cacheStep: new CacheStep({ cache, shared: true, blobUrlTtlSec: 60, metrics }), encoded };
}

describe('CacheStep.prepare', () => {
  it('encodes a page from the bytes the fetch kept, and the job keeps them no longer', () => {
    const { cacheStep, encoded } = step();
    const source = fetched();
    const bytes = source.page.utf8;
    cacheStep.prepare(scrapeRequestSchema.parse({ url: 'http://a.example/' }), source);
    expect(encoded).toHaveLength(1);
    expect(encoded[0]!.bodyUtf8).toBe(bytes);
    expect(source.page.utf8).toBeUndefined();
    expect(source.cacheable?.bodyUtf8).toBeUndefined();
  });

  it('does not decode a page whose text is not decoded yet (the http stage\'s cacheable page)', () => {
    const { cacheStep, encoded } = step();
    const body = '<p>héllo ✓</p>'.repeat(100);
    const page = {
      requestedUrl: 'http://a.example/', url: 'http://a.example/', statusCode: 200, headers: {}, contentType: 'text/html',
      kind: 'html', charset: 'utf-8', redirects: [], timings: { ttfbMs: 1, totalMs: 1 },
    } as FetchResult;
    deferText(page, Buffer.from(body, 'utf8'));
    page.utf8 = undecodedUtf8(page);
    const cacheable = cacheablePage(page, { engine: 'http', proxyUsed: 'basic', cachedAt: 1 })!;
    cacheStep.prepare(scrapeRequestSchema.parse({ url: 'http://a.example/' }), { engine: 'http', page, proxyUsed: 'basic', creditsUsed: 1, cacheable });
    expect(encoded[0]!.bodyUtf8?.toString('utf8')).toBe(body);
    expect(undecodedUtf8(page)).toBeDefined();
    // Still the page's text when read.
    expect(cacheable.body).toBe(body);
    expect(undecodedUtf8(page)).toBeUndefined();
  });

  it('drops the bytes of a page it may not store too', () => {
    const { cacheStep, encoded } = step();
    const source = fetched();
    cacheStep.prepare(scrapeRequestSchema.parse({ url: 'http://a.example/', storeInCache: false }), source);
    expect(encoded).toEqual([]);
    expect(source.page.utf8).toBeUndefined();
    expect(source.cacheable?.bodyUtf8).toBeUndefined();
  });
});

/** A cache that records the writes it is given, each with whether it was told to wait (PutOptions.after). */
function recordingCache(): { cache: PageCache; writes: string[] } {
  const writes: string[] = [];
  const cache = {
    encode: async (p: CachedPage): Promise<EncodedPage> => ({ value: Buffer.alloc(0), stamp: String(p.cachedAt) }),
    putEncoded: async (_key: string, _page: unknown, opts?: { after?: Promise<unknown> }) => {
      writes.push(`page${opts?.after ? ' after' : ''}`);
      return 'stored';
    },
    putDerived: async (_key: string, _hash: string, entry: { documentJson: string }, opts?: { after?: Promise<unknown> }) => {
      writes.push(`formats ${entry.documentJson}${opts?.after ? ' after' : ''}`);
      throw new Error('Redis away');
    },
  } as unknown as PageCache;
  return { cache, writes };
}

describe('CacheStep.store', () => {
  const metrics = () => createWorkerMetrics(createMetricsRegistry({ role: 'test' }));
  const job = { v: 1, jobId: 'j', teamId: 't', mode: 'sync', deadline: 0, zeroDataRetention: false } as never;
  const request = scrapeRequestSchema.parse({ url: 'http://a.example/', formats: ['markdown'] });

  it('marks a fresh document a miss at once and returns its writes, which keep the page and, given the document\'s JSON, its formats', async () => {
    const { cache, writes } = recordingCache();
    const cacheStep = new CacheStep({ cache, shared: true, blobUrlTtlSec: 60, metrics: metrics() });
    const document = { markdown: 'x', metadata: { statusCode: 200 } } as Document;
    const store = cacheStep.store(job, request, fetched(), document, log);
    expect(document.metadata.cacheState).toBe('miss');
    expect(writes).toEqual([]); // nothing written before the writes are started
    // A failed write does not reject them.
    await expect(store!('{"markdown":"x"}', Promise.resolve())).resolves.toBeUndefined();
    expect(writes).toEqual(['page after', 'formats {"markdown":"x"} after']);
    // Without the document's JSON (the outcome is not a document) only the page is kept.
    writes.length = 0;
    await store!(undefined);
    expect(writes).toEqual(['page']);
  });

  it('a hit keeps no page, only its formats; a page it may not store, nothing', async () => {
    const { cache, writes } = recordingCache();
    const cacheStep = new CacheStep({ cache, shared: true, blobUrlTtlSec: 60, metrics: metrics() });
    const hit = { ...fetched(), engine: 'cache', cachedAt: 5, cacheable: undefined } as never;
    await cacheStep.store(job, request, hit, { metadata: { statusCode: 200 } } as never, log)!('{}');
    expect(writes).toEqual(['formats {}']);
    const refused = scrapeRequestSchema.parse({ url: 'http://a.example/', storeInCache: false });
    expect(cacheStep.store(job, refused, fetched(), { metadata: { statusCode: 200 } } as never, log)).toBeUndefined();
  });
});
