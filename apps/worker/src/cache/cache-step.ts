import { TrawlError, type ScrapeRequest } from '@trawl/api-schema';
import { blobKey, type BlobStore } from '@trawl/blob-store';
import type { Logger } from '@trawl/observability';
import { RedisBreakerOpenError, isRedisUnavailableError, scrapeCredits, type CachedPage, type EncodedPage, type PageCache, type ScrapeJob } from '@trawl/queue';
import type { ContentKind, FetchResult } from '@trawl/scrape-engine';
import type { Document } from '@trawl/api-schema';
import { documentHtmlSource, type PageSource } from '../convert/page-source.js';
import { putJobBlob } from '../scrape/browser-binaries.js';
import type { WorkerMetrics } from '../worker-metrics.js';
import { cacheKeyOf, cacheReadOf, derivableFormats, derivedOptionsHash, mayStore, unusableReason } from './cache-policy.js';

/**
 * A job's cache writes (see {@link CacheStep.store}), started with the JSON of the document its job
 * answers with (undefined: the outcome is not a document, and no derived entry is kept). `after`:
 * they are registered at once and go out once it settles (PutOptions.after). Never rejects.
 */
export type CacheWrites = (documentJson: string | undefined, after?: Promise<unknown>) => Promise<void>;

export interface CacheStepDeps {
  /** The page cache; absent when caching is off (`TRAWL_CACHE_ENABLED=false`). */
  cache?: PageCache;
  /** One cache for every team (`TRAWL_CACHE_SHARED`); false keys entries by team. */
  shared: boolean;
  /** Where a cached screenshot is put again for the new job's URL. */
  blobs?: BlobStore;
  blobUrlTtlSec: number;
  metrics: Pick<WorkerMetrics, 'cacheLookups' | 'cacheWrites'>;
  now?: () => number;
}

/**
 * The cache around a scrape: `lookup` before any fetch (a hit is the stored page, converted again
 * with this request's options by the pipeline; the cache-only modes fail on a miss without contacting
 * the target), `store` after a fresh result the request allows to keep. Every document it touches
 * says `metadata.cacheState`; hits also `cachedAt`.
 */
export class CacheStep {
  private readonly now: () => number;
  /** Pages being compressed since they were fetched (see {@link prepare}), by their source. */
  private readonly encoding = new WeakMap<PageSource, Promise<EncodedPage>>();

  constructor(private readonly deps: CacheStepDeps) {
    this.now = deps.now ?? Date.now;
  }

  get enabled(): boolean {
    return this.deps.cache !== undefined;
  }

