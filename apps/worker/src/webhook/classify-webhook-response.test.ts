import { describe, expect, it } from '@jest/globals';
import { classifyWebhookResponse, parseRetryAfter } from './classify-webhook-response.js';

const NOW = Date.parse('2030-01-01T00:00:00Z');

describe('classifyWebhookResponse', () => {
  it.each([200, 201, 204, 299])('%i is delivered', (status) => {
    expect(classifyWebhookResponse(status, undefined, NOW)).toEqual({ kind: 'delivered' });
  });

  it.each([408, 429, 500, 502, 503, 504])('%i is retried', (status) => {
    expect(classifyWebhookResponse(status, undefined, NOW).kind).toBe('retry');
  });

  it.each([301, 302, 307, 400, 401, 403, 404, 410, 422])('%i is rejected (never retried, redirects not followed)', (status) => {
    expect(classifyWebhookResponse(status, undefined, NOW)).toEqual({ kind: 'rejected' });
  });

  it('honours Retry-After on 429 and 503 only', () => {
    expect(classifyWebhookResponse(429, '30', NOW)).toEqual({ kind: 'retry', retryAfterMs: 30_000 });
    expect(classifyWebhookResponse(503, 'Tue, 01 Jan 2030 00:01:00 GMT', NOW)).toEqual({ kind: 'retry', retryAfterMs: 60_000 });
    expect(classifyWebhookResponse(500, '30', NOW)).toEqual({ kind: 'retry' });
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates, and ignores garbage', () => {
    expect(parseRetryAfter(' 5 ', NOW)).toBe(5000);
    expect(parseRetryAfter('Mon, 31 Dec 2029 23:00:00 GMT', NOW)).toBe(0);
    expect(parseRetryAfter('soon', NOW)).toBeUndefined();
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
  });
});
