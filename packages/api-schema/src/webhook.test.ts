import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES, webhookConfigSchema, webhookEventSelected, webhookPayloadSchema, type WebhookEventType } from './webhook.js';

function issues(input: unknown): string[] {
  const r = webhookConfigSchema.safeParse(input);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

describe('webhookConfigSchema', () => {
  it('normalises a URL string to the object form', () => {
    expect(webhookConfigSchema.parse('https://hooks.example.com/in?t=1')).toEqual({ url: 'https://hooks.example.com/in?t=1' });
  });

  it('keeps headers, metadata and an events filter of full and short forms', () => {
    const config = webhookConfigSchema.parse({
      url: 'http://hooks.example.com/',
      headers: { Authorization: 'Bearer x', 'X-Custom': 'a b' },
      metadata: { run: 7, tags: ['a'] },
      events: ['page', 'crawl.completed'],
    });
    expect(config).toEqual({
      url: 'http://hooks.example.com/',
      headers: { Authorization: 'Bearer x', 'X-Custom': 'a b' },
      metadata: { run: 7, tags: ['a'] },
      events: ['page', 'crawl.completed'],
    });
  });

  it.each([
    ['ftp://hooks.example.com/'],
    ['javascript:alert(1)'],
    ['hooks.example.com/no-scheme'],
    [`https://hooks.example.com/${'a'.repeat(2048)}`],
  ])('refuses the URL %s', (url) => {
    expect(issues(url).length).toBeGreaterThan(0);
    expect(issues({ url }).length).toBeGreaterThan(0);
  });

  it('refuses header values with CR or LF, invalid names and headers the sender owns', () => {
    expect(issues({ url: 'https://h.example/', headers: { 'X-A': 'ok\r\nX-Injected: 1' } })).toEqual([
      expect.stringMatching(/^headers\.X-A: .*CR, LF/),
    ]);
    expect(issues({ url: 'https://h.example/', headers: { 'X-A': 'line\nbreak' } })).toHaveLength(1);
    expect(issues({ url: 'https://h.example/', headers: { 'Bad Name': 'v' } })).toHaveLength(1);
    expect(issues({ url: 'https://h.example/', headers: { 'X-Firecrawl-Signature': 'sha256=00' } })).toEqual([
      expect.stringMatching(/X-Firecrawl-Signature.*set by the sender/),
    ]);
    expect(issues({ url: 'https://h.example/', headers: { 'Content-Length': '1' } })).toHaveLength(1);
  });

  it('refuses unknown keys and unknown event names', () => {
    expect(issues({ url: 'https://h.example/', secret: 'x' })).toHaveLength(1);
    expect(issues({ url: 'https://h.example/', events: ['crawl.finished'] })).toHaveLength(1);
  });

  it('documents the input form in JSON Schema (a URL or the object)', () => {
    const schema = z.toJSONSchema(webhookConfigSchema, { io: 'input' }) as unknown as { $defs: { WebhookConfig: { anyOf: { type: string }[] } } };
    expect(schema.$defs.WebhookConfig.anyOf.map((s) => s.type)).toEqual(['string', 'object']);
  });
});

describe('webhookEventSelected', () => {
  it('selects everything without a filter and nothing with an empty one', () => {
    for (const type of WEBHOOK_EVENT_TYPES) expect(webhookEventSelected(undefined, type)).toBe(true);
    expect(webhookEventSelected([], 'crawl.page')).toBe(false);
  });

  it('matches short forms on the event suffix and full names exactly', () => {
    const selected = (events: Parameters<typeof webhookEventSelected>[0]) =>
      WEBHOOK_EVENT_TYPES.filter((t: WebhookEventType) => webhookEventSelected(events, t));
    expect(selected(['completed'])).toEqual(['crawl.completed', 'batch_scrape.completed', 'extract.completed', 'monitor.check.completed']);
    expect(selected(['page', 'crawl.failed'])).toEqual(['crawl.page', 'crawl.failed', 'batch_scrape.page', 'monitor.page']);
  });
});

describe('webhookPayloadSchema', () => {
  it('accepts the delivered shape', () => {
    const payload = {
      success: false, type: 'crawl.failed', id: 'c1', webhookId: '6f1c1c55-9d6e-4d0e-8f56-1b1a2f1e2d3c',
      data: [], error: 'boom', metadata: {},
    };
    expect(webhookPayloadSchema.parse(payload)).toEqual(payload);
  });
});