  /**
   * A document from the cache, or undefined to go and fetch. `signal`: the job's deadline or
   * cancellation, which ends the upload of a cached screenshot under the job's own key.
   * @throws TrawlError SCRAPE_LOCKDOWN_CACHE_MISS (lockdown, charged 1 credit by the caller) or
   *   SCRAPE_NO_CACHED_DATA (minAge) when nothing usable is cached; in those modes, when the cache
   *   cannot be read, SERVICE_UNAVAILABLE while its Redis is down, loading or not answering, else
   *   SCRAPE_FAILED (both retryable, not billed).
   */
  async lookup(job: ScrapeJob, request: ScrapeRequest, log: Logger, signal?: AbortSignal): Promise<PageSource | undefined> {
    const read = cacheReadOf(request);
    if (read.mode === 'off') return undefined;
    const label = read.mode === 'only' ? read.reason : 'fresh';
    const key = this.keyOf(job, request);
    let entry: CachedPage | null;
    try {
      entry = this.deps.cache && key ? await this.deps.cache.get(key) : null;
    } catch (err) {
      // A cache Redis that is down costs a fetch, not the scrape; cache-only modes fail without a fetch.
      this.deps.metrics.cacheLookups.inc({ mode: label, outcome: 'failed' });
      // A cache Redis down or frozen is logged once by the cache, not by every scrape meanwhile.
      log[err instanceof RedisBreakerOpenError ? 'debug' : 'warn']({ err }, 'page cache read failed');
      if (read.mode === 'fresh') return undefined;
      if (isRedisUnavailableError(err)) {
        throw new TrawlError('SERVICE_UNAVAILABLE', 'The page cache cannot be read right now; the target was not contacted. Try again shortly', { retryable: true });
      }
      throw new TrawlError('SCRAPE_FAILED', 'The page cache could not be read; the target was not contacted', { retryable: true });
    }
    const unusable = entry ? unusableReason(entry, request, read, this.now()) : 'absent';
    if (entry && unusable === null) {
      this.deps.metrics.cacheLookups.inc({ mode: label, outcome: 'hit' });
      return this.fromEntry(job, request, entry, { lockdown: read.mode === 'only' && read.reason === 'lockdown', ...(signal ? { signal } : {}) });
    }
    this.deps.metrics.cacheLookups.inc({ mode: label, outcome: entry ? 'stale' : 'miss' });
    if (read.mode === 'fresh') return undefined;
    log.info({ reason: unusable }, 'cache-only scrape found nothing usable');
    if (read.reason === 'lockdown') {
      // No URL in the message: lockdown requests are never logged with their URL.
      throw new TrawlError('SCRAPE_LOCKDOWN_CACHE_MISS', 'Lockdown mode found no cached copy of this URL; the target was not contacted');
    }
    throw new TrawlError('SCRAPE_NO_CACHED_DATA', `No cached copy at least ${request.minAge} ms old exists for this URL; no scrape was started`, {
      details: { minAge: request.minAge },
    });
  }

  /**
   * Starts compressing a fetched page the request allows to keep, as soon as it is fetched: the
   * compression then overlaps the conversion instead of delaying the answer after it. Never throws.
   */
  prepare(request: ScrapeRequest, source: PageSource): void {
    const page = source.cacheable;
    // The fetched bytes (FetchResult.utf8) serve this encoding only, which copies them before it
    // returns (PageCache.encode): the job does not keep them past this step, used or not (a page of up
    // to the response limit; a page not decoded yet keeps its own until its text is read).
    // (Set to undefined, not deleted: a deleted property would turn these hot objects into slow ones.)
    source.page.utf8 = undefined;
    const encoding = this.deps.cache && page && mayStore(request, page.statusCode) ? this.deps.cache.encode(page) : undefined;
    if (page) page.bodyUtf8 = undefined;
    if (!encoding) return;
    encoding.catch(() => undefined); // a failure is reported by store, which awaits it
    this.encoding.set(source, encoding);
  }

  /**
   * After the formats: marks a fresh document `cacheState: miss`, and returns its cache writes (none:
   * undefined), which the job's finish starts with the document's JSON once it has it (see
   * `FinishRun.cacheWrites`). They keep its page when the request allows; for a request whose formats
   * the gateway may answer ({@link derivableFormats}: a `maxAge: 0` fetch too), also its derived
   * formats next to the page (fresh or hit: the document as its JSON, so its object may change
   * meanwhile), so that the next identical request needs no worker. Never throws; the writes never reject.
   */
  store(job: ScrapeJob, request: ScrapeRequest, source: PageSource, document: Document, log: Logger): CacheWrites | undefined {
    const cache = this.deps.cache;
    if (!cache) return undefined;
    const hit = source.engine === 'cache';
    if (!hit) document.metadata.cacheState = 'miss';
    const page = hit ? undefined : source.cacheable;
    const key = this.keyOf(job, request);
    if (!key || !mayStore(request, hit ? source.page.statusCode : page?.statusCode ?? 0)) return undefined;
    const cachedAt = hit ? source.cachedAt : page?.cachedAt;
    const derives = cachedAt !== undefined && this.derives(job, request, source);
    if (!page && !derives) return undefined;
    const encoded = this.encoding.get(source);
    const { proxyUsed } = source;
    // Both writes at once: the derived entry costs the job no extra round trip.
    return (documentJson, after) => Promise.all([
      page ? this.write(() => cache.putEncoded(key, encoded ?? cache.encode(page), { after }), log) : undefined,
      derives && documentJson !== undefined
        ? this.write(() => cache.putDerived(key, derivedOptionsHash(request), { cachedAt: cachedAt!, proxyUsed, documentJson }, { after }), log)
        : undefined,
    ]).then(() => undefined);
  }

