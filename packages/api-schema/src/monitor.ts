import { z } from 'zod';
import { crawlRequestObjectSchema, normalizeCrawlFields } from './crawl.js';
import { findFormat, type FormatObject } from './formats.js';
import { canonicalTimeZone, normalizeCronShape, scheduleTextToCron } from './monitor-schedule.js';
import { checkScrapeOptions, finalizeScrapeOptions, scrapeOptionsObjectSchema } from './scrape-options.js';
import { clientTagFields, httpUrlSchema } from './scrape-request.js';
import { webhookConfigSchema } from './webhook.js';

/** Most targets one monitor may have. */
export const MAX_MONITOR_TARGETS = 20;
/** Most URLs of one `scrape` target. */
export const MAX_MONITOR_TARGET_URLS = 100;
/** Largest `crawlOptions.limit` of a `crawl` target (pages compared per check). */
export const MAX_MONITOR_CRAWL_LIMIT = 1_000;
/** Default `crawlOptions.limit` of a `crawl` target. */
export const DEFAULT_MONITOR_CRAWL_LIMIT = 100;
/** Default and largest `retentionDays`: how long checks and their pages are kept. */
export const DEFAULT_MONITOR_RETENTION_DAYS = 30;
export const MAX_MONITOR_RETENTION_DAYS = 365;
/** Time zone of a schedule without `timezone`. */
export const DEFAULT_MONITOR_TIMEZONE = 'UTC';

export const MONITOR_STATUSES = ['active', 'paused'] as const;
export const MONITOR_CHECK_STATUSES = ['queued', 'running', 'completed', 'failed', 'partial', 'skipped_overlap', 'skipped_no_credits'] as const;
export const MONITOR_PAGE_STATUSES = ['same', 'new', 'changed', 'removed', 'error'] as const;
export type MonitorStatus = (typeof MONITOR_STATUSES)[number];
export type MonitorCheckStatus = (typeof MONITOR_CHECK_STATUSES)[number];
export type MonitorPageStatus = (typeof MONITOR_PAGE_STATUSES)[number];

/**
 * `schedule` of a create or update: exactly one of `cron` (5 fields) or `text` (a phrase such as
 * "every 30 minutes", "daily at 9:00"), and an IANA `timezone` (default UTC). Parses to the
 * normalized `{cron, timezone, text?}`; cron-parser checks the field values at the gateway.
 */
export const monitorScheduleSchema = z
  .strictObject({
    /** 5-field cron expression, e.g. `*\/30 * * * *`. */
    cron: z.string().max(256).optional(),
    /** Natural-language schedule, normalized to `cron`. */
    text: z.string().max(256).optional(),
    /** IANA time zone the schedule is read in. Default UTC. */
    timezone: z.string().max(64).optional(),
  })
  .transform((schedule, ctx) => {
    const timezone = schedule.timezone === undefined ? DEFAULT_MONITOR_TIMEZONE : canonicalTimeZone(schedule.timezone);
    if (timezone === null) ctx.addIssue({ code: 'custom', path: ['timezone'], message: `Unknown time zone "${schedule.timezone}"; use an IANA name such as "Europe/Paris"` });
    if ((schedule.cron === undefined) === (schedule.text === undefined)) {
      ctx.addIssue({ code: 'custom', path: [], message: 'Give exactly one of schedule.cron or schedule.text' });
      return z.NEVER;
    }
    const parsed = schedule.cron !== undefined ? normalizeCronShape(schedule.cron) : scheduleTextToCron(schedule.text!);
    if (!parsed.ok) ctx.addIssue({ code: 'custom', path: [schedule.cron !== undefined ? 'cron' : 'text'], message: parsed.error });
    if (!parsed.ok || timezone === null) return z.NEVER;
    return { cron: parsed.cron, timezone, ...(schedule.text !== undefined ? { text: schedule.text } : {}) };
  })
  .meta({ id: 'MonitorSchedule' });

/** A schedule as stored and returned: always the normalized `cron` and `timezone`. */
export const monitorStoredScheduleSchema = z
  .object({ cron: z.string(), timezone: z.string(), text: z.string().optional() })
  .meta({ id: 'MonitorScheduleNormalized' });
export type MonitorSchedule = z.output<typeof monitorStoredScheduleSchema>;

/**
 * Scrape options of a monitor target: the scrape options schema, but `maxAge` defaults to 0 (every
 * check fetches the page: a cached copy would always compare as `same`), and the cache-only modes
 * are refused (they never fetch; lockdown also forbids keeping the page to compare with).
 */
