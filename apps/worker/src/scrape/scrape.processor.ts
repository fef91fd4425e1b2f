import { UnrecoverableError, type Job } from 'bullmq';
import { TrawlError, scrapeRequestSchema, type ScrapeRequest } from '@trawl/api-schema';
import type { Logger } from '@trawl/observability';
import { scrapeCredits, scrapeJobSchema, type CreditLedger, type JobDispatcher, type JobOutcome, type ResultStore, type ScrapeJob } from '@trawl/queue';
import type { Fetcher, FetchResult } from '@trawl/scrape-engine';
import type { HtmlConverter } from '../html-converter.js';
import type { WorkerMetrics } from '../worker-metrics.js';
import { buildDocument, pipelineFormats, textFormats } from './build-document.js';

export interface ScrapeProcessorDeps {
  fetcher: Fetcher;
  converter: HtmlConverter;
  results: ResultStore;
  dispatcher: JobDispatcher;
  credits: CreditLedger;
  metrics: WorkerMetrics;
  logger: Logger;
  maxResponseBytes: number;
  /** Aborted when the process shuts down: in-flight jobs stop and go back to the queue. */
  shutdown: AbortSignal;
  now?: () => number;
}

/** A job payload or request that fails validation can never succeed: no retry. */
function parsePayload(data: unknown): { job: ScrapeJob; request: ScrapeRequest } {
  const job = scrapeJobSchema.safeParse(data);
  if (!job.success) throw new UnrecoverableError(`invalid scrape job payload: ${job.error.message}`);
  const request = scrapeRequestSchema.safeParse(job.data.request);
  if (!request.success) throw new UnrecoverableError(`invalid scrape request in job: ${request.error.message}`);
  return { job: job.data, request: request.data };
}

/**
 * Executes one scrape job: fetch -> convert -> document -> charge -> store -> release the slot.
 * Each job's outcome is written exactly once; a job re-run after a crash finds it and only releases.
 */
export class ScrapeProcessor {
  private readonly now: () => number;

  constructor(private readonly deps: ScrapeProcessorDeps) {
    this.now = deps.now ?? Date.now;
  }

  async process(bullJob: Job): Promise<{ ok: boolean }> {
    const { job, request } = parsePayload(bullJob.data);
    const log = this.deps.logger.child({
      jobId: job.jobId, queue: 'scrape', attempt: bullJob.attemptsMade + 1,
      ...(job.zeroDataRetention ? { zdr: true } : { url: request.url }),
    });
    if (await this.deps.results.get(job.jobId)) {
      // Finished before a crash prevented the release: release only.
      await this.deps.dispatcher.release(job.teamId, job.jobId);
      return { ok: true };
    }
    const started = this.now();
    if (job.admission) this.deps.metrics.admissionWait.observe(job.admission.waitMs / 1000);
    try {
      const document = await this.run(job, request, log);
      await this.finish(job, { ok: true, document });
      this.deps.metrics.jobDuration.observe({ queue: 'scrape', engine: 'http', outcome: 'success' }, (this.now() - started) / 1000);
      return { ok: true };
    } catch (err) {
      const te = TrawlError.from(err);
      if (this.deps.shutdown.aborted) throw err; // back to the queue; another worker finishes it
      const attemptsLeft = (bullJob.opts.attempts ?? 1) - (bullJob.attemptsMade + 1);
      if (te.retryable && attemptsLeft > 0 && job.deadline - this.now() > 1000) {
        log.info({ code: te.code }, 'scrape attempt failed, retrying');
        throw te;
      }
      if (te.code === 'UNKNOWN_ERROR') log.error({ err }, 'scrape failed unexpectedly');
      else log.info({ code: te.code }, 'scrape failed');
      await this.finish(job, { ok: false, error: te.toData() });
      this.deps.metrics.jobDuration.observe({ queue: 'scrape', engine: 'http', outcome: te.code }, (this.now() - started) / 1000);
      throw new UnrecoverableError(te.code);
    }
  }

  private async run(job: ScrapeJob, request: ScrapeRequest, log: Logger): Promise<Record<string, unknown>> {
    const remaining = job.deadline - this.now();
    if (remaining <= 0) throw new TrawlError('SCRAPE_TIMEOUT', 'The scrape could not start before its timeout');
    const timeout = AbortSignal.timeout(remaining);
    const signal = AbortSignal.any([timeout, this.deps.shutdown]);
    const page = await this.deps.fetcher.fetch({
      url: request.url,
      headers: request.headers ?? {},
      skipTlsVerification: request.skipTlsVerification,
      signal,
      maxBytes: this.deps.maxResponseBytes,
      ...(request.location?.languages?.length ? { acceptLanguage: request.location.languages.join(', ') } : {}),
    });
    const converted = await this.convert(request, page, signal);
    log.debug({ statusCode: page.statusCode, kind: page.kind, timings: converted.timings }, 'scrape converted');
    const creditsUsed = scrapeCredits({ proxyUsed: 'basic' });
    return buildDocument(request, page, converted, { jobId: job.jobId, admission: job.admission, creditsUsed });
  }

  private async convert(request: ScrapeRequest, page: FetchResult, signal: AbortSignal) {
    switch (page.kind) {
      case 'html':
      case 'xhtml':
        return this.deps.converter.convert(page.text ?? '', {
          url: page.url,
          formats: pipelineFormats(request),
          onlyMainContent: request.onlyMainContent,
          ...(request.includeTags ? { includeTags: request.includeTags } : {}),
          ...(request.excludeTags ? { excludeTags: request.excludeTags } : {}),
          removeBase64Images: request.removeBase64Images,
        }, signal);
      case 'text':
      case 'json':
      case 'xml':
        return textFormats(request, page);
      case 'pdf':
      case 'document':
        throw new TrawlError('SCRAPE_DOCUMENT_PENDING', `The target is a ${page.kind === 'pdf' ? 'PDF' : 'document'} (${page.contentType}); document parsing is not available on this server yet`, {
          details: { contentType: page.contentType },
        });
      default:
        throw new TrawlError('SCRAPE_UNSUPPORTED_CONTENT', `Cannot convert content of type ${page.contentType}`, {
          details: { contentType: page.contentType },
        });
    }
  }

  /** Charge, store the outcome (which wakes the waiting gateway), then free the slot. */
  private async finish(job: ScrapeJob, outcome: JobOutcome): Promise<void> {
    if (outcome.ok) {
      const credits = Number((outcome.document.metadata as { creditsUsed?: number } | undefined)?.creditsUsed ?? 0);
      await this.deps.credits.charge(job.teamId, credits);
    }
    await this.deps.results.put(
      { jobId: job.jobId, teamId: job.teamId, finishedAt: new Date(this.now()).toISOString(), outcome },
      { zeroDataRetention: job.zeroDataRetention },
    );
    await this.deps.dispatcher.release(job.teamId, job.jobId);
  }
}
