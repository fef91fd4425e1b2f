import { describe, expect, it } from '@jest/globals';
import type { Document } from '@trawl/api-schema';
import type { WebhookEvent } from './build-webhook-payload.js';
import { webhookCrawlNotifier } from './crawl-notifier.js';
import type { CrawlRecord } from './crawl-store.js';

/** A sender that records each queue job it would add: one `send` is one job, one `sendBatch` one job. */
function recordingSender() {
  const jobs: { crawl: string; types: string[]; pages: string[] }[] = [];
  const add = (events: readonly WebhookEvent[]) => {
    jobs.push({
      crawl: events[0]!.id,
      types: events.map((e) => e.type),
      pages: events.map((e) => ((e.data as Document[] | undefined)?.[0]?.markdown ?? '') as string),
    });
  };
  return {
    jobs,
    send: async (_team: string, _config: unknown, event: WebhookEvent) => {
      add([event]);
      return 'id';
    },
    sendBatch: async (_team: string, _config: unknown, events: readonly WebhookEvent[]) => {
      add(events);
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
    expect(sender.jobs).toEqual([{ crawl: 'c1', types: ['crawl.page', 'crawl.page', 'crawl.page'], pages: ['a', 'b', 'c'] }]);
    await notify(crawl('c1'), 'completed');
    expect(sender.jobs.slice(1)).toEqual([
      { crawl: 'c1', types: ['crawl.page'], pages: ['d'] },
      { crawl: 'c1', types: ['crawl.completed'], pages: [''] },
    ]);
    await notify.flush();
    expect(sender.jobs.slice(3)).toEqual([{ crawl: 'c2', types: ['batch_scrape.page'], pages: ['x'] }]);
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
    expect(sender.jobs).toEqual([{ crawl: 'c1', types: ['crawl.page', 'crawl.page'], pages: ['a', 'b'] }]);

    const single = recordingSender();
    const unbatched = webhookCrawlNotifier(single, (err) => { throw err; }, { maxEvents: 1 });
    await unbatched(crawl('c1'), 'page', { document: doc('a') });
    await unbatched(crawl('c1'), 'page', { document: doc('b') });
    expect(single.jobs.map((j) => j.pages)).toEqual([['a'], ['b']]);
  });

  it('a crawl without a webhook holds nothing', async () => {
    const sender = recordingSender();
    const notify = webhookCrawlNotifier(sender, (err) => { throw err; });
    await notify({ ...crawl('c1'), request: { scrapeOptions: {} } } as unknown as CrawlRecord, 'page', { document: doc('a') });
    await notify.flush();
    expect(sender.jobs).toEqual([]);
  });
});