const monitorScrapeOptionsSchema = scrapeOptionsObjectSchema
  .extend({ maxAge: z.number().int().min(0).default(0) })
  .superRefine((options, ctx) => {
    checkScrapeOptions(options, ctx);
    for (const option of ['lockdown', 'minAge'] as const) {
      if (options[option] !== undefined && options[option] !== false) {
        ctx.addIssue({ code: 'custom', path: [option], message: `${option} serves pages from the cache only; a monitor fetches them at every check` });
      }
    }
  })
  .transform(finalizeScrapeOptions)
  .meta({ id: 'MonitorScrapeOptions' });

/** The scrape options of a target that has none of its own (a `search` target's pages). */
export function defaultMonitorScrapeOptions(): z.output<typeof monitorScrapeOptionsSchema> {
  return monitorScrapeOptionsSchema.parse({});
}

/** Crawl options of a `crawl` target: the crawl request's fields without those the monitor owns. */
export const monitorCrawlOptionsSchema = crawlRequestObjectSchema
  .omit({ url: true, scrapeOptions: true, webhook: true, zeroDataRetention: true, origin: true, integration: true })
  .extend({
    /** Most pages per check. Default 100, at most 1000. */
    limit: z.number().int().min(1).max(MAX_MONITOR_CRAWL_LIMIT).default(DEFAULT_MONITOR_CRAWL_LIMIT),
  })
  .transform(normalizeCrawlFields)
  .meta({ id: 'MonitorCrawlOptions' });

/** Target ids: generated (UUID) when absent; kept on update so a target's history stays its own. */
const targetIdSchema = z.string().min(1).max(64).regex(/^[A-Za-z0-9_.-]+$/, 'Target ids use letters, digits, "_", "." and "-"');

const uniqueUrls = z
  .array(httpUrlSchema)
  .min(1)
  .max(MAX_MONITOR_TARGET_URLS)
  .superRefine((urls, ctx) => {
    const seen = new Set<string>();
    urls.forEach((url, i) => {
      if (seen.has(url)) ctx.addIssue({ code: 'custom', path: [i], message: `Duplicate URL ${url}` });
      seen.add(url);
    });
  });

function targetSchema<I extends z.ZodType>(id: I) {
  const scrapeOptions = monitorScrapeOptionsSchema.default(() => monitorScrapeOptionsSchema.parse({}));
  return z.discriminatedUnion('type', [
    z.strictObject({ id, type: z.literal('scrape'), urls: uniqueUrls, scrapeOptions }),
    z.strictObject({
      id,
      type: z.literal('crawl'),
      /** Seed URL of the crawl run by every check. */
      url: httpUrlSchema,
      crawlOptions: monitorCrawlOptionsSchema.default(() => monitorCrawlOptionsSchema.parse({})),
      scrapeOptions,
    }),
    // Each check runs the queries (web results) and compares the pages found, as a scrape target.
    z.strictObject({
      id,
      type: z.literal('search'),
      /** Web searches run by every check; the pages found are compared. */
      queries: z.array(z.string().min(1).max(1_000)).min(1).max(20),
      /** Only results this recent (sent to the provider as `tbs`; under an hour counts as the last hour). */
      searchWindow: z.enum(['5m', '15m', '1h', '6h', '24h', '7d']).optional(),
      /** Keep only results of these hosts. */
      includeDomains: z.array(z.string().max(256)).max(100).optional(),
      /** Drop results of these hosts. */
      excludeDomains: z.array(z.string().max(256)).max(100).optional(),
      /** Results kept per query. Default 10. */
      maxResults: z.number().int().min(1).max(100).optional(),
    }),
  ]);
}

/** A target as sent: `scrape` (fixed URLs), `crawl` (a crawl per check) or `search` (the pages web searches find). */
export const monitorTargetSchema = targetSchema(targetIdSchema.optional()).meta({ id: 'MonitorTargetInput' });
/** A target as stored and returned: its `id` is set. */
export const monitorStoredTargetSchema = targetSchema(targetIdSchema).meta({ id: 'MonitorTarget' });
export type MonitorTargetInput = z.output<typeof monitorTargetSchema>;
export type MonitorTarget = z.output<typeof monitorStoredTargetSchema>;

const targetListSchema = z
  .array(monitorTargetSchema)
  .min(1)
  .max(MAX_MONITOR_TARGETS)
  .superRefine((targets, ctx) => {
    const ids = new Set<string>();
    targets.forEach((t, i) => {
      if (t.id === undefined) return;
      if (ids.has(t.id)) ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `Duplicate target id "${t.id}"` });
      ids.add(t.id);
    });
  });

