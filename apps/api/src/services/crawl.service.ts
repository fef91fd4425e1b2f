import { randomUUID } from 'node:crypto';
import {
  TrawlError, applyPromptOptions, crawlRequestSchema, describeValidationIssues, httpUrlSchema, llmFormatCredits, toValidationIssues,
  type BatchScrapeRequest, type Capability, type CapabilityInput, type CrawlParamsPreviewRequest, type CrawlPromptOptions, type CrawlRequest, type Document,
} from '@trawl/api-schema';
import { assertWebhookTargetAllowed } from '../assert-webhook-target-allowed.js';
import { assertCapabilities } from './assert-capabilities.js';
import { CRAWL_PROMPT_FAILED_MESSAGE, PARAMS_PREVIEW_FAILED_MESSAGE, type CrawlParamsService } from './crawl-params.service.js';
import type { CrawlCoordinator, CrawlKind, CrawlNotifier, CrawlRecord, CrawlStore, CreditLedger, JobCancellations, Team } from '@trawl/queue';

export interface CrawlServiceDeps {
  store: CrawlStore;
  coordinator: CrawlCoordinator;
  /** Stops the pages of a cancelled crawl that are running. */
  cancellations: Pick<JobCancellations, 'cancel'>;
  credits: CreditLedger;
  notify: CrawlNotifier;
  capabilities: ReadonlySet<Capability>;
  /** Derives crawl options from a `prompt` (params-preview, and crawls with `prompt`). */
  params: Pick<CrawlParamsService, 'derive'>;
  /** An LLM is configured: `highlights` are picked by it and cost what the other LLM formats cost. */
  llmConfigured: boolean;
  /** Webhooks may point at private addresses (`TRAWL_WEBHOOK_ALLOW_PRIVATE` or `TRAWL_ALLOW_PRIVATE_TARGETS`). */
  webhookAllowPrivate: boolean;
  /** How long a finished crawl's results stay, seconds. */
  retentionSec: number;
  now?: () => number;
}

/** One page of `GET /v2/crawl/:id`. */
export interface CrawlStatusPage {
  record: CrawlRecord;
  data: Document[];
  /** Skip value of the next page when more documents are stored now. */
  nextSkip?: number;
}

/** The documents of one status page: at most 100 and about 10 MiB of JSON. */
const PAGE_DOCS = 100;
const PAGE_BYTES = 10 * 1024 * 1024;
/** What a crawl start answers beyond its id. */
export interface CrawlStart {
  id: string;
  /** With `prompt`: every option the model derived (those the user set were not applied). */
  promptGeneratedOptions?: CrawlPromptOptions;
  /** With `prompt`: derived options or patterns that were dropped or not applied, one sentence each. */
  warnings?: string[];
}

/** A batch has no page limit beyond its URL count; the store still wants one. */
const BATCH_LIMIT = 1_000_000_000;

/**
 * Crawls and batch scrapes at the gateway: validation beyond the schema (capabilities,
 * URLs), creation, idempotency keys, status pages, errors, cancel, and the active list. The work
 * itself runs on the workers.
 */
export class CrawlService {
  private readonly now: () => number;

  constructor(private readonly deps: CrawlServiceDeps) {
    this.now = deps.now ?? Date.now;
  }

  /**
   * Starts a crawl. With `prompt`, the options the model derives fill those the user did not set:
   * `body` is the raw request body (the parsed `request` has defaults applied, so only the body tells
   * what the user set); the merged body is validated with the crawl schema again.
   */
  async startCrawl(team: Team, parsed: CrawlRequest, opts: { idempotencyKey?: string; body?: unknown; clientGone?: AbortSignal }): Promise<CrawlStart> {
    assertCapabilities(parsed.scrapeOptions, this.deps.capabilities, 'scrapeOptions.');
    if (parsed.webhook) assertWebhookTargetAllowed(parsed.webhook.url, { allowPrivate: this.deps.webhookAllowPrivate });
    await this.deps.credits.ensureAvailable(team.id, this.pageCredits(parsed.scrapeOptions));
    const prompted = parsed.prompt !== undefined ? await this.applyPrompt(team, parsed, opts) : undefined;
    const request = prompted?.request ?? parsed;
    const id = randomUUID();
    await this.claim(team, opts.idempotencyKey, id);
    return this.releaseKeyOnFailure(team, opts.idempotencyKey, id, async () => {
      const crawl = await this.deps.store.create({
        id, kind: 'crawl', teamId: team.id, url: request.url, request,
        limit: request.limit, maxConcurrency: this.concurrency(team, request.maxConcurrency), delayMs: Math.round((request.delay ?? 0) * 1000),
        kickoffDone: false, zeroDataRetention: request.zeroDataRetention, retentionSec: this.retention(request.zeroDataRetention), createdAt: this.now(),
      });
      await this.deps.coordinator.kickoff(crawl);
      if (!prompted) return { id };
      return { id, promptGeneratedOptions: prompted.options, ...(prompted.warnings.length > 0 ? { warnings: prompted.warnings } : {}) };
    });
  }

