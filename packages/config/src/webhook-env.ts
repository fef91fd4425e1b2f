import { envBoolean, envInt } from './env-fields.js';

/**
 * Webhook environment read by both sides: the producers (the API and workers enqueue deliveries with
 * this retry policy) and the delivering worker (which also applies the private-target rule, as the API
 * does when a webhook is registered).
 */
export const webhookEnv = {
  /** First retry delay of a webhook delivery, ms, doubling after (Retry-After may lengthen it). Default 1000. */
  TRAWL_WEBHOOK_BACKOFF_MS: envInt(1000, { min: 1 }),
  /** Delivery attempts including the first; the default retries for about 8.5 minutes. Default 10. */
  TRAWL_WEBHOOK_ATTEMPTS: envInt(10, { min: 1, max: 50 }),
  /**
   * Page events (`crawl.page`, `batch_scrape.page`) of one crawl gathered into one delivery job, at
   * most, waiting at most 25 ms for more: the same payloads, one POST each. 1: one job per page.
   * Default 1: with batches a crawl's `completed` was measured arriving a few ms before its last page
   * events (batches cut jobs and Redis commands per page: about 1.1-1.2x pages/s on a quiet machine,
   * about 1.5x with the workers' CPU saturated).
   */
  TRAWL_WEBHOOK_PAGE_BATCH: envInt(1, { min: 1, max: 100 }),
  /**
   * Allow webhook URLs on loopback, private, link-local and metadata addresses (so does
   * `TRAWL_ALLOW_PRIVATE_TARGETS`). Default false.
   */
  TRAWL_WEBHOOK_ALLOW_PRIVATE: envBoolean(false),
};
