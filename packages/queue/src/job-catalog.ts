import { UnrecoverableError } from 'bullmq';
import { z } from 'zod';
import {
  WEBHOOK_EVENT_TYPES, crawlPromptOptionsSchema, webhookHeadersSchema, webhookPayloadSchema, webhookUrlSchema,
  type MapRequestInput, type ScrapeRequestInput, type SearchRequestInput,
} from '@trawl/api-schema';

/**
 * The job catalog: every BullMQ queue, its payload schema and its retry/retention policy. Producers
 * and processors both go through it; a worker validates each payload with the schema when it picks a
 * job up (producer and consumer versions differ during a rolling deploy).
 */
export const QUEUE_NAMES = ['scrape', 'browser', 'documents', 'crawl', 'webhook', 'monitor', 'extract'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];
/** The queues whose jobs are scrapes (payload {@link ScrapeJob}), run under their team's concurrency group. */
export const SCRAPE_QUEUE_NAMES = ['scrape', 'browser', 'documents'] as const satisfies readonly QueueName[];
export type ScrapeQueueName = (typeof SCRAPE_QUEUE_NAMES)[number];

/** Admission facts carried to the worker so they end up in `metadata`. */
export const admissionInfoSchema = z.object({
  limited: z.boolean(),
  waitMs: z.number().nonnegative(),
});

/**
 * The request a job carries: typed by the API schema's *input* type `T` (what the consumer feeds back
 * into the request schema), checked at run time only as an object. The producer puts the parsed
 * request in (a parsed request is a valid input: the compiler checks that assignment); the consumer
 * validates it again with the request schema itself when it picks the job up (`scrapeRequestSchema` /
 * `parseRequestSchema` in the scrape processor, `mapRequestSchema` in the crawl processor), because
 * producer and consumer versions differ during a rolling deploy. The request schema cannot stand
 * here: an upload's request carries a `file:` URL, which only the parse schema accepts.
 */
function jobRequestSchema<T extends object>() {
  return z.custom<T>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), { error: 'Expected the request object' });
}

/**
 * `replyTo`: the waiter a job's outcome is announced to (ResultWaiter.replyTo): only that process receives it,
 * on its own channel. Absent (a producer of an earlier version, or nobody waits): the shared results
 * channel, which every waiter also hears.
 */
export const replyToSchema = z.string().regex(/^[A-Za-z0-9-]{1,64}$/);
const replyToField = replyToSchema.optional();

/** Payload of a scrape job (queue `scrape`). */
export const scrapeJobSchema = z.object({
  /** Payload version; bump on incompatible change. */
  v: z.literal(1),
  jobId: z.uuid(),
  teamId: z.string().min(1),
  /** The validated scrape request, defaults applied (api-schema's parsed scrape request); see {@link jobRequestSchema}. */
  request: jobRequestSchema<ScrapeRequestInput>(),
  /** Absolute deadline, ms since epoch: the request's timeout counted from submission. */
  deadline: z.number().int().positive(),
  /** `sync` when an HTTP caller waits for it. */
  mode: z.enum(['sync', 'async']),
  zeroDataRetention: z.boolean(),
  origin: z.string().optional(),
  replyTo: replyToField,
  admission: admissionInfoSchema.optional(),
  /**
   * Set when the http engine handed the job to the browser queue: `js-shell` (the page needs
   * JavaScript) or `blocked` (the `auto` proxy retry with the enhanced tier).
   */
  escalation: z.enum(['js-shell', 'blocked']).optional(),
  /** Set on the pages of a crawl or batch scrape: the crawl, its kind and the page's discovery depth. */
  crawl: z.object({
    id: z.uuid(), kind: z.enum(['crawl', 'batch']), depth: z.number().int().min(0),
    /** Known only from earlier crawls of the same team and change-tracking tag (`visibility: hidden`). */
    hidden: z.boolean().optional(),
  }).optional(),
  /**
   * Set on `documents` queue jobs: the file waits in the DocumentBodyStore under the job id. `fetch`
   * when an engine downloaded it (the response's facts travel along), `upload` for `POST /v2/parse`.
   */
  document: z.object({
    source: z.enum(['fetch', 'upload']),
    size: z.number().int().nonnegative(),
    /** Declared MIME type without parameters (upload: the part's Content-Type), when known. */
    mimeType: z.string().max(256).optional(),
    /** Upload: the file name the client gave. */
    filename: z.string().max(1024).optional(),
    /** Fetch: the final URL, status and headers of the response. */
    url: z.string().optional(),
    statusCode: z.number().int().optional(),
    headers: z.record(z.string(), z.string()).optional(),
    /** Fetch: the engine that downloaded it, for `proxyUsed` and billing. */
    proxyUsed: z.enum(['basic', 'enhanced']).optional(),
  }).optional(),
  /** Start time reserved with the per-host rate limiter (ms); set when the job was delayed for it. */
  hostSlotAt: z.number().int().optional(),
  /** The attempt (`attemptsMade`) the reserved slot belongs to: a retry reserves a new one. */
  hostSlotAttempt: z.number().int().min(0).optional(),
  /** Times this crawl page was put back because its host answered 429/503 (bounded; spends no attempt). */
  hostBusyRetries: z.number().int().min(0).optional(),
});
export type ScrapeJob = z.infer<typeof scrapeJobSchema>;