  /** `POST /v2/crawl/params-preview`: the options a crawl with this prompt would derive. */
  async previewParams(team: Team, request: CrawlParamsPreviewRequest, opts: { clientGone?: AbortSignal } = {}) {
    return this.deps.params.derive(team, { url: request.url, prompt: request.prompt, zeroDataRetention: false }, {
      failureMessage: PARAMS_PREVIEW_FAILED_MESSAGE, ...(opts.clientGone ? { clientGone: opts.clientGone } : {}),
    });
  }

  /** Derives the prompt's options, fills those the user did not set, validates the merged request. */
  private async applyPrompt(team: Team, parsed: CrawlRequest, opts: { body?: unknown; clientGone?: AbortSignal }) {
    const body = opts.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Error('startCrawl with prompt needs the raw request body');
    const derived = await this.deps.params.derive(team, { url: parsed.url, prompt: parsed.prompt!, zeroDataRetention: parsed.zeroDataRetention }, {
      failureMessage: CRAWL_PROMPT_FAILED_MESSAGE, ...(opts.clientGone ? { clientGone: opts.clientGone } : {}),
    });
    const merged = applyPromptOptions(body as Record<string, unknown>, derived.options);
    const result = crawlRequestSchema.safeParse(merged.input);
    if (!result.success) {
      const issues = toValidationIssues(result.error);
      throw new TrawlError('CRAWL_PROMPT_FAILED', CRAWL_PROMPT_FAILED_MESSAGE, { details: { reason: describeValidationIssues(issues), issues, promptGeneratedOptions: derived.options } });
    }
    return { request: result.data, options: derived.options, warnings: [...derived.warnings, ...merged.warnings] };
  }

  /** What the team must be able to pay before a crawl or batch starts: one page with its LLM formats. */
  private pageCredits(options: CapabilityInput): number {
    return 1 + llmFormatCredits(options, { llmConfigured: this.deps.llmConfigured });
  }

  /** Starts a batch (or appends to one with `appendToId`); invalid URLs are dropped or refused. */
  async startBatch(team: Team, request: BatchScrapeRequest, opts: { idempotencyKey?: string }): Promise<{ id: string; invalidURLs?: string[] }> {
    assertCapabilities(request, this.deps.capabilities);
    if (request.webhook) assertWebhookTargetAllowed(request.webhook.url, { allowPrivate: this.deps.webhookAllowPrivate });
    const valid: string[] = [];
    const invalid: string[] = [];
    for (const raw of request.urls) {
      const parsed = httpUrlSchema.safeParse(raw);
      if (parsed.success) valid.push(parsed.data);
      else invalid.push(raw);
    }
    if (invalid.length > 0 && !request.ignoreInvalidURLs) {
      throw new TrawlError('BAD_REQUEST', `Invalid URLs: ${invalid.slice(0, 5).join(', ')}${invalid.length > 5 ? ', ...' : ''}`, {
        details: { invalidURLs: invalid },
      });
    }
    if (valid.length === 0) throw new TrawlError('BAD_REQUEST', 'No valid URLs to scrape', { details: { invalidURLs: invalid } });
    await this.deps.credits.ensureAvailable(team.id, this.pageCredits(request));
    const items = valid.map((url) => ({ key: randomUUID(), url, depth: 0 }));
    const invalidField = request.ignoreInvalidURLs ? { invalidURLs: invalid } : {};
    if (request.appendToId !== undefined) {
      const existing = await this.find(team, request.appendToId, 'batch');
      await this.claim(team, opts.idempotencyKey, existing.id);
      // Indexed before it reopens, so a crash in between never leaves a running batch no watchdog sees.
      await this.deps.store.reindex(existing);
      const { accepted } = await this.deps.store.enqueue(existing.id, items, { reopen: true });
      if (accepted === 0) throw new TrawlError('CONFLICT', 'The batch scrape has ended; start a new one', { details: { status: existing.status } });
      await this.deps.coordinator.pump(existing.id);
      return { id: existing.id, ...invalidField };
    }
    const id = randomUUID();
    await this.claim(team, opts.idempotencyKey, id);
    return this.releaseKeyOnFailure(team, opts.idempotencyKey, id, async () => {
      const { urls: _u, webhook: _w, maxConcurrency: _m, ignoreInvalidURLs: _i, appendToId: _a, origin: _o, integration: _n, ...scrapeOptions } = request;
      const crawl = await this.deps.store.create({
        id, kind: 'batch', teamId: team.id, url: '',
        request: { scrapeOptions, ...(request.webhook ? { webhook: request.webhook } : {}), ...(request.origin ? { origin: request.origin } : {}) },
        limit: BATCH_LIMIT, maxConcurrency: this.concurrency(team, request.maxConcurrency), delayMs: 0,
        // Not "seeded" until its URLs are in: a pump in between must not find it empty and complete it.
        kickoffDone: false, zeroDataRetention: request.zeroDataRetention, retentionSec: this.retention(request.zeroDataRetention), createdAt: this.now(),
      });
      await this.deps.store.enqueue(id, items);
      await this.deps.store.kickoffDone(id);
      if (await this.deps.store.claimOnce(id, 'started')) await this.deps.notify(crawl, 'started');
      await this.deps.coordinator.pump(id);
      return { id, ...invalidField };
    });
  }

