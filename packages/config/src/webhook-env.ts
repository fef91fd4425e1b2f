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
   * most, waiting at most 25 ms for more: the same payloads, one POST each, in order. 1: one job per
   * page. Either way a crawl's `completed` / `failed` is delivered after its page events (it waits
   * for their jobs to end). Default 25: fewer jobs and Redis commands per page.
   */
  TRAWL_WEBHOOK_PAGE_BATCH: envInt(25, { min: 1, max: 100 }),
  /**
   * Allow webhook URLs on loopback, private, link-local and metadata addresses (so does
   * `TRAWL_ALLOW_PRIVATE_TARGETS`). Default false.
   */
  TRAWL_WEBHOOK_ALLOW_PRIVATE: envBoolean(false),
};
