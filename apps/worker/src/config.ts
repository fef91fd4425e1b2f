import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { blobStoreEnv } from '@trawl/blob-store';
import { cacheEnv, commonEnv, searchEnv, envBoolean, envInt, envList, envOptionalString, llmEnv, queueEnv, webhookEnv } from '@trawl/config';
import { parseProxyList, type ProxyEndpoint } from '@trawl/scrape-engine';

/** Worker roles; each consumes its own queues and scales on its own. */
export const WORKER_ROLES = ['http', 'browser', 'documents'] as const;
export type WorkerRole = (typeof WORKER_ROLES)[number];

/** `ip`, `ip:port`, `[ipv6]` or `[ipv6]:port`, without a zone id (c-ares would drop it): a DNS server. */
function isDnsServer(server: string): boolean {
  if (server.includes('%')) return false;
  if (isIP(server) !== 0) return true;
  const m = /^(?:\[([^\]]+)\]|([^:]+))(?::(\d{1,5}))?$/.exec(server);
  if (m === null || (m[1] !== undefined ? isIP(m[1]) !== 6 : isIP(m[2] ?? '') !== 4)) return false;
  return m[3] === undefined ? m[1] !== undefined : Number(m[3]) > 0 && Number(m[3]) <= 65535;
}

/** Configuration of a worker process (`trawl worker --role <role>`), from the environment. */
/** A proxy list variable: comma or space separated URLs, each optionally `CC=` prefixed. */
function envProxyList() {
  return z
    .string()
    .optional()
    .transform((value, ctx): ProxyEndpoint[] => {
      if (!value?.trim()) return [];
      try {
        return parseProxyList(value);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    });
}

export const workerConfigSchema = z.object({
  ...commonEnv,
  ...llmEnv,
  ...blobStoreEnv,
  ...cacheEnv,
  ...queueEnv,
  ...searchEnv,
  /** Roles this process takes jobs for, comma-separated. Default `http`. */
  TRAWL_WORKER_ROLES: envList().pipe(z.array(z.enum(WORKER_ROLES))).transform((r) => (r.length ? r : (['http'] as WorkerRole[]))),
  /** Port of the worker's /metrics and /health endpoints; 0 picks a free one. Default 3003. */
  TRAWL_WORKER_PORT: envInt(3003, { min: 0, max: 65535 }),
  /** Address of the worker's metrics server. Default `0.0.0.0`. */
  TRAWL_WORKER_HOST: z.string().default('0.0.0.0'),
  /** Scrape jobs one process runs at once (network-bound). Default 16. */
  TRAWL_WORKER_CONCURRENCY: envInt(16, { min: 1, max: 1000 }),
  /**
   * Scrape jobs this process admits itself (a crawl's next pages when one of its pages ends, jobs its
   * freed slots promote) and runs at once in-process, without a BullMQ job and its queue hop, on top
   * of TRAWL_WORKER_CONCURRENCY. More go through the queue; 0 sends every job through the queue. Default 16.
   */
  TRAWL_WORKER_LOCAL_RUNS: envInt(16, { min: 0, max: 1000 }),
  /** Threads converting HTML off the event loop. Default: cores - 1, at least 1. */
  TRAWL_HTML_THREADS: envInt(Math.max(1, availableParallelism() - 1), { min: 1, max: 64 }),
  /** Largest page accepted (after decompression), bytes. Default 20 MiB. */
  TRAWL_MAX_RESPONSE_BYTES: envInt(20 * 1024 * 1024, { min: 1024 }),
  /**
   * Largest finished Document stored (its JSON: every format, action outputs, metadata), bytes. A
   * larger one fails with RESULT_TOO_LARGE instead of reaching Redis and the API. Default 64 MiB.
   */
  TRAWL_MAX_RESULT_BYTES: envInt(64 * 1024 * 1024, { min: 1024 }),
  /**
   * Largest `executeJavascript` return (as JSON), bytes, measured in the page before it is copied out;
   * a larger one fails with SCRAPE_ACTION_RESULT_TOO_LARGE. Action screenshots, PDFs and `scrape` HTML
   * are capped by TRAWL_MAX_RESPONSE_BYTES. Default 1 MiB.
   */
  TRAWL_MAX_ACTION_RETURN_BYTES: envInt(1024 * 1024, { min: 1024 }),
  /** User-Agent of plain HTTP scrapes when the request sets none. Default: a current desktop Chrome. */
  TRAWL_USER_AGENT: envOptionalString(),
  /**
   * DNS servers for scrape targets, the browser's requests and webhooks (`ip` or `ip:port`,
   * comma-separated); set, they are the only ones asked (no system resolver for names they do not
   * know). Default: the system's (`/etc/resolv.conf`).
   */
  TRAWL_DNS_SERVERS: envList().pipe(z.array(z.string().refine(isDnsServer, { error: 'Each DNS server must be an IP address, optionally with :port ([v6]:port), without a zone id' }))),
  /**
   * Longest a host name lookup may take, ms; past it the scrape fails with SCRAPE_DNS_RESOLUTION_ERROR
   * (retryable). At most 9000: a connection's own 10 s limit counts its lookup. Default 5000.
   */
  TRAWL_DNS_TIMEOUT_MS: envInt(5000, { min: 100, max: 9000 }),
  /** Longest a DNS answer is kept, whatever its TTL, seconds; 0 keeps none. Default 300. */
  TRAWL_DNS_CACHE_MAX_TTL_SEC: envInt(300, { min: 0, max: 86_400 }),
  /** A job whose worker stops renewing its lock for this long is retried elsewhere, ms. Default 10000. */
  TRAWL_JOB_LOCK_MS: envInt(10_000, { min: 1000 }),
  /**
   * After SIGTERM: how long in-flight jobs get to finish, ms. Jobs still running then are aborted and
   * go back to their queue (no attempt spent). Default 30000.
   */
  TRAWL_SHUTDOWN_GRACE_MS: envInt(30_000, { min: 0 }),
  /** How often admitted jobs are reconciled with BullMQ (slot leak repair), ms. Default 5000. */
  TRAWL_REAPER_INTERVAL_MS: envInt(5_000, { min: 100 }),
  /** Browser pages one `browser` worker renders at once (each a context). Default 4. */
  TRAWL_BROWSER_CONCURRENCY: envInt(4, { min: 1, max: 64 }),
  /** Chromium binary of the browser role. Default `/usr/bin/chromium` (Debian's package). */
  TRAWL_CHROMIUM_PATH: z.string().default('/usr/bin/chromium'),
  /**
   * Chromium's headless shell (Debian's `chromium-headless-shell`; the binary, not its /usr/bin wrapper
   * script): the standard browser when the file exists (lighter per page); the stealth browser stays
   * `TRAWL_CHROMIUM_PATH`. Unset: `/usr/lib/chromium/chromium-headless-shell` while `TRAWL_CHROMIUM_PATH`
   * is the default, else never. Empty: never.
   */
  TRAWL_CHROMIUM_HEADLESS_SHELL_PATH: z.string().optional(),
  /** A browser is replaced after this many pages. Default 200. */
  TRAWL_BROWSER_RECYCLE_PAGES: envInt(200, { min: 1 }),
  /** A browser is replaced when its processes use more memory than this, MiB. Default 1536. */
  TRAWL_BROWSER_MAX_RSS_MB: envInt(1536, { min: 128 }),
  /**
   * Memory of one page's renderer, MiB: its JavaScript heap stops there, and a renderer resident past
   * it is killed (the job fails with SCRAPE_PAGE_CRASHED; the browser serves the next page). Default 1024.
   */
  TRAWL_BROWSER_PAGE_MAX_MB: envInt(1024, { min: 64, max: 65_536 }),
  /**
   * Pages of one crawl one browser context serves at most (the pages of a crawl share a context while
   * their browser settings match); 1: a fresh context for every page. Default 50.
   */
  TRAWL_BROWSER_SESSION_PAGES: envInt(50, { min: 1, max: 10_000 }),
  /** A crawl's shared browser context unused this long is closed, ms. Default 5000. */
  TRAWL_BROWSER_SESSION_IDLE_MS: envInt(5000, { min: 0, max: 600_000 }),
  /** Longest smart wait (network quiet, DOM stable) before capture, ms. Default 8000. */
  TRAWL_BROWSER_SMART_WAIT_MS: envInt(8000, { min: 0, max: 60_000 }),
  /**
   * The standard browser does not load images (each answered with a 1x1 placeholder, so `load` events
   * fire), fonts, audio or video, by request kind, for pages without a screenshot or actions: less
   * renderer and network work; images without size attributes lay out at 1x1. false loads them as a
   * visitor's browser would. Default true.
   */
  TRAWL_BROWSER_SKIP_MEDIA: envBoolean(true),
  /** Extra Chromium flags, comma-separated (e.g. `--host-resolver-rules=...`). Default none. */
  TRAWL_BROWSER_EXTRA_ARGS: envList(),
  /**
   * Plain-HTTP scrapes that find a JavaScript shell (or, with `proxy: auto`, a bot wall) move to the
   * browser queue, keeping their deadline. Needs browser workers somewhere. Default true.
   */
  TRAWL_BROWSER_FALLBACK: envBoolean(true),
  /**
   * PDFs, office files, CSV and images that the http and browser roles download go to the `documents`
   * queue. Needs documents workers somewhere; false answers them with SCRAPE_UNSUPPORTED_CONTENT. Default true.
   */
  TRAWL_DOCUMENT_PARSING: envBoolean(true),
  /** Documents one `documents` worker parses at once, each on its own thread. Default 2. */
  TRAWL_DOCUMENT_CONCURRENCY: envInt(2, { min: 1, max: 64 }),
  /**
   * A parse thread ends after this long without a document (ms) and starts again with the next one:
   * an idle thread holds some 40-60 MB (its heap, the loaded readers). 0: the threads start with the
   * worker and live as long as it does. At most a day (a timer's limit is about 24.8 days). Default 60000.
   */
  TRAWL_DOCUMENT_THREAD_IDLE_MS: envInt(60_000, { min: 0, max: 86_400_000 }),
  /** Heap of one parse thread, MiB: a file that needs more fails with DOCUMENT_TOO_LARGE, the process lives on. Default 1024. */
  TRAWL_DOCUMENT_MEMORY_MB: envInt(1024, { min: 64, max: 16_384 }),
  /** Pages of one PDF read at most, whatever `maxPages` asks. Default 10000. */
  TRAWL_DOCUMENT_MAX_PAGES: envInt(10_000, { min: 1, max: 100_000 }),
  /** Bytes a parse may inflate from a container (ZIP parts of office files): the decompression-bomb cap. Default 256 MiB. */
  TRAWL_DOCUMENT_MAX_INFLATED_BYTES: envInt(256 * 1024 * 1024, { min: 1024 }),
  /** Spreadsheet cells read at most across all sheets. Default 1000000. */
  TRAWL_DOCUMENT_MAX_CELLS: envInt(1_000_000, { min: 1 }),
  /** OCR languages (tesseract names, `+`-joined at run time), comma-separated; the first is the main one. Default `eng`. */
  TRAWL_OCR_LANGUAGES: envList().transform((l) => (l.length ? l : ['eng'])),
  /** The tesseract binary (Debian's `tesseract-ocr`), an absolute path. OCR is off when it is missing. Default `/usr/bin/tesseract`. */
  TRAWL_TESSERACT_PATH: z.string().default('/usr/bin/tesseract'),
  /** Tesseract processes one parse runs at once (pages of one PDF). Default 1. */
  TRAWL_OCR_CONCURRENCY: envInt(1, { min: 1, max: 64 }),
  /** Optional ABP-syntax filter list (e.g. EasyList) used by `blockAds` instead of the bundled one. */
  TRAWL_BLOCKLIST_PATH: envOptionalString(),
  /** `basic` proxy pool: URLs (`http://user:pass@host:port`), optionally `US=`-prefixed. Default none: direct. */
  TRAWL_PROXY_BASIC: envProxyList(),
  /** `enhanced` proxy pool, same syntax. Default none: direct, with the stealth browser. */
  TRAWL_PROXY_ENHANCED: envProxyList(),
  /**
   * Fixed politeness: requests per second to one host from the pages of all crawls and batches,
   * shared by every worker (a page over the rate waits as a delayed job, holding no worker). 0 turns
   * every per-host limit off. Default unset: adaptive politeness (the TRAWL_CRAWL_HOST_* below).
   */
  TRAWL_CRAWL_HOST_RATE_PER_SEC: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().min(0).max(100_000).optional()),
  /** Crawl requests in flight to one host across all workers (a lease each, expiring if its worker dies); 0 = no cap. Default 16. */
  TRAWL_CRAWL_HOST_MAX_IN_FLIGHT: envInt(16, { min: 0, max: 10_000 }),
  /** Adaptive politeness: the delay between request starts to a host tends to latency / this. Default 8. */
  TRAWL_CRAWL_HOST_TARGET_CONCURRENCY: z.coerce.number().min(0.1).max(1000).default(8),
  /** Adaptive politeness: the delay between request starts to a host never goes below this, ms. Default 0. */
  TRAWL_CRAWL_HOST_MIN_DELAY_MS: envInt(0, { min: 0, max: 3_600_000 }),
  /** Adaptive politeness: cap of the delay (backoff on 429/503, rising latency) and of robots.txt Crawl-delay, ms. Default 60000. */
  TRAWL_CRAWL_HOST_MAX_DELAY_MS: envInt(60_000, { min: 0, max: 3_600_000 }),
  /** Time budget of a crawl's seeding (robots.txt, sitemaps), ms. Default 60000. */
  TRAWL_CRAWL_KICKOFF_BUDGET_MS: envInt(60_000, { min: 1000 }),
  /** How often running crawls are checked for lost pages, ms. Default 5000. */
  TRAWL_CRAWL_WATCH_INTERVAL_MS: envInt(5_000, { min: 100 }),
  /** A crawl page in flight this long with no live job is recovered by the watchdog, ms. Default 30000. */
  TRAWL_CRAWL_STALE_AFTER_MS: envInt(30_000, { min: 100 }),
  /** Crawl control and map jobs one process runs at once. Default 8. */
  TRAWL_CRAWL_CONCURRENCY: envInt(8, { min: 1, max: 256 }),
  /** Pages a map fetches at once while discovering links. Default 8. */
  TRAWL_MAP_CONCURRENCY: envInt(8, { min: 1, max: 64 }),
  /** Monitor jobs (check starts and finishes) one `http` worker runs at once. Default 4. */
  TRAWL_MONITOR_CONCURRENCY: envInt(4, { min: 1, max: 256 }),
  /** A monitor check running longer than this no longer blocks the next one (it is failed), seconds. Default 86400. */
  TRAWL_MONITOR_CHECK_TIMEOUT_SEC: envInt(86_400, { min: 60 }),
  /** Extract jobs (starts and LLM finishes) one `http` worker runs at once. Default 2. */
  TRAWL_EXTRACT_CONCURRENCY: envInt(2, { min: 1, max: 256 }),
  /** Most pages one `POST /v2/extract` reads (its URLs with `/*` ones expanded). Default 50. */
  TRAWL_EXTRACT_MAX_PAGES: envInt(50, { min: 1, max: 10_000 }),
  /** Time budget of the map of one `/*` extract URL, ms. Default 60000. */
  TRAWL_EXTRACT_MAP_TIMEOUT_MS: envInt(60_000, { min: 1000, max: 300_000 }),
  /** How long a finished crawl or batch (monitor checks' included) can be read, seconds. Default 86400. */
  TRAWL_CRAWL_RETENTION_SEC: envInt(86_400, { min: 60 }),
  ...webhookEnv,
  /** HMAC-SHA256 key of `X-Firecrawl-Signature` on webhook deliveries. Default none: unsigned. */
  TRAWL_WEBHOOK_SECRET: envOptionalString(),
  /** Time one webhook delivery attempt may take (connect, send, response headers), ms. Default 10000. */
  TRAWL_WEBHOOK_TIMEOUT_MS: envInt(10_000, { min: 100, max: 120_000 }),
  /** Webhook deliveries one `http` worker process makes at once. Default 16. */
  TRAWL_WEBHOOK_CONCURRENCY: envInt(16, { min: 1, max: 1000 }),
});
export type WorkerConfig = z.output<typeof workerConfigSchema>;
