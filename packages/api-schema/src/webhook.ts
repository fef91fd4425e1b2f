import { z } from 'zod';
import { metadataSchema } from './bounded-json.js';

/** Every event a webhook can receive, `<job kind>.<event>`. */
export const WEBHOOK_EVENT_TYPES = [
  'crawl.started',
  'crawl.page',
  'crawl.completed',
  'crawl.failed',
  'batch_scrape.started',
  'batch_scrape.page',
  'batch_scrape.completed',
  'batch_scrape.failed',
  'extract.started',
  'extract.completed',
  'extract.failed',
  'monitor.page',
  'monitor.check.completed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Short filter values (Firecrawl's): the event of that name for the job the webhook belongs to. */
export const WEBHOOK_SHORT_EVENTS = ['started', 'page', 'completed', 'failed'] as const;

/** A value of a webhook's `events` filter: a full event type or a short form. */
export type WebhookEventKind = WebhookEventType | (typeof WEBHOOK_SHORT_EVENTS)[number];

/** Longest webhook URL accepted, characters. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;
const MAX_WEBHOOK_HEADERS = 64;

// RFC 9110 token characters.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// A CR or LF would let a value smuggle further headers; NUL is refused by every HTTP stack.
const HEADER_VALUE = /^[^\r\n\0]*$/;
/**
 * Headers the sender owns: framing and connection headers (set by the HTTP client) and the signature.
 * `content-type` is allowed but always sent as `application/json`.
 */
const RESERVED_HEADERS = new Set([
  'host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer',
  'expect', 'proxy-connection', 'x-firecrawl-signature',
]);

/** A webhook destination: an absolute http(s) URL of at most {@link MAX_WEBHOOK_URL_LENGTH} characters. */
export const webhookUrlSchema = z
  .url({ protocol: /^https?$/, error: 'Must be an absolute http or https URL' })
  .max(MAX_WEBHOOK_URL_LENGTH)
  .meta({ format: 'uri' });

/** Extra request headers of a webhook: valid names, no CR/LF/NUL in values, none the sender owns. */
export const webhookHeadersSchema = z
  .record(
    z.string().max(256).regex(HEADER_NAME, 'Not a valid header name'),
    z.string().max(8192).regex(HEADER_VALUE, 'Header values may not contain CR, LF or NUL'),
  )
  .superRefine((headers, ctx) => {
    const names = Object.keys(headers);
    if (names.length > MAX_WEBHOOK_HEADERS) {
      ctx.addIssue({ code: 'custom', message: `At most ${MAX_WEBHOOK_HEADERS} headers` });
    }
    for (const name of names) {
      if (RESERVED_HEADERS.has(name.toLowerCase())) {
        ctx.addIssue({ code: 'custom', path: [name], message: `Header "${name}" is set by the sender` });
      }
    }
  });

const webhookObjectSchema = z.strictObject({
  /** Where events are POSTed. */
  url: webhookUrlSchema,
  /** Sent with every delivery (e.g. an `Authorization` of the receiver). */
  headers: webhookHeadersSchema.optional(),
  /** Echoed in every payload's `metadata`. */
  metadata: metadataSchema.optional(),
  /** Events to send; full types or `started`, `page`, `completed`, `failed`. Default: every event. */
  events: z.array(z.enum([...WEBHOOK_EVENT_TYPES, ...WEBHOOK_SHORT_EVENTS])).optional(),
});

/**
 * The `webhook` option of crawl, batch scrape, extract and monitor requests: a URL or
 * `{url, headers?, metadata?, events?}`. Always parses to the object form.
 */
export const webhookConfigSchema = z
  .union([webhookUrlSchema, webhookObjectSchema])
  .transform((value) => (typeof value === 'string' ? { url: value } : value))
  .meta({ id: 'WebhookConfig' });
/** The webhook option as sent by the client. */
export type WebhookConfigInput = z.input<typeof webhookConfigSchema>;
/** The webhook option after parsing (object form). */
export type WebhookConfig = z.output<typeof webhookConfigSchema>;

/**
 * Whether a webhook with the `events` filter wants `type`. No filter selects everything; a short form
 * matches the last segment of the type (`completed` selects `crawl.completed` and
 * `monitor.check.completed`), since a webhook belongs to one job and so to one job kind.
 */
export function webhookEventSelected(events: readonly WebhookEventKind[] | undefined, type: WebhookEventType): boolean {
  if (events === undefined) return true;
  const short = type.slice(type.lastIndexOf('.') + 1);
  return events.some((e) => e === type || e === short);
}

/** What a receiver gets: the body of every webhook POST. */
export const webhookPayloadSchema = z
  .object({
    /** False for `*.failed` events (then `error` says why). */
    success: z.boolean(),
    type: z.enum(WEBHOOK_EVENT_TYPES),
    /** Id of the crawl, batch scrape, extract or monitor job. */
    id: z.string(),
    /** Unique per delivery, the same on every retry of it: receivers deduplicate on it. */
    webhookId: z.uuid(),
    /** `[Document]` for page events; empty or event-specific for the others. */
    data: z.array(z.unknown()),
    error: z.string().optional(),
    /** The webhook config's `metadata`, `{}` when it has none. */
    metadata: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'WebhookPayload' });
export type WebhookPayload = z.infer<typeof webhookPayloadSchema>;
