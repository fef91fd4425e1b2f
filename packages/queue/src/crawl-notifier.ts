import { webhookEventSelected, type Document, type WebhookEventType } from '@trawl/api-schema';
import type { CrawlNotifier } from './crawl-coordinator.js';
import type { CrawlRecord } from './crawl-store.js';
import type { WebhookSender } from './webhook-sender.js';

/** A {@link CrawlNotifier} that may hold page events back briefly; `flush` sends what it holds. */
export type BufferedCrawlNotifier = CrawlNotifier & {
  /** Sends every page event held (all crawls), and waits for sends in progress. */
  flush(): Promise<void>;
};

/** How page events are gathered into one delivery job. */
export interface PageEventBatching {
  /** Page events of one crawl per delivery job at most. Default 25. 1: one job per page (no batching). */
  maxEvents?: number;
  /** How long the first held page event of a crawl waits for others, ms. Default 25. */
  windowMs?: number;
}

interface Held {
  crawl: CrawlRecord;
  documents: Document[];
  timer: NodeJS.Timeout;
}

/**
 * Crawl and batch events as webhook deliveries (`crawl.*` / `batch_scrape.*`), to the webhook the
 * crawl was started with. A failure to enqueue is reported to `onError`, never thrown: a webhook
 * problem must not fail a page.
 *
 * Page events are gathered per crawl (up to `maxEvents`, or `windowMs` after the first) into one
 * delivery job of the same payloads, one POST each with its own `webhookId` (a job per page cost a
 * crawl about a third of its throughput). A page's `notify` returns once its event is held. Any
 * other event of a crawl (`completed`, `failed`) first sends the page events this process holds for
 * it and waits for their jobs to be queued, so a crawl's pages are queued before its end; page
 * deliveries are sent with `pageOf`, so the sender's order holds the terminal delivery until they
 * have been delivered (or given up). A process that dies holding events loses them,
 * as one that died between recording a page and queueing its event always did: page events are at
 * most once; the documents themselves are in the crawl.
 */
export function webhookCrawlNotifier(
  sender: Pick<WebhookSender, 'send' | 'sendBatch'>, onError: (err: unknown) => void, batching: PageEventBatching = {},
): BufferedCrawlNotifier {
  const maxEvents = Math.max(1, batching.maxEvents ?? 25);
  const windowMs = Math.max(0, batching.windowMs ?? 25);
  const held = new Map<string, Held>();
  /** Per crawl, the last send of its page events (each waits for the one before: batches in order). */
  const sending = new Map<string, Promise<void>>();
  const typeOf = (crawl: CrawlRecord, event: string) => `${crawl.kind === 'batch' ? 'batch_scrape' : 'crawl'}.${event}` as WebhookEventType;

  /** Sends the page events held for one crawl (tracked until done). */
  const release = (crawlId: string): Promise<void> => {
    const h = held.get(crawlId);
    const before = sending.get(crawlId);
    if (!h) return before ?? Promise.resolve();
    held.delete(crawlId);
    clearTimeout(h.timer);
    const type = typeOf(h.crawl, 'page');
    const send = () => sender.sendBatch(h.crawl.teamId, h.crawl.request.webhook, h.documents.map((document) => ({ type, id: h.crawl.id, data: [document] })), {
      zeroDataRetention: h.crawl.zeroDataRetention, pageOf: h.crawl.id,
    }).then(() => undefined, onError);
    const p = before ? before.then(send) : send();
    sending.set(crawlId, p);
    void p.then(() => {
      if (sending.get(crawlId) === p) sending.delete(crawlId);
    });
    return p;
  };

  const notify = async (crawl: CrawlRecord, event: Parameters<CrawlNotifier>[1], payload?: Parameters<CrawlNotifier>[2]): Promise<void> => {
    const config = crawl.request.webhook;
    if (config === undefined) return;
    if (event === 'page' && payload?.document !== undefined && maxEvents > 1) {
      const h = held.get(crawl.id);
      if (h) h.documents.push(payload.document);
      else {
        const timer = setTimeout(() => void release(crawl.id), windowMs);
        timer.unref();
        held.set(crawl.id, { crawl, documents: [payload.document], timer });
      }
      if (held.get(crawl.id)!.documents.length >= maxEvents) void release(crawl.id);
      return;
    }
    // The crawl's page events held here go first.
    await release(crawl.id);
    // Another process may hold page events of the crawl for up to the window: the terminal event
    // (held by the sender's order until the page deliveries queued before its first check end) is
    // first checked once that window is over. A webhook that takes no page events waits for none.
    const terminal = maxEvents > 1 && (event === 'completed' || event === 'failed') && webhookEventSelected(config.events, typeOf(crawl, 'page'));
    try {
      await sender.send(crawl.teamId, config, {
        type: typeOf(crawl, event),
        id: crawl.id,
        ...(payload?.document !== undefined ? { data: [payload.document] } : {}),
        ...(payload?.error !== undefined ? { error: payload.error } : {}),
      }, {
        zeroDataRetention: crawl.zeroDataRetention,
        ...(event === 'page' ? { pageOf: crawl.id } : {}),
        ...(terminal && windowMs > 0 ? { delayMs: windowMs } : {}),
      });
    } catch (err) {
      onError(err);
    }
  };

  return Object.assign(notify, {
    async flush(): Promise<void> {
      for (const crawlId of [...held.keys()]) void release(crawlId);
      await Promise.all([...sending.values()]);
    },
  });
}
