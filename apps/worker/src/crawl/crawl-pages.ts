import { ALLOW_ALL_ROBOTS, CrawlScope, parseRobotsTxt, urlKey, type RobotsRules } from '@trawl/crawl';
import type { Document, ErrorData } from '@trawl/api-schema';
import type { Logger } from '@trawl/observability';
import { timeHop, type CrawlCandidate, type CrawlCoordinator, type CrawlNotifier, type CrawlRecord, type CrawlStore, type PageOutcome, type ScrapeJob } from '@trawl/queue';
import type { WorkerMetrics } from '../worker-metrics.js';
import { DEFAULT_ROBOTS_USER_AGENT } from './site-discovery.js';

/** What a worker needs to know about a crawl to handle its pages; cached briefly per process. */
export interface CrawlContext {
  record: CrawlRecord;
  /** Link filter (crawls); null for batches, which discover nothing. */
  scope: CrawlScope | null;
  robots: RobotsRules;
  robotsUserAgent: string;
  /** Follow links found on pages (a crawl whose sitemap mode is not `only`). */
  discover: boolean;
  dedupe: { ignoreQueryParameters: boolean; deduplicateSimilarURLs: boolean };
}

/** The crawl request fields a worker reads (the stored request is the validated one). */
interface StoredCrawlRequest {
  includePaths?: string[];
  excludePaths?: string[];
  regexOnFullURL?: boolean;
  maxDiscoveryDepth?: number;
  crawlEntireDomain?: boolean;
  allowSubdomains?: boolean;
  allowExternalLinks?: boolean;
  ignoreQueryParameters?: boolean;
  deduplicateSimilarURLs?: boolean;
  ignoreRobotsTxt?: boolean;
  robotsUserAgent?: string;
  sitemap?: 'include' | 'skip' | 'only';
}

/** Builds the link filter and dedupe options of a crawl from its stored request. */
export function crawlRules(record: CrawlRecord): { scope: CrawlScope; dedupe: CrawlContext['dedupe']; request: StoredCrawlRequest } {
  const r = record.request as StoredCrawlRequest;
  const dedupe = { ignoreQueryParameters: r.ignoreQueryParameters ?? false, deduplicateSimilarURLs: r.deduplicateSimilarURLs ?? true };
  const scope = new CrawlScope({
    seedUrl: record.url,
    includePaths: r.includePaths ?? [],
    excludePaths: r.excludePaths ?? [],
    regexOnFullURL: r.regexOnFullURL ?? false,
    ...(r.maxDiscoveryDepth !== undefined ? { maxDiscoveryDepth: r.maxDiscoveryDepth } : {}),
    crawlEntireDomain: r.crawlEntireDomain ?? false,
    allowSubdomains: r.allowSubdomains ?? false,
    allowExternalLinks: r.allowExternalLinks ?? false,
    ...dedupe,
  });
  return { scope, dedupe, request: r };
}

/** Turns found URLs into frontier candidates: in scope, deduplicated by key, robots.txt applied. */
export function toCandidates(ctx: Pick<CrawlContext, 'scope' | 'robots' | 'robotsUserAgent'>, urls: Iterable<string>, depth: number): CrawlCandidate[] {
  const out: CrawlCandidate[] = [];
  const keys = new Set<string>();
  if (!ctx.scope) return out;
  for (const url of urls) {
    const check = ctx.scope.check(url, depth);
    if (!check.ok || keys.has(check.key)) continue;
    keys.add(check.key);
    const robotsBlocked = !ctx.robots.isAllowed(check.url, ctx.robotsUserAgent);
    out.push({ key: check.key, url: check.url, depth, ...(robotsBlocked ? { robotsBlocked } : {}) });
  }
  return out;
}

export interface CrawlPagesDeps {
  store: CrawlStore;
  coordinator: CrawlCoordinator;
  notify: CrawlNotifier;
  logger: Logger;
  metrics: Pick<WorkerMetrics, 'crawlPagesDiscovered' | 'crawlPagesDone' | 'crawlsEnded'>;
  /** How long a cached crawl context is trusted, ms. Default 5000. */
  contextTtlMs?: number;
}