/**
 * Payload of a `crawl` queue job: `kickoff` seeds a crawl (robots.txt, sitemaps, seed URL), `pump`
 * starts the next pages of a crawl whose `delay` made it wait, `map` lists a site's URLs for a
 * waiting `POST /v2/map` caller, `crawl-params` maps a site briefly and asks the LLM for the crawl
 * options of a natural-language prompt (`POST /v2/crawl/params-preview`, `POST /v2/crawl` with
 * `prompt`); its result ({@link crawlParamsResultSchema}) waits in the ResultStore for the gateway.
 */
export const crawlQueueJobSchema = z.discriminatedUnion('kind', [
  z.object({ v: z.literal(1), kind: z.literal('kickoff'), crawlId: z.uuid(), teamId: z.string().min(1) }),
  z.object({ v: z.literal(1), kind: z.literal('pump'), crawlId: z.uuid(), teamId: z.string().min(1) }),
  z.object({
    v: z.literal(1),
    kind: z.literal('map'),
    jobId: z.uuid(),
    teamId: z.string().min(1),
    /** The validated map request; see {@link jobRequestSchema}. */
    request: jobRequestSchema<MapRequestInput>(),
    /** Absolute deadline, ms since epoch. */
    deadline: z.number().int().positive(),
    replyTo: replyToField,
  }),
  z.object({
    v: z.literal(1),
    /** A search for a waiting `POST /v2/search` (or `/v1/search`) caller; its result waits in the ResultStore. */
    kind: z.literal('search'),
    jobId: z.uuid(),
    teamId: z.string().min(1),
    /** The validated search request; see {@link jobRequestSchema}. */
    request: jobRequestSchema<SearchRequestInput>(),
    /** Absolute deadline, ms since epoch. */
    deadline: z.number().int().positive(),
    zeroDataRetention: z.boolean(),
    replyTo: replyToField,
  }),
  z.object({
    v: z.literal(1),
    kind: z.literal('crawl-params'),
    jobId: z.uuid(),
    teamId: z.string().min(1),
    /** The site to map (validated by the gateway as an http(s) URL; the fetcher guards it again). */
    url: z.string().min(1).max(8_192),
    prompt: z.string().min(1).max(10_000),
    /** When the map of sample URLs stops, ms since epoch (the rest of the budget is the LLM call's). */
    mapDeadline: z.number().int().positive(),
    /** Absolute deadline of the whole job, ms since epoch. */
    deadline: z.number().int().positive(),
    /** The LLM call logs no prompt and no completion. */
    zeroDataRetention: z.boolean(),
    replyTo: replyToField,
  }),
]);
/** What a `crawl-params` job stores as its outcome's `document`. */
export const crawlParamsResultSchema = z.object({
  options: crawlPromptOptionsSchema,
  /** Options and patterns of the model's answer that were dropped, one sentence each. */
  warnings: z.array(z.string()),
});
export type CrawlParamsResult = z.infer<typeof crawlParamsResultSchema>;
export type CrawlQueueJob = z.infer<typeof crawlQueueJobSchema>;
/** Payload of a webhook delivery (queue `webhook`); retries of one delivery keep its `webhookId`. */
export const webhookJobSchema = z.object({
  /** Payload version; bump on incompatible change. */
  v: z.literal(1),
  /** Unique per delivery; also the BullMQ job id and the payload's `webhookId`. */
  webhookId: z.uuid(),
  teamId: z.string().min(1),
  url: webhookUrlSchema,
  headers: webhookHeadersSchema,
  /** The payload POSTed, as built by the producer (fields a newer producer adds are kept). */
  body: webhookPayloadSchema.loose(),
  event: z.enum(WEBHOOK_EVENT_TYPES),
  /** The job's zero data retention: the delivery record is deleted as soon as it ends. */
  zeroDataRetention: z.boolean(),
  /**
   * More deliveries of the same event type to the same webhook, POSTed one by one after this one
   * (a crawl's page events, batched: one job for many pages). Each keeps its own `webhookId`.
   */
  more: z.array(z.object({ webhookId: z.uuid(), body: webhookPayloadSchema.loose() })).max(1_000).optional(),
});
export type WebhookJob = z.infer<typeof webhookJobSchema>;

/**
 * Payload of a `monitor` queue job: `check` runs a monitor once (from its job scheduler, or `manual`
 * with the id of the check the API created); `target-done` tells a running check that the crawl or
 * batch of one of its targets ended (the last one finishes the check).
 */
