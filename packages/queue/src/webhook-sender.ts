import { randomUUID } from 'node:crypto';
import { webhookEventSelected, type WebhookConfig } from '@trawl/api-schema';
import { buildWebhookPayload, type WebhookEvent } from './build-webhook-payload.js';
import { JOB_CATALOG, type WebhookJob } from './job-catalog.js';
import type { QueueSet } from './queue-set.js';
import type { WebhookOrder } from './webhook-order.js';

/** Options of {@link WebhookSender}. */
export interface WebhookSenderOptions {
  /** First retry delay, ms, doubling after (`TRAWL_WEBHOOK_BACKOFF_MS`). Default: the catalog's, 1000. */
  backoffMs?: number;
  /** Attempts including the first (`TRAWL_WEBHOOK_ATTEMPTS`). Default: the catalog's, 10. */
  attempts?: number;
  /**
   * Records each crawl page delivery (`pageOf`) as pending, so the crawl's terminal event waits for
   * it. Without it the terminal event can overtake page events still being delivered.
   */
  order?: WebhookOrder;
}

/** Options of one {@link WebhookSender.send} / {@link WebhookSender.sendBatch}. */
export interface WebhookSendOptions {
  /**
   * The job's ZDR flag: the delivery record (which holds the payload) is deleted as soon as it is
   * delivered or given up, and workers log nothing of it but ids.
   */
  zeroDataRetention?: boolean;
  /**
   * The crawl (or batch scrape) whose page event this is: its terminal event is delivered only once
   * this delivery has been (with the sender's `order`).
   */
  pageOf?: string;
  /** Queue the delivery this long from now, ms (`send` only). Default 0. */
  delayMs?: number;
}

/**
 * Producer of webhook deliveries: builds the payload and enqueues one `webhook` job per event (or one
 * for a batch of events, {@link sendBatch}); workers of the `http` role POST it and retry with
 * backoff. Deliveries of different jobs are independent, with one exception: a crawl's terminal
 * event waits for the page deliveries sent with `pageOf` (see {@link WebhookOrder}).
 */
export class WebhookSender {
  private readonly backoffMs: number;
  private readonly attempts: number;
  private readonly order: WebhookOrder | undefined;

  constructor(private readonly queues: QueueSet, options: WebhookSenderOptions = {}) {
    const policy = JOB_CATALOG.webhook.policy;
    this.backoffMs = options.backoffMs ?? policy.backoffMs;
    this.attempts = options.attempts ?? policy.attempts;
    this.order = options.order;
  }

  /** Adds one webhook job; a crawl's page delivery is tracked first (its commands go out first). */
  private async add(name: string, job: WebhookJob, pageOf: string | undefined, delayMs = 0): Promise<void> {
    const policy = JOB_CATALOG.webhook.policy;
    const added = () => this.queues.get('webhook').add(name, job, {
      jobId: job.webhookId,
      ...(delayMs > 0 ? { delay: delayMs } : {}),
      attempts: this.attempts,
      backoff: { type: policy.backoffType, delay: this.backoffMs },
      ...(job.zeroDataRetention ? { removeOnComplete: true, removeOnFail: true } : {}),
    });
    if (this.order === undefined || pageOf === undefined) await added();
    else await Promise.all([this.order.track(pageOf, job.webhookId), added()]);
  }

  /**
   * Enqueues `event` for the webhook `config` of a job of team `teamId`.
   * @param options see {@link WebhookSendOptions}.
   * @param options.webhookId the delivery's id when the caller derives it (a step that may run again
   *   sends each event once: BullMQ keeps one job per id). Default: a random UUID.
   * @returns the delivery's `webhookId` (also its BullMQ job id), or null when there is no webhook or
   *   its `events` filter does not select this event.
   */
  async send(
    teamId: string,
    config: WebhookConfig | undefined,
    event: WebhookEvent,
    options: WebhookSendOptions & { webhookId?: string } = {},
  ): Promise<string | null> {
    if (config === undefined || !webhookEventSelected(config.events, event.type)) return null;
    const webhookId = options.webhookId ?? randomUUID();
    const zeroDataRetention = options.zeroDataRetention ?? false;
    const job: WebhookJob = {
      v: 1,
      webhookId,
      teamId,
      url: config.url,
      headers: config.headers ?? {},
      body: buildWebhookPayload(webhookId, config, event),
      event: event.type,
      zeroDataRetention,
    };
    await this.add(event.type, job, options.pageOf, options.delayMs);
    return webhookId;
  }

  /**
   * Enqueues several events of one type for the webhook `config` as one job: the same payloads, each
   * with its own `webhookId`, POSTed in order by one delivery job (a crawl's page events: one queue
   * job for many pages instead of one each).
   * @returns the deliveries' `webhookId`s (empty when the `events` filter selects none).
   */
  async sendBatch(
    teamId: string,
    config: WebhookConfig | undefined,
    events: readonly WebhookEvent[],
    options: WebhookSendOptions = {},
  ): Promise<string[]> {
    const selected = config === undefined ? [] : events.filter((e) => webhookEventSelected(config.events, e.type));
    if (config === undefined || selected.length === 0) return [];
    if (selected.length === 1) {
      const id = await this.send(teamId, config, selected[0]!, { ...options, delayMs: 0 });
      return id === null ? [] : [id];
    }
    const ids: string[] = [];
    // One job per event type, at most MAX_BATCH deliveries each (the job schema's bound).
    const byType = new Map<WebhookEvent['type'], WebhookEvent[]>();
    for (const e of selected) byType.set(e.type, [...(byType.get(e.type) ?? []), e]);
    const zeroDataRetention = options.zeroDataRetention ?? false;
    for (const [type, list] of byType) {
      for (let i = 0; i < list.length; i += MAX_BATCH) {
        const deliveries = list.slice(i, i + MAX_BATCH).map((e) => {
          const webhookId = randomUUID();
          return { webhookId, body: buildWebhookPayload(webhookId, config, e) };
        });
        const [first, ...more] = deliveries;
        const job: WebhookJob = {
          v: 1, webhookId: first!.webhookId, teamId, url: config.url, headers: config.headers ?? {}, body: first!.body,
          event: type, zeroDataRetention, ...(more.length > 0 ? { more } : {}),
        };
        await this.add(type, job, options.pageOf);
        ids.push(...deliveries.map((d) => d.webhookId));
      }
    }
    return ids;
  }
}

/** Deliveries per batched job (the webhook job schema's bound on `more`, plus the first). */
const MAX_BATCH = 500;