/** A finished page of a crawl or batch, as the scrape processor hands it over. */
export type CrawlPageResult =
  /** `documentJson`: the document's JSON, when its finisher wrote it already (stored as it is). */
  | { ok: true; document: Document; documentJson?: string; links: string[]; finalUrl: string; creditsUsed: number }
  /** `creditsUsed`: a failure that is billed all the same (a lockdown miss). */
  | { ok: false; error: ErrorData; creditsUsed?: number };

/**
 * The crawl side of a page job: whether it should still run, link discovery into the frontier,
 * recording the outcome once, the `page` event, and starting the next pages.
 */
export class CrawlPages {
  private readonly cache = new Map<string, { ctx: CrawlContext; at: number }>();
  private readonly ttlMs: number;

  constructor(private readonly deps: CrawlPagesDeps) {
    this.ttlMs = deps.contextTtlMs ?? 5_000;
  }

  /** True when the page should run: it is still in flight and its crawl is still scraping. */
  async shouldRun(job: ScrapeJob): Promise<boolean> {
    const crawl = job.crawl!;
    const { inflight, status } = await this.deps.store.pageState(crawl.id, job.jobId);
    if (!inflight) {
      this.deps.logger.debug({ jobId: job.jobId, crawlId: crawl.id }, 'crawl page no longer in flight, not run');
      return false;
    }
    if (status === 'scraping') return true;
    // Ended meanwhile (cancelled): free the page without recording it.
    await this.deps.store.pageDone(crawl.id, job.jobId, { kind: 'drop' });
    return false;
  }

  /** Whether pages of this crawl need the page's links (crawls that follow links). */
  async wantsLinks(job: ScrapeJob): Promise<boolean> {
    if (job.crawl?.kind !== 'crawl') return false;
    const ctx = await this.context(job.crawl.id);
    return ctx?.discover ?? false;
  }

