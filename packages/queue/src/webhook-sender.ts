import { randomUUID } from 'node:crypto';
import { webhookEventSelected, type WebhookConfig } from '@trawl/api-schema';
import { buildWebhookPayload, type WebhookEvent } from './build-webhook-payload.js';
import { JOB_CATALOG, type WebhookJob } from './job-catalog.js';
import type { QueueSet } from './queue-set.js';

/** Options of {@link WebhookSender}. */
export interface WebhookSenderOptions {
  /** First retry delay, ms, doubling after (`TRAWL_WEBHOOK_BACKOFF_MS`). Default: the catalog's, 1000. */
  backoffMs?: number;
  /** Attempts including the first (`TRAWL_WEBHOOK_ATTEMPTS`). Default: the catalog's, 10. */
  attempts?: number;
}

/**
 * Producer of webhook deliveries: builds the payload and enqueues one `webhook` job per event; workers
 * of the `http` role POST it and retry with backoff. Deliveries of one job are independent: receivers
 * must not rely on their order.
 */
export class WebhookSender {
  private readonly backoffMs: number;
  private readonly attempts: number;

  constructor(private readonly queues: QueueSet, options: WebhookSenderOptions = {}) {
    const policy = JOB_CATALOG.webhook.policy;
    this.backoffMs = options.backoffMs ?? policy.backoffMs;
    this.attempts = options.attempts ?? policy.attempts;
  }

  /**
   * Enqueues `event` for the webhook `config` of a job of team `teamId`.
   * @param options.zeroDataRetention the job's ZDR flag: the delivery record (which holds the payload)
   *   is deleted as soon as it is delivered or given up, and workers log nothing of it but ids.
   * @param options.webhookId the delivery's id when the caller derives it (a step that may run again
   *   sends each event once: BullMQ keeps one job per id). Default: a random UUID.
   * @returns the delivery's `webhookId` (also its BullMQ job id), or null when there is no webhook or
   *   its `events` filter does not select this event.
   */
  async send(
    teamId: string,
    config: WebhookConfig | undefined,
    event: WebhookEvent,
    options: { zeroDataRetention?: boolean; webhookId?: string } = {},
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
    const policy = JOB_CATALOG.webhook.policy;
    await this.queues.get('webhook').add(event.type, job, {
      jobId: webhookId,
      attempts: this.attempts,
      backoff: { type: policy.backoffType, delay: this.backoffMs },
      ...(zeroDataRetention ? { removeOnComplete: true, removeOnFail: true } : {}),
    });
    return webhookId;
  }
}
