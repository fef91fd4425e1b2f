import { z } from 'zod';
import { blobStoreEnv } from '@trawl/blob-store';
import { cacheEnv, commonEnv, searchEnv, envBaseUrl, envBoolean, envInt, envOptionalString, llmEnv, queueEnv, webhookEnv } from '@trawl/config';
import { MAX_PARSE_FILE_BYTES } from '@trawl/api-schema';

/**
 * Configuration of the API process (`trawl api`), from the environment. Every variable is documented
 * in the README's configuration table; names are a contract with deployments.
 */
export const apiConfigSchema = z.object({
  ...commonEnv,
  ...llmEnv,
  ...cacheEnv,
  ...queueEnv,
  ...searchEnv,
  ...blobStoreEnv,
  ...webhookEnv,
  /** Listening port. Default 3002. */
  PORT: envInt(3002, { min: 0, max: 65535 }),
  /** Listening address. Default `0.0.0.0`. */
  HOST: z.string().default('0.0.0.0'),
  /** Base for absolute URLs in responses (`url`, `next`); else the request's scheme and host. */
  TRAWL_PUBLIC_URL: envBaseUrl(),
  /** Trust `X-Forwarded-Proto`/`-Host`/`-For` from a reverse proxy. Default false. */
  TRAWL_TRUST_PROXY: envBoolean(false),
  /** Bearer token of the admin API; the admin API is off when unset. */
  TRAWL_ADMIN_KEY: envOptionalString(),
  /** When set, this API key exists for team `default` at start. */
  TRAWL_BOOTSTRAP_API_KEY: envOptionalString(),
  /** Largest accepted request body, bytes. Default 10 MiB. */
  TRAWL_MAX_BODY_BYTES: envInt(10 * 1024 * 1024, { min: 1024 }),
  /** Deepest nesting of a JSON request body (objects and arrays); deeper is 400 BAD_REQUEST. Default 64. */
  TRAWL_MAX_JSON_DEPTH: envInt(64, { min: 8, max: 1000 }),
  /** Time a client has to send a request's headers, ms; then 408 and the connection closes. Default 20000. */
  TRAWL_HEADERS_TIMEOUT_MS: envInt(20_000, { min: 1000 }),
  /**
   * Time a client has to send a whole request, headers and body, ms; then 408 and the connection closes
   * (Node's `requestTimeout`: it ends when the request is received, so a sync scrape answering minutes
   * later is not cut). At least TRAWL_HEADERS_TIMEOUT_MS. Default 120000 (a 50 MiB upload at ~4 Mbit/s).
   */
  TRAWL_BODY_TIMEOUT_MS: envInt(120_000, { min: 1000 }),
  /** How long an idle keep-alive connection stays open between requests, ms. Default 65000 (above load balancers' 60 s). */
  TRAWL_IDLE_TIMEOUT_MS: envInt(65_000, { min: 1000 }),
  /**
   * Open connections one client address may hold; more are answered 429 TOO_MANY_CONNECTIONS and
   * closed. 0 turns the cap off. Counted per socket address: behind a reverse proxy (TRAWL_TRUST_PROXY)
   * every connection comes from the proxy, so raise it above the proxy's pool or set 0 and cap at the
   * proxy. Default 256.
   */
  TRAWL_MAX_CONNECTIONS_PER_CLIENT: envInt(256, { min: 0 }),
  /** Grace a sync request waits past its timeout for the worker's own timeout answer, ms. Default 2000. */
  TRAWL_SYNC_GRACE_MS: envInt(2_000, { min: 0 }),
  /**
   * How long a connected Redis may leave the gateway's PING unanswered (a frozen server, a network
   * partition) before requests fail at once with 503 SERVICE_UNAVAILABLE, ms; 0 turns it off. On a
   * Redis Cluster every primary is pinged, and one frozen primary is enough. Default 5000.
   */
  TRAWL_REDIS_STALL_MS: envInt(5_000, { min: 0, max: 600_000 }),
  /**
   * After SIGTERM: how long in-flight requests (sync scrapes waiting for their result) get, ms; those
   * still waiting then answer 503 SERVER_SHUTTING_DOWN. Default 30000.
   */
  TRAWL_SHUTDOWN_GRACE_MS: envInt(30_000, { min: 0 }),
  /** Bull Board (queue UI) at /admin/queues, behind the admin key. Default true. */
  TRAWL_QUEUE_UI: envBoolean(true),
  /** The queue UI only shows (no retry, promote, clean or remove). Default true. */
  TRAWL_QUEUE_UI_READ_ONLY: envBoolean(true),
  /**
   * After SIGTERM, /health/ready answers 503 at once but the listener keeps accepting this long, so
   * load balancers stop routing here first (Kubernetes: about 5000). Default 0.
   */
  TRAWL_SHUTDOWN_DELAY_MS: envInt(0, { min: 0 }),
  /**
   * Browser workers are deployed: actions, screenshots, waitFor, mobile, location, profiles and the
   * enhanced proxy are accepted. When false those options get 400 UNSUPPORTED_OPTION. Default true.
   */
  TRAWL_BROWSER_ENABLED: envBoolean(true),
  /** Documents workers are deployed: `POST /v2/parse` is served. When false it answers 400 UNSUPPORTED_OPTION. Default true. */
  TRAWL_DOCUMENTS_ENABLED: envBoolean(true),
  /** Largest file `POST /v2/parse` accepts, bytes; more answers 413 PAYLOAD_TOO_LARGE. Default 50 MiB. */
  TRAWL_PARSE_MAX_FILE_BYTES: envInt(MAX_PARSE_FILE_BYTES, { min: 1024 }),
  /**
   * How long an upload URL of `POST /v2/parse/upload-url` accepts its PUT, seconds; the uploaded file
   * then waits as long (at least 60 s) for `POST /v2/parse {uploadRef}`. 0 issues URLs expired at once
   * (tests). Default 900.
   */
  TRAWL_PARSE_UPLOAD_URL_TTL_SEC: envInt(900, { min: 0, max: 86_400 }),
  /** Time budget of a map without `timeout`, ms. Default 15000. */
  TRAWL_MAP_DEFAULT_TIMEOUT_MS: envInt(15_000, { min: 1000, max: 300_000 }),
  /** How long a finished crawl or batch (documents, errors) can be read, seconds. Default 86400. */
  TRAWL_CRAWL_RETENTION_SEC: envInt(86_400, { min: 60 }),
  /**
   * Shortest time between two runs of a monitor's schedule, seconds; schedules are cron expressions
   * (one-minute resolution), so at least 60. Default 60.
   */
  TRAWL_MONITOR_MIN_INTERVAL_SEC: envInt(60, { min: 60 }),
});
export type ApiConfig = z.output<typeof apiConfigSchema>;
