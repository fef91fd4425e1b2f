import { describe, expect, it } from '@jest/globals';
import { scrapeRequestSchema } from '@trawl/api-schema';
import { createMetricsRegistry } from '@trawl/observability';
import type { CachedPage, EncodedPage, PageCache } from '@trawl/queue';
import type { FetchResult } from '@trawl/scrape-engine';
import type { PageSource } from '../convert/page-source.js';
import { createWorkerMetrics } from '../worker-metrics.js';
import { CacheStep } from './cache-step.js';

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

/** A cache that records what it was given to encode. */
function step(): { cacheStep: CacheStep; encoded: CachedPage[] } {
  const encoded: CachedPage[] = [];
  const cache = {
    encode: async (p: CachedPage): Promise<EncodedPage> => {
      encoded.push(p);
      return { value: Buffer.alloc(0), stamp: String(p.cachedAt) };
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

  it('drops the bytes of a page it may not store too', () => {
    const { cacheStep, encoded } = step();
    const source = fetched();
    cacheStep.prepare(scrapeRequestSchema.parse({ url: 'http://a.example/', storeInCache: false }), source);
    expect(encoded).toEqual([]);
    expect(source.page.utf8).toBeUndefined();
    expect(source.cacheable?.bodyUtf8).toBeUndefined();
  });
});
