import { Counter, Histogram, type Registry } from '@trawl/observability';

/** Outcome of one delivery attempt. `failed`: rejected by the receiver (4xx) or out of attempts. */
export const WEBHOOK_OUTCOMES = ['delivered', 'retry', 'failed', 'blocked'] as const;
export type WebhookOutcome = (typeof WEBHOOK_OUTCOMES)[number];

/** Webhook delivery metrics, registered once per process; labels are bounded (event type, outcome). */
export function createWebhookMetrics(registry: Registry) {
  return {
    deliveries: new Counter({
      name: 'trawl_webhook_deliveries_total',
      help: 'Webhook delivery attempts by event type and outcome (delivered, retry, failed, blocked)',
      labelNames: ['event_kind', 'outcome'] as const,
      registers: [registry],
    }),
    deliveryDuration: new Histogram({
      name: 'trawl_webhook_delivery_duration_seconds',
      help: 'Time of one webhook delivery attempt, by outcome',
      labelNames: ['outcome'] as const,
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
  };
}
export type WebhookMetrics = ReturnType<typeof createWebhookMetrics>;
