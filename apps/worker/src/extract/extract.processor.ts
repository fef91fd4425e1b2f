import { UnrecoverableError, type Job } from 'bullmq';
import { TrawlError } from '@trawl/api-schema';
import type { Logger } from '@trawl/observability';
import { parseJob, type ExtractStore, type WebhookSender } from '@trawl/queue';
import { endExtract } from './end-extract.js';
import type { ExtractFinisher } from './extract-finisher.js';
import type { ExtractStarter } from './extract-starter.js';

export interface ExtractProcessorDeps {
  starter: Pick<ExtractStarter, 'run'>;
  finisher: Pick<ExtractFinisher, 'run'>;
  extracts: Pick<ExtractStore, 'get' | 'finish' | 'claimOnce'>;
  webhooks: Pick<WebhookSender, 'send'>;
  logger: Logger;
  shutdown: AbortSignal;
  now?: () => number;
}

/**
 * Consumer of the `extract` queue (`http` role): the start of an extract, and its finish once its
 * pages are scraped. A step that throws is retried by BullMQ (LLM_ERROR with backoff); when it throws
 * on its last attempt (or for good), the extract fails with that error, so no extract is left
 * `processing` until it expires.
 */
export class ExtractProcessor {
  constructor(private readonly deps: ExtractProcessorDeps) {}

  async process(bullJob: Pick<Job, 'data' | 'attemptsMade' | 'opts'>): Promise<void> {
    const job = parseJob('extract', bullJob.data);
    try {
      if (job.kind === 'start') await this.deps.starter.run(job);
      else await this.deps.finisher.run(job);
    } catch (err) {
      if (this.deps.shutdown.aborted) throw err;
      const te = TrawlError.from(err);
      const attemptsLeft = (bullJob.opts.attempts ?? 1) - (bullJob.attemptsMade + 1);
      if (attemptsLeft > 0 && te.retryable && !(err instanceof UnrecoverableError)) throw te;
      const extract = await this.deps.extracts.get(job.extractId);
      if (extract?.status === 'processing') {
        await endExtract(this.deps, extract, { status: 'failed', error: te.message }, (this.deps.now ?? Date.now)());
      }
    }
  }
}