export const monitorJobSchema = z.discriminatedUnion('kind', [
  z.object({
    v: z.literal(1),
    kind: z.literal('check'),
    monitorId: z.uuid(),
    teamId: z.string().min(1),
    trigger: z.enum(['scheduled', 'manual']),
    /** Set by a manual run: the queued check to run. Scheduled runs derive theirs from the job id. */
    checkId: z.uuid().optional(),
  }),
  z.object({
    v: z.literal(1),
    kind: z.literal('target-done'),
    monitorId: z.uuid(),
    teamId: z.string().min(1),
    checkId: z.uuid(),
    targetId: z.string().min(1),
  }),
]);
export type MonitorJob = z.infer<typeof monitorJobSchema>;

/**
 * Payload of an `extract` queue job: `start` expands the extract's URLs (`/*` through a map) and
 * starts the internal batch scrape of its pages; `finish` runs the LLM over the scraped pages once
 * that batch ended, merges and stores the result. The request itself lives in the ExtractStore record.
 */
export const extractJobSchema = z.discriminatedUnion('kind', [
  z.object({ v: z.literal(1), kind: z.literal('start'), extractId: z.uuid(), teamId: z.string().min(1) }),
  z.object({ v: z.literal(1), kind: z.literal('finish'), extractId: z.uuid(), teamId: z.string().min(1) }),
]);
export type ExtractJob = z.infer<typeof extractJobSchema>;

/** Retry and retention policy of a queue. */
export interface QueuePolicy {
  /** Attempts including the first; retryable errors only. */
  attempts: number;
  /** First retry delay, ms, doubling after. */
  backoffMs: number;
  /**
   * BullMQ backoff strategy: `exponential` (built in) or the name of a custom strategy the queue's
   * workers define. Default `exponential`.
   */
  backoffType?: string;
  /** Completed/failed job records kept in BullMQ for this long, seconds (results live in the ResultStore). */
  retentionSec: number;
}

/** Name of the webhook queue's backoff strategy: exponential, lengthened by a receiver's Retry-After. */
export const WEBHOOK_BACKOFF_TYPE = 'webhook';

export const JOB_CATALOG = {
  scrape: { payload: scrapeJobSchema, policy: { attempts: 3, backoffMs: 250, retentionSec: 3600 } },
  /** Scrapes that need a real browser; consumed by the `browser` worker role. */
  browser: { payload: scrapeJobSchema, policy: { attempts: 3, backoffMs: 500, retentionSec: 3600 } },
  /**
   * PDFs, office files and images to parse (fetched by the other roles, or uploaded); consumed by the
   * `documents` role. A parse failure is mostly the file's own: one retry only.
   */
  documents: { payload: scrapeJobSchema, policy: { attempts: 2, backoffMs: 500, retentionSec: 3600 } },
  /** Crawl control jobs and maps; consumed by the `http` worker role. */
  crawl: { payload: crawlQueueJobSchema, policy: { attempts: 5, backoffMs: 500, retentionSec: 3600 } },
  /**
   * Webhook deliveries, consumed by the `http` role. 10 attempts from 1 s doubling span about 8.5
   * minutes, so a receiver down for a few minutes still gets every event; producers override attempts
   * and delay with `TRAWL_WEBHOOK_ATTEMPTS` / `TRAWL_WEBHOOK_BACKOFF_MS`.
   */
  webhook: {
    payload: webhookJobSchema,
    policy: { attempts: 10, backoffMs: 1000, backoffType: WEBHOOK_BACKOFF_TYPE, retentionSec: 3600 },
  },
  /** Monitor checks (from BullMQ job schedulers or manual runs) and their completion; `http` role. */
  monitor: { payload: monitorJobSchema, policy: { attempts: 5, backoffMs: 1000, retentionSec: 3600 } },
  /**
   * Extract jobs (`http` role, TRAWL_EXTRACT_CONCURRENCY): a `start` maps and seeds, a `finish` waits
   * on the LLM for every page. An unreachable LLM (LLM_ERROR) is retried with backoff: 3 attempts from
   * 5 s (the client's own retries inside each) span about 15 s before the extract fails.
   */
  extract: { payload: extractJobSchema, policy: { attempts: 3, backoffMs: 5000, retentionSec: 3600 } },
} satisfies Record<QueueName, { payload: z.ZodType; policy: QueuePolicy }>;

/** BullMQ priority (lower runs first) of a priority class. */
export function bullPriority(priorityClass: 'interactive' | 'bulk'): number {
  return priorityClass === 'interactive' ? 1 : 10;
}

/** The payload type of a queue's jobs. */
export type JobPayload<Q extends QueueName> = z.output<(typeof JOB_CATALOG)[Q]['payload']>;

/**
 * A job's payload as its queue's schema reads it. A payload that fails validation can never
 * succeed (a producer of another version, a field over its bound): BullMQ's UnrecoverableError, no retry.
 */
export function parseJob<Q extends QueueName>(queue: Q, data: unknown): JobPayload<Q> {
  const schema: z.ZodType = JOB_CATALOG[queue].payload;
  const parsed = schema.safeParse(data);
  if (!parsed.success) throw new UnrecoverableError(`invalid ${queue} job payload: ${parsed.error.message}`);
  return parsed.data as JobPayload<Q>;
}
