/** Longest Retry-After a receiver can impose on one retry, ms: a longer one is cut to this. */
export const MAX_WEBHOOK_RETRY_AFTER_MS = 10 * 60_000;

/**
 * Delay before the next attempt of a delivery that has failed `attemptsMade` times (1 after the first
 * failure): `baseMs` doubling per failure, or the receiver's Retry-After when that is longer (capped at
 * {@link MAX_WEBHOOK_RETRY_AFTER_MS}). Pure; used by the webhook queue's BullMQ backoff strategy.
 */
export function webhookRetryDelay(attemptsMade: number, baseMs: number, retryAfterMs?: number): number {
  const exponential = Math.round(baseMs * 2 ** Math.max(0, attemptsMade - 1));
  if (retryAfterMs === undefined || !Number.isFinite(retryAfterMs)) return exponential;
  return Math.max(exponential, Math.min(Math.max(0, retryAfterMs), MAX_WEBHOOK_RETRY_AFTER_MS));
}
