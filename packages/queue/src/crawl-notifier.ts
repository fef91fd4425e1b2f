import type { WebhookEventType } from '@trawl/api-schema';
import type { CrawlNotifier } from './crawl-coordinator.js';
import type { WebhookSender } from './webhook-sender.js';

/**
 * Crawl and batch events as webhook deliveries (`crawl.*` / `batch_scrape.*`), to the webhook the
 * crawl was started with. A failure to enqueue is reported to `onError`, never thrown: a webhook
 * problem must not fail a page.
 */
export function webhookCrawlNotifier(sender: Pick<WebhookSender, 'send'>, onError: (err: unknown) => void): CrawlNotifier {
  return async (crawl, event, payload) => {
    const config = crawl.request.webhook;
    if (config === undefined) return;
    const type = `${crawl.kind === 'batch' ? 'batch_scrape' : 'crawl'}.${event}` as WebhookEventType;
    try {
      await sender.send(crawl.teamId, config, {
        type,
        id: crawl.id,
        ...(payload?.document !== undefined ? { data: [payload.document] } : {}),
        ...(payload?.error !== undefined ? { error: payload.error } : {}),
      }, { zeroDataRetention: crawl.zeroDataRetention });
    } catch (err) {
      onError(err);
    }
  };
}