/** `notification`: only email exists in the contract; enabling it is refused (no mailer here). */
export const monitorNotificationSchema = z
  .strictObject({
    email: z
      .strictObject({
        enabled: z.boolean().optional(),
        recipients: z.array(z.email()).max(100).optional(),
        includeDiffs: z.boolean().optional(),
      })
      .optional(),
  })
  .meta({ id: 'MonitorNotification' });
export type MonitorNotification = z.output<typeof monitorNotificationSchema>;

const nameSchema = z.string().trim().min(1).max(256);
const retentionDaysSchema = z.number().int().min(1).max(MAX_MONITOR_RETENTION_DAYS);

/** `POST /v2/monitor` body. */
export const createMonitorRequestSchema = z
  .strictObject({
    name: nameSchema,
    schedule: monitorScheduleSchema,
    /** Where `monitor.page` and `monitor.check.completed` go (only when something changed). */
    webhook: webhookConfigSchema.optional(),
    notification: monitorNotificationSchema.optional(),
    targets: targetListSchema,
    /** Days checks and their pages are kept. Default 30, at most 365. */
    retentionDays: retentionDaysSchema.default(DEFAULT_MONITOR_RETENTION_DAYS),
    /** Needs the LLM judge (refused when set). */
    goal: z.string().max(10_000).optional(),
    /** LLM judgment of changes (refused when true). */
    judgeEnabled: z.boolean().optional(),
    ...clientTagFields,
  })
  .meta({ id: 'CreateMonitorRequest' });
export type CreateMonitorRequest = z.output<typeof createMonitorRequestSchema>;

/** `PATCH /v2/monitor/:id` body: only the fields given change; `null` removes webhook, notification, goal. */
export const updateMonitorRequestSchema = z
  .strictObject({
    name: nameSchema.optional(),
    status: z.enum(MONITOR_STATUSES).optional(),
    schedule: monitorScheduleSchema.optional(),
    webhook: webhookConfigSchema.nullable().optional(),
    notification: monitorNotificationSchema.nullable().optional(),
    targets: targetListSchema.optional(),
    retentionDays: retentionDaysSchema.optional(),
    goal: z.string().max(10_000).nullable().optional(),
    judgeEnabled: z.boolean().optional(),
    ...clientTagFields,
  })
  .meta({ id: 'UpdateMonitorRequest' });
export type UpdateMonitorRequest = z.output<typeof updateMonitorRequestSchema>;

/** `POST /v2/monitor/:id/run` body (the SDK sends `{origin}`). */
export const runMonitorRequestSchema = z.strictObject({ ...clientTagFields }).meta({ id: 'RunMonitorRequest' });

/**
 * A monitor's configuration as stored: what a create gave, normalized, target ids set. Workers parse
 * it again when they read it (the writer may be an older or newer version).
 */
export const monitorConfigSchema = z.object({
  name: z.string(),
  schedule: monitorStoredScheduleSchema,
  targets: z.array(monitorStoredTargetSchema).min(1),
  webhook: webhookConfigSchema.optional(),
  notification: monitorNotificationSchema.optional(),
  retentionDays: z.number().int().min(1),
});
export type MonitorConfig = z.output<typeof monitorConfigSchema>;

/**
 * The scrape options a check runs with: the target's, plus `markdown` (change tracking compares it)
 * and `changeTracking` in `git-diff` mode, tagged `monitor:<monitorId>:<targetId>` unless the caller
 * gave a tag (one history per target: another scrape of the same URL, or another target covering it,
 * does not reset the comparison).
 */
export function monitorScrapeOptions<T extends { formats: FormatObject[] }>(options: T, monitorId: string, targetId: string): T {
  const given = findFormat(options.formats, 'changeTracking');
  const formats: FormatObject[] = options.formats.filter((f) => f.type !== 'changeTracking');
  if (!formats.some((f) => f.type === 'markdown')) formats.unshift({ type: 'markdown' });
  const modes = [...new Set([...(given?.modes ?? []), 'git-diff' as const])];
  formats.push({ ...given, type: 'changeTracking', modes, tag: given?.tag ?? `monitor:${monitorId}:${targetId}` });
  return { ...options, formats };
}

/** Query of `GET /v2/monitor` and `GET /v2/monitor/:id/checks`. */
export const monitorListQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

/** Query of `GET /v2/monitor/:id/checks/:checkId`: pages from `skip`, at most `limit`, of one `status`. */
export const monitorCheckQuerySchema = z.object({
  skip: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(100).default(100),
  status: z.enum(MONITOR_PAGE_STATUSES).optional(),
});

const idSchema = z.uuid({ error: 'Invalid ID format. It must be a valid UUID.' });
/** Path params of monitor routes. */
export const monitorIdParamsSchema = z.strictObject({ id: idSchema });
export const monitorCheckParamsSchema = z.strictObject({ id: idSchema, checkId: idSchema });

