import { describe, expect, it } from '@jest/globals';
import type { Document } from '@trawl/api-schema';
import type { WebhookEvent } from './build-webhook-payload.js';
import { webhookCrawlNotifier } from './crawl-notifier.js';
import type { CrawlRecord } from './crawl-store.js';

/** A sender that records each queue job it would add: one `send` is one job, one `sendBatch` one job. */
function recordingSender() {
  const jobs: { crawl: string; types: string[]; pages: string[]; pageOf?: string; delayMs?: number }[] = [];
  const add = (events: readonly WebhookEvent[], options: { pageOf?: string; delayMs?: number } = {}) => {
    jobs.push({
      crawl: events[0]!.id,
      types: events.map((e) => e.type),
      pages: events.map((e) => ((e.data as Document[] | undefined)?.[0]?.markdown ?? '') as string),
      ...(options.pageOf !== undefined ? { pageOf: options.pageOf } : {}),
      ...(options.delayMs !== undefined ? { delayMs: options.delayMs } : {}),
    });
  };
  return {
    jobs,
    send: async (_team: string, _config: unknown, event: WebhookEvent, options?: { pageOf?: string; delayMs?: number }) => {
      add([event], options);
      return 'id';
    },
    sendBatch: async (_team: string, _config: unknown, events: readonly WebhookEvent[], options?: { pageOf?: string; delayMs?: number }) => {
      add(events, options);
      return events.map(() => 'id');
    },
  };
}

const crawl = (id: string, kind: 'crawl' | 'batch' = 'crawl') => ({
  id, kind, teamId: 't', zeroDataRetention: false, request: { scrapeOptions: {}, webhook: { url: 'http://hooks.test/in' } },
}) as unknown as CrawlRecord;
const doc = (markdown: string) => ({ markdown, metadata: {} }) as unknown as Document;

describe('webhookCrawlNotifier page batching', () => {
  it('gathers a crawl\'s page events into one job per maxEvents, and sends its held pages before its end', async () => {
    const sender = recordingSender();
    const notify = webhookCrawlNotifier(sender, (err) => { throw err; }, { maxEvents: 3, windowMs: 60_000 });
    for (const p of ['a', 'b', 'c', 'd']) await notify(crawl('c1'), 'page', { document: doc(p) });
    await notify(crawl('c2', 'batch'), 'page', { document: doc('x') });
    // The first three went as one job (full); d and x are held.
    expect(sender.jobs).toEqual([{ crawl: 'c1', types: ['crawl.page', 'crawl.page', 'crawl.page'], pages: ['a', 'b', 'c'], pageOf: 'c1' }]);
    await notify(crawl('c1'), 'completed');
    expect(sender.jobs.slice(1)).toEqual([
      { crawl: 'c1', types: ['crawl.page'], pages: ['d'], pageOf: 'c1' },
      // First checked once other processes' held page events of the crawl are queued.
      { crawl: 'c1', types: ['crawl.completed'], pages: [''], delayMs: 60_000 },
    ]);
    await notify.flush();
    expect(sender.jobs.slice(3)).toEqual([{ crawl: 'c2', types: ['batch_scrape.page'], pages: ['x'], pageOf: 'c2' }]);
  });

  it('a webhook that takes no page events gets the crawl\'s end at once (no batching window to wait out)', async () => {
    const sender = recordingSender();
    const notify = webhookCrawlNotifier(sender, (err) => { throw err; }, { maxEvents: 3, windowMs: 60_000 });
    const endsOnly = { ...crawl('c1'), request: { scrapeOptions: {}, webhook: { url: 'http://hooks.test/in', events: ['completed', 'failed'] } } } as unknown as CrawlRecord;
    await notify(endsOnly, 'completed');
    expect(sender.jobs).toEqual([{ crawl: 'c1', types: ['crawl.completed'], pages: [''] }]);
  });

  it('sends held page events after the window, and one job per page with maxEvents 1', async () => {
    const sender = recordingSender();
    const notify = webhookCrawlNotifier(sender, (err) => { throw err; }, { maxEvents: 10, windowMs: 1 });
    await notify(crawl('c1'), 'page', { document: doc('a') });
    await notify(crawl('c1'), 'page', { document: doc('b') });
    await new Promise<void>((resolve) => {
      const check = () => (sender.jobs.length > 0 ? resolve() : setImmediate(check));
      check();
    });
    await notify.flush();
    expect(sender.jobs).toEqual([{ crawl: 'c1', types: ['crawl.page', 'crawl.page'], pages: ['a', 'b'], pageOf: 'c1' }]);

    const single = recordingSender();
    const unbatched = webhookCrawlNotifier(single, (err) => { throw err; }, { maxEvents: 1 });
    await unbatched(crawl('c1'), 'page', { document: doc('a') });
    await unbatched(crawl('c1'), 'page', { document: doc('b') });
    expect(single.jobs.map((j) => [j.pages, j.pageOf])).toEqual([[['a'], 'c1'], [['b'], 'c1']]);
  });

  it('queues a crawl\'s end only once its held page events are queued (the 25 ms window is not waited out), its page jobs marked for the order', async () => {
    const sender = recordingSender();
    // The batch job's add is slow: the terminal event must not be queued before it.
    let added: () => void = () => undefined;
    const slowAdd = new Promise<void>((resolve) => { added = resolve; });
    const notify = webhookCrawlNotifier({
      send: sender.send,
      sendBatch: async (...args: Parameters<typeof sender.sendBatch>) => {
        await slowAdd;
        return sender.sendBatch(...args);
      },
    }, (err) => { throw err; }, { maxEvents: 25, windowMs: 60_000 });
    await notify(crawl('c1'), 'page', { document: doc('a') });
    await notify(crawl('c1'), 'page', { document: doc('b') });
    let ended = false;
    const end = notify(crawl('c1'), 'completed').then(() => { ended = true; });
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(ended).toBe(false);
    expect(sender.jobs).toEqual([]);
    added();
    await end;
    expect(sender.jobs).toEqual([
      { crawl: 'c1', types: ['crawl.page', 'crawl.page'], pages: ['a', 'b'], pageOf: 'c1' },
      { crawl: 'c1', types: ['crawl.completed'], pages: [''], delayMs: 60_000 },
    ]);
  });

  it('a crawl without a webhook holds nothing', async () => {
    const sender = recordingSender();
    const notify = webhookCrawlNotifier(sender, (err) => { throw err; });
    await notify({ ...crawl('c1'), request: { scrapeOptions: {} } } as unknown as CrawlRecord, 'page', { document: doc('a') });
    await notify.flush();
    expect(sender.jobs).toEqual([]);
  });
});
