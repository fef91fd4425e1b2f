import type { WebhookConfig, WebhookEventType, WebhookPayload } from '@trawl/api-schema';

/** One event to tell a webhook about. */
export interface WebhookEvent {
  type: WebhookEventType;
  /** Id of the crawl, batch scrape, extract or monitor job. */
  id: string;
  /**
   * What the event carries: the Document of a page event (sent as `[Document]`), or a list given as
   * is. Default: an empty list.
   */
  data?: unknown;
  /** Set on failure events: the payload then has `success: false`. */
  error?: string;
}

/** The body of one delivery (Firecrawl's payload shape plus `webhookId`). Pure. */
export function buildWebhookPayload(webhookId: string, config: WebhookConfig, event: WebhookEvent): WebhookPayload {
  const data = event.data === undefined ? [] : Array.isArray(event.data) ? (event.data as unknown[]) : [event.data];
  return {
    success: event.error === undefined,
    type: event.type,
    id: event.id,
    webhookId,
    data,
    ...(event.error === undefined ? {} : { error: event.error }),
    metadata: config.metadata ?? {},
  };
}