  /** A status page: the record and up to 100 documents (10 MiB) from `skip`. */
  async status(team: Team, id: string, kind: CrawlKind | 'any', opts: { skip: number; limit?: number }): Promise<CrawlStatusPage> {
    const record = await this.find(team, id, kind);
    const limit = Math.min(opts.limit ?? PAGE_DOCS, PAGE_DOCS);
    const { docs, more } = await this.deps.store.documents(id, { skip: opts.skip, limit, maxBytes: PAGE_BYTES });
    return { record, data: docs, ...(more ? { nextSkip: opts.skip + docs.length } : {}) };
  }

  async errors(team: Team, id: string, kind: CrawlKind) {
    await this.find(team, id, kind);
    return this.deps.store.errors(id);
  }

  /** Cancels a running crawl or batch; 409 when it already ended. */
  async cancel(team: Team, id: string, kind: CrawlKind): Promise<void> {
    const record = await this.find(team, id, kind);
    if (record.status !== 'scraping' || !(await this.deps.coordinator.cancel(record))) {
      throw new TrawlError('CONFLICT', `The ${kind === 'batch' ? 'batch scrape' : 'crawl'} already ended (${record.status})`, { details: { status: record.status } });
    }
    // Pages running now stop (pages still waiting were withdrawn by the coordinator).
    await this.deps.cancellations.cancel(record.id);
  }

  /** The team's running crawls (not batches), oldest first. */
  async active(team: Team): Promise<CrawlRecord[]> {
    const out: CrawlRecord[] = [];
    for (const id of await this.deps.store.teamCrawlIds(team.id)) {
      const record = await this.deps.store.get(id);
      if (record?.kind === 'crawl' && record.status === 'scraping') out.push(record);
    }
    return out;
  }

  /** The record of a crawl (or batch) of this team; 404 otherwise, whatever the reason. */
  /** The team's crawl or batch (`any`: either, as v1's `GET /v1/crawl/:id` served both); else JOB_NOT_FOUND. */
  async find(team: Team, id: string, kind: CrawlKind | 'any'): Promise<CrawlRecord> {
    const record = await this.deps.store.get(id);
    if (!record || record.teamId !== team.id || (kind !== 'any' && record.kind !== kind)) {
      throw new TrawlError('JOB_NOT_FOUND', `${kind === 'batch' ? 'Batch scrape' : 'Crawl'} job not found or expired`);
    }
    return record;
  }

  /** Zero-data-retention results stay only long enough to be read: an hour after the end at most. */
  private retention(zeroDataRetention: boolean): number {
    return zeroDataRetention ? Math.min(3_600, this.deps.retentionSec) : this.deps.retentionSec;
  }

  /** Pages of one crawl in flight at once: its `maxConcurrency`, at most the team's concurrency. */
  private concurrency(team: Team, requested: number | undefined): number {
    return Math.max(1, Math.min(requested ?? team.concurrency, team.concurrency));
  }

  /** Runs the work an idempotency key guards; when it fails, the key is free again for the retry. */
  private async releaseKeyOnFailure<T>(team: Team, key: string | undefined, id: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (key !== undefined) await this.deps.store.releaseIdempotencyKey(team.id, key, id).catch(() => undefined);
      throw err;
    }
  }

  private async claim(team: Team, key: string | undefined, id: string): Promise<void> {
    if (key === undefined) return;
    const existing = await this.deps.store.claimIdempotencyKey(team.id, key, id);
    if (existing !== null) {
      throw new TrawlError('CONFLICT', 'This idempotency key was already used in the last 24 hours', { details: { id: existing } });
    }
  }

}
