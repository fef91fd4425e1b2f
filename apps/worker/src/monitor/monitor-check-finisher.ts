import type { Logger } from '@trawl/observability';
import {
  monitorCheckView, monitorPageView, nameUuid,
  type CrawlRecord, type CrawlStore, type MonitorCheckRecord, type MonitorJob, type MonitorPageRecord, type MonitorRecord,
  type MonitorStore, type WebhookSender,
} from '@trawl/queue';
import { checkOutcome, documentPage, errorPage, isChange, summarize, type PageContext } from './check-pages.js';

export interface MonitorCheckFinisherDeps {
  monitors: MonitorStore;
  crawls: CrawlStore;
  webhooks: Pick<WebhookSender, 'send'>;
  logger: Logger;
  now?: () => number;
}

type TargetDoneJob = Extract<MonitorJob, { kind: 'target-done' }>;

/** Documents read per crawl store call while collecting a target's pages. */
const DOCS_PER_READ = 500;

/**
 * Finishes a check when the crawl or batch of its last target ended: turns the documents' change
 * tracking results (and the failed pages) into check pages, sends the webhooks only when something
 * changed, then stores the pages and the final record once.
 * The webhooks go out before the record is stored and have ids derived from the check and page: a
 * crash in between sends them again with the same ids, which BullMQ and receivers deduplicate.
 */
export class MonitorCheckFinisher {
  private readonly now: () => number;

  constructor(private readonly deps: MonitorCheckFinisherDeps) {
    this.now = deps.now ?? Date.now;
  }

  async targetDone(job: TargetDoneJob): Promise<void> {
    const { monitors } = this.deps;
    const check = await monitors.getCheck(job.monitorId, job.checkId);
    if (!check || check.status !== 'running') return;
    const done = await monitors.markTargetDone(job.monitorId, job.checkId, job.targetId);
    if (done < check.targetResults.length) return;
    const monitor = await monitors.get(job.monitorId);
    if (!monitor) return;
    await this.finish(monitor, check);
  }

  private async finish(monitor: MonitorRecord, check: MonitorCheckRecord): Promise<void> {
    const { monitors } = this.deps;
    const now = this.now();
    const log = this.deps.logger.child({ monitorId: monitor.id, checkId: check.id });
    const pages: MonitorPageRecord[] = [];
    const failures: string[] = [];
    let credits = 0;
    for (const run of check.targetResults) {
      credits += run.searchCredits ?? 0;
      if (run.searchError !== undefined) failures.push(`target ${run.targetId}: search failed: ${run.searchError}`);
      const crawl = await this.deps.crawls.get(run.crawlId);
      if (!crawl) {
        failures.push(`target ${run.targetId}: no results (its ${run.type === 'crawl' ? 'crawl' : 'batch scrape'} expired or never started)`);
        continue;
      }
      credits += crawl.creditsUsed;
      if (crawl.status === 'failed' || crawl.status === 'cancelled') {
        failures.push(`target ${run.targetId}: ${crawl.kind === 'crawl' ? 'crawl' : 'batch scrape'} ${crawl.status}${crawl.error ? `: ${crawl.error}` : ''}`);
      }
      pages.push(...(await this.targetPages(crawl, { checkId: check.id, targetId: run.targetId, now })));
    }
    const summary = summarize(pages);
    const { status, error } = checkOutcome(summary, failures, check.targetResults.length);
    const changes = pages.filter(isChange);
    const webhook = monitor.config.webhook;
    const final: MonitorCheckRecord = {
      ...check, status, error, summary, finishedAt: now, updatedAt: now, actualCredits: credits,
      billingStatus: credits > 0 ? 'confirmed' : 'not_applicable',
      notificationStatus: { webhook: webhook === undefined ? 'no_webhook' : changes.length === 0 ? 'no_change' : 'sent' },
    };
    if (webhook !== undefined && changes.length > 0) {
      for (const page of changes) {
        await this.deps.webhooks.send(monitor.teamId, webhook, {
          type: 'monitor.page', id: monitor.id, data: [{ ...monitorPageView(page), monitorId: monitor.id, checkId: check.id }],
        }, { webhookId: nameUuid(`monitor-webhook:${check.id}:${page.id}`) });
      }
      await this.deps.webhooks.send(monitor.teamId, webhook, {
        type: 'monitor.check.completed', id: monitor.id, data: [monitorCheckView(final)],
      }, { webhookId: nameUuid(`monitor-webhook:${check.id}:completed`) });
    }
    if (await monitors.finishCheck(final, pages)) {
      log.info({ status, ...summary, credits, notified: final.notificationStatus?.webhook }, 'monitor check finished');
    }
    await monitors.prune(monitor.id, now - monitor.config.retentionDays * 86_400_000, null);
  }

  /** The pages of one target: its documents (change tracking says `removed` for pages gone) and its failed pages. */
  private async targetPages(crawl: CrawlRecord, ctx: PageContext): Promise<MonitorPageRecord[]> {
    const out: MonitorPageRecord[] = [];
    for (let skip = 0; ; ) {
      const { docs, more } = await this.deps.crawls.documents(crawl.id, { skip, limit: DOCS_PER_READ, maxBytes: 64 * 1024 * 1024 });
      for (const doc of docs) out.push(documentPage(doc, ctx));
      skip += docs.length;
      if (!more || docs.length === 0) break;
    }
    const { errors } = await this.deps.crawls.errors(crawl.id);
    for (const e of errors) out.push(errorPage(e, ctx));
    return out;
  }
}