  /** A page's formats are kept for the gateway: a plain page (no file, no binaries) of a single scrape. */
  private derives(job: ScrapeJob, request: ScrapeRequest, source: PageSource): boolean {
    return job.crawl === undefined && derivableFormats(request) && source.file === undefined
      && source.binaries === undefined && source.pdfPages === undefined && source.converted === undefined;
  }

  private async write(put: () => Promise<'stored' | 'too-large'>, log: Logger): Promise<void> {
    try {
      const outcome = await put();
      this.deps.metrics.cacheWrites.inc({ outcome: outcome === 'stored' ? 'stored' : 'too_large' });
    } catch (err) {
      // A cache that cannot be written must not fail the scrape.
      this.deps.metrics.cacheWrites.inc({ outcome: 'failed' });
      log[err instanceof RedisBreakerOpenError ? 'debug' : 'warn']({ err }, 'page cache write failed');
    }
  }

  private keyOf(job: ScrapeJob, request: ScrapeRequest): string | null {
    return cacheKeyOf(request, this.deps.shared ? undefined : job.teamId);
  }

  /** The page of a cache hit: every format is derived again; billed as the spec says for a hit. */
  private async fromEntry(job: ScrapeJob, request: ScrapeRequest, entry: CachedPage, opts: { lockdown: boolean; signal?: AbortSignal }): Promise<PageSource> {
    const page: FetchResult = {
      requestedUrl: request.url, url: entry.url, statusCode: entry.statusCode, headers: {}, contentType: entry.contentType,
      kind: entry.contentKind as ContentKind, text: entry.body, redirects: [], timings: { ttfbMs: 0, totalMs: 0 },
      ...(entry.charset ? { charset: entry.charset } : {}),
    };
    const lockdownCredits = opts.lockdown ? scrapeCredits({ lockdown: { hit: true } }) : undefined;
    if (entry.kind === 'document' && entry.document) {
      const source = documentHtmlSource(request, { page, html: entry.body, facts: entry.document }, {
        proxyUsed: 'basic',
        creditsUsed: lockdownCredits ?? scrapeCredits({ proxyUsed: 'basic', ...(entry.document.format === 'pdf' ? { pdfPages: entry.document.numPages } : {}) }),
      });
      return { ...source, engine: 'cache', cachedAt: entry.cachedAt };
    }
    const screenshot = request.formats.some((f) => f.type === 'screenshot') && entry.screenshot
      ? await this.republishScreenshot(job, entry.screenshot, opts.signal)
      : undefined;
    // A hit fetched nothing: billed as a basic scrape whatever proxy first fetched it.
    return {
      engine: 'cache', page, proxyUsed: entry.proxyUsed, creditsUsed: lockdownCredits ?? scrapeCredits({ proxyUsed: 'basic' }), cachedAt: entry.cachedAt,
      ...(entry.timezone ? { timezone: entry.timezone } : {}), ...(screenshot ? { binaries: { screenshot } } : {}),
    };
  }

  /** Blob URLs expire: the cached screenshot is stored again under this job, with a fresh URL. */
  private async republishScreenshot(job: ScrapeJob, shot: NonNullable<CachedPage['screenshot']>, signal?: AbortSignal): Promise<string> {
    if (!this.deps.blobs) throw new TrawlError('UNSUPPORTED_OPTION', 'No blob store is configured for screenshots');
    const key = blobKey({ teamId: job.teamId, jobId: job.jobId, name: 'screenshot', ext: shot.contentType === 'image/png' ? 'png' : 'jpg' });
    await putJobBlob(this.deps.blobs, { key, body: shot.data, contentType: shot.contentType, ...(signal ? { signal } : {}) });
    return this.deps.blobs.url(key, { expiresInSec: this.deps.blobUrlTtlSec });
  }
}

