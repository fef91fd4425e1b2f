/** What a receiver's answer means for a delivery. */
export type WebhookResponseVerdict =
  | { kind: 'delivered' }
  /** Worth another attempt; `retryAfterMs` when the receiver said how long to wait. */
  | { kind: 'retry'; retryAfterMs?: number }
  /** The receiver refused the payload (4xx) or answered something a webhook never follows (3xx). */
  | { kind: 'rejected' };

/** Seconds or an HTTP date, as milliseconds from `now`; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * 2xx delivered; 408, 429 and 5xx retried (Retry-After honoured on 429 and 503); any other status,
 * redirects included (never followed: the receiver's URL is the one configured), rejected. Pure.
 */
export function classifyWebhookResponse(status: number, retryAfter: string | undefined, now: number): WebhookResponseVerdict {
  if (status >= 200 && status < 300) return { kind: 'delivered' };
  if (status === 408 || status === 429 || status >= 500) {
    const retryAfterMs = status === 429 || status === 503 ? parseRetryAfter(retryAfter, now) : undefined;
    return retryAfterMs === undefined ? { kind: 'retry' } : { kind: 'retry', retryAfterMs };
  }
  return { kind: 'rejected' };
}