/** Pages of a check by status. */
export const monitorSummarySchema = z
  .strictObject({
    totalPages: z.number().int(),
    same: z.number().int(),
    changed: z.number().int(),
    new: z.number().int(),
    removed: z.number().int(),
    error: z.number().int(),
  })
  .meta({ id: 'MonitorSummary' });
export type MonitorSummary = z.output<typeof monitorSummarySchema>;

/** A monitor as returned. Times are ISO 8601. */
export const monitorSchema = z
  .strictObject({
    id: z.uuid(),
    name: z.string(),
    status: z.enum(MONITOR_STATUSES),
    schedule: monitorStoredScheduleSchema,
    nextRunAt: z.string().nullable(),
    lastRunAt: z.string().nullable(),
    currentCheckId: z.string().nullable(),
    targets: z.array(monitorStoredTargetSchema),
    webhook: webhookConfigSchema.nullable(),
    notification: monitorNotificationSchema.nullable(),
    retentionDays: z.number().int(),
    lastCheckSummary: monitorSummarySchema.nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Monitor' });

/**
 * What a check did per target: the batch scrape (scrape target), the crawl it ran, or its searches
 * and the batch scrape of the pages found (search target).
 */
export const monitorTargetResultSchema = z
  .union([
    z.strictObject({ targetId: z.string(), type: z.literal('scrape'), batchId: z.uuid() }),
    z.strictObject({ targetId: z.string(), type: z.literal('crawl'), crawlId: z.uuid() }),
    z.strictObject({
      targetId: z.string(),
      type: z.literal('search'),
      batchId: z.uuid(),
      /** The queries ran. */
      searchCompleted: z.boolean(),
      /** Distinct result pages compared. */
      resultCount: z.number().int().nonnegative().optional(),
      /** Credits of the searches (the pages' scrapes are counted in `actualCredits` too). */
      searchCredits: z.number().int().nonnegative().optional(),
    }),
  ])
  .meta({ id: 'MonitorTargetResult' });

/** One run of a monitor as returned. */
export const monitorCheckSchema = z
  .strictObject({
    id: z.uuid(),
    monitorId: z.uuid(),
    status: z.enum(MONITOR_CHECK_STATUSES),
    trigger: z.enum(['scheduled', 'manual']),
    scheduledFor: z.string().nullable(),
    startedAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
    actualCredits: z.number().nullable(),
    billingStatus: z.enum(['not_applicable', 'confirmed']),
    summary: monitorSummarySchema,
    targetResults: z.array(monitorTargetResultSchema),
    /** Whether webhooks went out: `sent`, `no_change` (nothing changed: none sent) or `no_webhook`. */
    notificationStatus: z.strictObject({ webhook: z.enum(['sent', 'no_change', 'no_webhook']) }).nullable(),
    error: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'MonitorCheck' });

/** One page of a check. `diff.text` is the git diff of the markdown against the previous check. */
export const monitorCheckPageSchema = z
  .strictObject({
    id: z.uuid(),
    targetId: z.string(),
    url: z.string(),
    status: z.enum(MONITOR_PAGE_STATUSES),
    currentScrapeId: z.string().nullable(),
    statusCode: z.number().int().nullable(),
    error: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    diff: z.strictObject({ text: z.string() }).nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'MonitorCheckPage' });

/** A check with one page of its pages; `next` is the URL of the following page of pages, omitted on the last. */
export const monitorCheckDetailSchema = monitorCheckSchema
  .extend({ pages: z.array(monitorCheckPageSchema), next: z.string().optional() })
  .meta({ id: 'MonitorCheckDetail' });

const ok = <T extends z.ZodType>(data: T) => z.strictObject({ success: z.literal(true), data });
/** Absolute URL of the following page, omitted on the last. */
const next = { next: z.string().optional() };
export const monitorResponseSchema = ok(monitorSchema).meta({ id: 'MonitorResponse' });
export const monitorListResponseSchema = ok(z.array(monitorSchema)).meta({ id: 'MonitorListResponse' });
/** `POST /v2/monitor/:id/run`: the queued check, its `id` at the top level too. */
export const monitorCheckResponseSchema = ok(monitorCheckSchema).extend({ id: z.string() }).meta({ id: 'MonitorCheckResponse' });
export const monitorCheckListResponseSchema = ok(z.array(monitorCheckSchema)).extend(next).meta({ id: 'MonitorCheckListResponse' });
export const monitorCheckDetailResponseSchema = ok(monitorCheckDetailSchema).extend(next).meta({ id: 'MonitorCheckDetailResponse' });
