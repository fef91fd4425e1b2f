import { randomUUID } from 'node:crypto';
import { EXTRACT_WILDCARD_SUFFIX, TrawlError, httpUrlSchema, type Capability, type ExtractRequest } from '@trawl/api-schema';
import { queueExtractStart, type CrawlCoordinator, type CrawlStore, type CreditLedger, type ExtractRecord, type ExtractStore, type JobCancellations, type QueueSet, type Team } from '@trawl/queue';
import { assertWebhookTargetAllowed } from '../assert-webhook-target-allowed.js';
import { assertCapabilities } from './assert-capabilities.js';
import { assertLlmConfigured } from './assert-llm.js';

export interface ExtractServiceDeps {
  store: ExtractStore;
  queues: QueueSet;
  credits: Pick<CreditLedger, 'ensureAvailable'>;
  /** The batch of a cancelled extract's pages is cancelled with it. */
  crawls: Pick<CrawlStore, 'get'>;
  coordinator: Pick<CrawlCoordinator, 'cancel'>;
  cancellations: Pick<JobCancellations, 'cancel'>;
  capabilities: ReadonlySet<Capability>;
  llmConfigured: boolean;
  /** A search provider serves web search (`enableWebSearch`, extracts without urls). Default false. */
  webSearch?: boolean;
  /** Webhooks may point at private addresses. */
  webhookAllowPrivate: boolean;
  /** How long a finished extract's result stays, seconds (the crawl retention). */
  retentionSec: number;
  now?: () => number;
}

/**
 * `POST /v2/extract` at the gateway: validation beyond the schema (web search, LLM, capabilities,
 * URLs, webhook target), credits, the record and one `start` job; the work runs on the workers.
 */
export class ExtractService {
  private readonly now: () => number;

  constructor(private readonly deps: ExtractServiceDeps) {
    this.now = deps.now ?? Date.now;
  }

  async start(team: Team, request: ExtractRequest): Promise<{ id: string; invalidURLs?: string[] }> {
    const urls = request.urls ?? [];
    if ((request.enableWebSearch || urls.length === 0) && this.deps.webSearch !== true) {
      throw new TrawlError('UNSUPPORTED_OPTION', urls.length === 0
        ? 'An extract without urls needs web search to find pages, which is turned off on this server (TRAWL_SEARCH_PROVIDER=none): give urls'
        : 'The option enableWebSearch needs web search, which is turned off on this server (TRAWL_SEARCH_PROVIDER=none)', {
        details: { option: urls.length === 0 ? 'urls' : 'enableWebSearch', capability: 'search' },
      });
    }
    assertLlmConfigured(this.deps.llmConfigured, 'extract');
    if (request.scrapeOptions) assertCapabilities(request.scrapeOptions, this.deps.capabilities, 'scrapeOptions.');
    if (request.webhook) assertWebhookTargetAllowed(request.webhook.url, { allowPrivate: this.deps.webhookAllowPrivate });
    const { valid, invalid } = splitUrls(urls);
    if (invalid.length > 0 && !request.ignoreInvalidURLs) {
      throw new TrawlError('BAD_REQUEST', `Invalid URLs: ${invalid.slice(0, 5).join(', ')}${invalid.length > 5 ? ', ...' : ''}`, {
        details: { invalidURLs: invalid },
      });
    }
    // With web search the pages come from the search (a prompt-only extract has no URLs at all).
    if (valid.length === 0 && !request.enableWebSearch && urls.length > 0) throw new TrawlError('BAD_REQUEST', 'No valid URLs to extract from', { details: { invalidURLs: invalid } });
    await this.deps.credits.ensureAvailable(team.id, 1);
    const id = randomUUID();
    const record = await this.deps.store.create({
      id, teamId: team.id, request, urls: valid, createdAt: this.now(),
      zeroDataRetention: request.zeroDataRetention,
      // Zero-data-retention results stay only long enough to be read: an hour after the end at most.
      retentionSec: request.zeroDataRetention ? Math.min(3_600, this.deps.retentionSec) : this.deps.retentionSec,
    });
    await queueExtractStart(this.deps.queues, record);
    return { id, ...(request.ignoreInvalidURLs && invalid.length > 0 ? { invalidURLs: invalid } : {}) };
  }

  /** The record of an extract of this team; 404 otherwise, whatever the reason. */
  async find(team: Team, id: string): Promise<ExtractRecord> {
    const record = await this.deps.store.get(id);
    if (!record || record.teamId !== team.id) throw new TrawlError('JOB_NOT_FOUND', 'Extract job not found or expired');
    return record;
  }

  /** Cancels a running extract (and the scrape of its pages); 409 when it already ended. */
  async cancel(team: Team, id: string): Promise<void> {
    const record = await this.find(team, id);
    const ended = record.status === 'processing'
      && (await this.deps.store.finish(id, { status: 'cancelled' }, { now: this.now(), retentionSec: record.retentionSec }));
    if (!ended) throw new TrawlError('CONFLICT', `The extract already ended (${record.status})`, { details: { status: record.status } });
    const batch = record.batchId !== undefined ? await this.deps.crawls.get(record.batchId) : null;
    if (batch && batch.status === 'scraping' && (await this.deps.coordinator.cancel(batch))) await this.deps.cancellations.cancel(batch.id);
  }
}

/**
 * Splits the request's URLs into valid ones (normalized; a trailing `/*` kept: the whole site) and
 * invalid ones (as given). Pure.
 */
export function splitUrls(urls: readonly string[]): { valid: string[]; invalid: string[] } {
  const valid: string[] = [];
  const invalid: string[] = [];
  for (const raw of urls) {
    const wildcard = raw.endsWith(EXTRACT_WILDCARD_SUFFIX);
    const parsed = httpUrlSchema.safeParse(wildcard ? raw.slice(0, -EXTRACT_WILDCARD_SUFFIX.length) : raw);
    if (!parsed.success) invalid.push(raw);
    else if (!wildcard) valid.push(parsed.data);
    else valid.push(`${parsed.data.replace(/\/+$/, '')}${EXTRACT_WILDCARD_SUFFIX}`);
  }
  return { valid, invalid };
}
