import { Counter, Gauge, Histogram, type Registry } from '@trawl/observability';
import { SCRAPE_QUEUE_NAMES } from '@trawl/queue';

/** Queues whose jobs scrape (fetch, render, convert, parse): those the event loop works for. */
const SCRAPE_QUEUES: ReadonlySet<string> = new Set(SCRAPE_QUEUE_NAMES);

/**
 * The in-flight gauge with the process's count of scrape jobs at hand: the HTML converter converts a
 * page on the event loop only while no other scrape runs (see `ThreadedHtmlConverter`). Jobs of other
 * queues (webhooks, a search or an extract waiting for its scrapes) mostly wait: they do not count.
 */
export class InFlightGauge {
  private scrapes = 0;
  constructor(private readonly gauge: Gauge<'queue'>) {}

  inc(labels: { queue: string }): void {
    if (SCRAPE_QUEUES.has(labels.queue)) this.scrapes++;
    this.gauge.inc(labels);
  }

  dec(labels: { queue: string }): void {
    if (SCRAPE_QUEUES.has(labels.queue)) this.scrapes--;
    this.gauge.dec(labels);
  }

  /** Scrape jobs running in this process now (the local runs included). */
  get scrapesRunning(): number {
    return this.scrapes;
  }
}

/** Metrics of a worker process; labels are bounded (queue, engine, outcome code). */
export function createWorkerMetrics(registry: Registry) {
  return {
    llmRequests: new Counter({
      name: 'trawl_llm_requests_total',
      help: 'Chat Completions calls by feature and outcome (ok, invalid, unavailable, timeout, refused, aborted)',
      labelNames: ['feature', 'outcome'] as const,
      registers: [registry],
    }),
    llmTokens: new Counter({
      name: 'trawl_llm_tokens_total',
      help: 'Tokens of Chat Completions calls by feature and kind (prompt, completion)',
      labelNames: ['feature', 'kind'] as const,
      registers: [registry],
    }),
    llmRequestSeconds: new Histogram({
      name: 'trawl_llm_request_seconds',
      help: 'Time of one Chat Completions call by feature',
      labelNames: ['feature'] as const,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers: [registry],
    }),
    jobDuration: new Histogram({
      name: 'trawl_job_duration_seconds',
      help: 'Job run time by queue, engine and outcome (success or error code)',
      labelNames: ['queue', 'engine', 'outcome'] as const,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      registers: [registry],
    }),
    scrapeStep: new Histogram({
      name: 'trawl_scrape_step_seconds',
      help: 'Time spent in each step of the scrape pipeline (dedupe, admit, cache-lookup, host-slot, fetch, convert, transform:<format>, cache-store, handoff, finish)',
      labelNames: ['step'] as const,
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    }),
    queueWait: new Histogram({
      name: 'trawl_job_queue_wait_seconds',
      help: 'Time from a job being ready (added, or due when delayed) to a worker taking it, first attempts only',
      labelNames: ['queue'] as const,
      buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: [registry],
    }),
    jobsInFlight: new InFlightGauge(new Gauge({
      name: 'trawl_jobs_in_flight',
      help: 'Jobs running in this process, by queue',
      labelNames: ['queue'] as const,
      registers: [registry],
    })),
    jobsStalled: new Counter({
      name: 'trawl_jobs_stalled_total',
      help: 'Jobs found stalled by this process (their worker stopped renewing its lock: killed or blocked) and put back in their queue',
      labelNames: ['queue'] as const,
      registers: [registry],
    }),
    jobsReturned: new Counter({
      name: 'trawl_jobs_returned_total',
      help: 'Jobs this process put back in their queue unfinished because it was shutting down',
      labelNames: ['queue'] as const,
      registers: [registry],
    }),
    localRuns: new Counter({
      name: 'trawl_local_runs_total',
      help: 'Jobs this process admitted and ran itself without a queue hop, by how the run ended: done (outcome recorded or handed to another engine), deferred (put in the queue to wait: host politeness, rate limit), requeued (an attempt failed with attempts left, or the process was stopping: the queue runs it again)',
      labelNames: ['queue', 'outcome'] as const,
      registers: [registry],
    }),
    shuttingDown: new Gauge({
      name: 'trawl_worker_shutting_down',
      help: '1 once this worker has been asked to stop (SIGTERM): it takes no new jobs',
      registers: [registry],
    }),
    admissionWait: new Histogram({
      name: 'trawl_admission_wait_seconds',
      help: 'Time jobs waited for a team concurrency slot (limited jobs only)',
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: [registry],
    }),
    browserEvents: new Counter({
      name: 'trawl_browser_events_total',
      help: 'Browser pool events: launched, crashed, recycled',
      labelNames: ['event', 'flavor'] as const,
      registers: [registry],
    }),
    searchRequests: new Counter({
      name: 'trawl_search_requests_total',
      help: 'Search provider queries (one per source of a search), by provider and outcome (ok, empty, timeout, unavailable, blocked, refused, invalid)',
      labelNames: ['provider', 'outcome'] as const,
      registers: [registry],
    }),
    crawlPagesDiscovered: new Counter({
      name: 'trawl_crawl_pages_discovered_total',
      help: 'URLs found by crawls and accepted into a frontier (outcome accepted) or listed as blocked by robots.txt (robots_blocked)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    crawlPagesDone: new Counter({
      name: 'trawl_crawl_pages_done_total',
      help: 'Pages of crawls and batches recorded, by kind (crawl, batch) and outcome (document, error, dropped)',
      labelNames: ['kind', 'outcome'] as const,
      registers: [registry],
    }),
    crawlsEnded: new Counter({
      name: 'trawl_crawls_ended_total',
      help: 'Crawls and batches that ended in this process, by kind and status (completed, failed)',
      labelNames: ['kind', 'status'] as const,
      registers: [registry],
    }),
    documentPages: new Counter({
      name: 'trawl_document_pages_total',
      help: 'Pages (slides, sheets) of documents parsed, by format (pdf, docx, xlsx, image...) and method (text: text layer or markup; ocr)',
      labelNames: ['format', 'method'] as const,
      registers: [registry],
    }),
    documentsParsed: new Counter({
      name: 'trawl_documents_parsed_total',
      help: 'Documents parsed by the documents role, by format and outcome (success or error code)',
      labelNames: ['format', 'outcome'] as const,
      registers: [registry],
    }),
    cacheLookups: new Counter({
      name: 'trawl_cache_lookups_total',
      help: 'Page cache lookups by mode (fresh: maxAge; lockdown; minAge) and outcome (hit, miss, stale: present but too old or unusable, failed: cache Redis error)',
      labelNames: ['mode', 'outcome'] as const,
      registers: [registry],
    }),
    cacheWrites: new Counter({
      name: 'trawl_cache_writes_total',
      help: 'Pages offered to the cache by outcome (stored, too_large, failed)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    dnsLookups: new Histogram({
      name: 'trawl_dns_lookup_seconds',
      help: 'Host name lookups by resolver (targets: scrapes, the browser\'s requests, webhooks; proxies: the upstream proxies) and source (cache, hosts, dns, system: the system resolver for names DNS does not know; failed: asked, no address; cache_failed: a name remembered not to exist)',
      labelNames: ['resolver', 'source'] as const,
      buckets: [0.0005, 0.002, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    changeTracking: new Counter({
      name: 'trawl_change_tracking_total',
      help: 'Pages compared with their previous version, by change status (new, same, changed, removed)',
      labelNames: ['status'] as const,
      registers: [registry],
    }),
    /** Exposes the pool's live counts (browsers and open contexts) as gauges read at scrape time. */
    trackBrowserPool(stats: () => { browsers: number; contexts: number }) {
      new Gauge({ name: 'trawl_browser_pool_browsers', help: 'Chromium browsers running in this process', registers: [registry], collect() { this.set(stats().browsers); } });
      new Gauge({ name: 'trawl_browser_pool_contexts', help: 'Browser contexts (pages being scraped) open in this process', registers: [registry], collect() { this.set(stats().contexts); } });
    },
    /** Exposes the document parse threads running now (they start with work and end when idle) as a gauge read at scrape time. */
    trackDocumentThreads(threads: () => number) {
      new Gauge({ name: 'trawl_document_parse_threads', help: 'Document parse threads running in this process (started as documents arrive, ended when idle)', registers: [registry], collect() { this.set(threads()); } });
    },
  };
}
export type WorkerMetrics = ReturnType<typeof createWorkerMetrics>;