  /**
   * Records a page's outcome (once), adds the links it found, sends `page`, and starts the next pages.
   * `charge` runs when this call recorded it and counted its credits (`ok`, `duplicate-url`), so a
   * page recorded twice, or after its crawl ended, is never billed twice. It is sent before the next
   * pages start, on the same connection, so their credit checks see it; the promise it returned is
   * handed back (`charged`) for the caller to await.
   */
  async record(job: ScrapeJob, url: string, result: CrawlPageResult, log: Logger, charge?: () => Promise<unknown>): Promise<{ billed: boolean; charged?: Promise<unknown> }> {
    const crawl = job.crawl!;
    const ctx = await this.context(crawl.id);
    if (!ctx) return { billed: false };
    const store = this.deps.store;
    const candidates = result.ok && ctx.discover ? toCandidates(ctx, result.links, crawl.depth + 1) : [];
    const now = Date.now();
    let finalKey: string | undefined;
    if (result.ok && result.finalUrl !== url) {
      const requested = urlKey(url, ctx.dedupe);
      const final = urlKey(result.finalUrl, ctx.dedupe);
      if (final && final !== requested) finalKey = final;
    }
    const outOfCredits = !result.ok && result.error.code === 'INSUFFICIENT_CREDITS';
    const outcome: PageOutcome = result.ok
      ? {
        kind: 'doc', document: result.document, ...(result.documentJson !== undefined ? { documentJson: result.documentJson } : {}),
        creditsUsed: result.creditsUsed, ...(finalKey ? { finalKey } : {}),
      }
      : {
        kind: 'error', error: { id: job.jobId, timestamp: new Date(now).toISOString(), url, code: result.error.code, error: result.error.message },
        ...(result.creditsUsed ? { creditsUsed: result.creditsUsed } : {}),
      };
    // Links, outcome and the next pages in one script call; a page out of credits starts none (the
    // crawl fails below).
    const done = await timeHop('worker:crawl-page-done', () => store.pageDoneNext(crawl.id, job.jobId, outcome, candidates, { now, ...(outOfCredits ? { maxTake: 0 } : {}) }));
    if (done.accepted > 0) this.deps.metrics.crawlPagesDiscovered.inc({ outcome: 'accepted' }, done.accepted);
    if (done.robotsBlocked > 0) this.deps.metrics.crawlPagesDiscovered.inc({ outcome: 'robots_blocked' }, done.robotsBlocked);
    log.debug({ result: done.result, completed: done.completed }, 'crawl page recorded');
    if (done.result === 'dup') return { billed: false };
    const billed = done.result === 'ok' || done.result === 'duplicate-url';
    const charged = billed ? charge?.() : undefined;
    const outcomeLabel = done.result !== 'ok' ? 'dropped' : result.ok ? 'document' : 'error';
    this.deps.metrics.crawlPagesDone.inc({ kind: crawl.kind, outcome: outcomeLabel });
    if (done.result === 'duplicate-url') log.debug('page redirected to a page already crawled, dropped');
    const announce = async (): Promise<void> => {
      if (done.result !== 'ok' || !result.ok) return;
      await store.announceDocument(crawl.id);
      await this.deps.notify(ctx.record, 'page', { document: result.document });
    };
    if (outOfCredits) {
      // Out of credits: every further page would fail the same way, so the crawl ends here.
      this.deps.metrics.crawlsEnded.inc({ kind: crawl.kind, status: 'failed' });
      await this.deps.coordinator.fail(crawl.id, result.error.message);
      if (done.completed) await this.deps.coordinator.ended(crawl.id); // this page was its last: it completed
    } else if (done.completed) {
      // The page's event goes out before the crawl's `completed`.
      await announce();
      this.deps.metrics.crawlsEnded.inc({ kind: crawl.kind, status: 'completed' });
      await this.deps.coordinator.ended(crawl.id);
    } else {
      // The next pages start while the page's event is sent.
      const pumped = done.pump ? timeHop('worker:crawl-next', () => this.deps.coordinator.pumped(crawl.id, done.pump!, ctx.record)) : Promise.resolve();
      await Promise.all([pumped, timeHop('worker:crawl-announce', announce)]);
    }
    return { billed, ...(charged ? { charged } : {}) };
  }

  /** The crawl's context, from the cache unless stale (or `fresh` is asked for). */
  async context(crawlId: string, opts: { fresh?: boolean } = {}): Promise<CrawlContext | null> {
    const hit = this.cache.get(crawlId);
    if (hit && !opts.fresh && Date.now() - hit.at < this.ttlMs) return hit.ctx;
    const record = await this.deps.store.get(crawlId);
    if (!record) {
      this.cache.delete(crawlId);
      return null;
    }
    let ctx: CrawlContext;
    if (hit) {
      // Scope and robots.txt are fixed once seeded: only the record is refreshed.
      ctx = { ...hit.ctx, record };
    } else if (record.kind === 'crawl') {
      const { scope, dedupe, request } = crawlRules(record);
      const robotsTxt = request.ignoreRobotsTxt ? '' : await this.deps.store.robotsTxt(crawlId);
      ctx = {
        record, scope, dedupe,
        robots: robotsTxt ? parseRobotsTxt(robotsTxt) : ALLOW_ALL_ROBOTS,
        robotsUserAgent: request.robotsUserAgent ?? DEFAULT_ROBOTS_USER_AGENT,
        discover: request.sitemap !== 'only',
      };
    } else {
      ctx = {
        record, scope: null, robots: ALLOW_ALL_ROBOTS, robotsUserAgent: DEFAULT_ROBOTS_USER_AGENT, discover: false,
        dedupe: { ignoreQueryParameters: false, deduplicateSimilarURLs: false },
      };
    }
    if (this.cache.size > 1_000) this.cache.clear();
    this.cache.set(crawlId, { ctx, at: Date.now() });
    return ctx;
  }
}
