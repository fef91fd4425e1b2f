import { describe, expect, it } from '@jest/globals';
import { webhookPayloadSchema } from '@trawl/api-schema';
import { buildWebhookPayload } from './build-webhook-payload.js';
import { webhookRetryDelay, MAX_WEBHOOK_RETRY_AFTER_MS } from './webhook-retry-delay.js';

const WEBHOOK_ID = '0b8f7a4e-1c2d-4e5f-8a9b-0c1d2e3f4a5b';

describe('buildWebhookPayload', () => {
  it('wraps the Document of a page event in a list and echoes metadata', () => {
    const document = { markdown: '# Hi', metadata: { sourceURL: 'https://a.example/', statusCode: 200 } };
    const payload = buildWebhookPayload(WEBHOOK_ID, { url: 'https://h.example/', metadata: { run: 1 } }, {
      type: 'crawl.page', id: 'crawl-1', data: document,
    });
    expect(payload).toEqual({
      success: true, type: 'crawl.page', id: 'crawl-1', webhookId: WEBHOOK_ID, data: [document], metadata: { run: 1 },
    });
    expect(webhookPayloadSchema.safeParse(payload).success).toBe(true);
  });

  it('sends an empty list and `{}` metadata by default, and a given list as is', () => {
    expect(buildWebhookPayload(WEBHOOK_ID, { url: 'https://h.example/' }, { type: 'crawl.started', id: 'c' }))
      .toEqual({ success: true, type: 'crawl.started', id: 'c', webhookId: WEBHOOK_ID, data: [], metadata: {} });
    expect(buildWebhookPayload(WEBHOOK_ID, { url: 'https://h.example/' }, { type: 'batch_scrape.completed', id: 'b', data: [1, 2] }).data)
      .toEqual([1, 2]);
  });

  it('marks an event with an error as unsuccessful and carries the error', () => {
    const payload = buildWebhookPayload(WEBHOOK_ID, { url: 'https://h.example/' }, { type: 'crawl.failed', id: 'c', error: 'robots.txt refused' });
    expect(payload).toMatchObject({ success: false, error: 'robots.txt refused', data: [] });
  });
});

describe('webhookRetryDelay', () => {
  it('doubles from the base delay per failed attempt', () => {
    expect([1, 2, 3, 4, 10].map((n) => webhookRetryDelay(n, 1000))).toEqual([1000, 2000, 4000, 8000, 512_000]);
  });

  it('waits for a longer Retry-After, capped, and never less than the backoff', () => {
    expect(webhookRetryDelay(1, 1000, 30_000)).toBe(30_000);
    expect(webhookRetryDelay(3, 1000, 500)).toBe(4000);
    expect(webhookRetryDelay(1, 1000, 86_400_000)).toBe(MAX_WEBHOOK_RETRY_AFTER_MS);
  });
});
