import type { Job } from 'bullmq';
import { parseJob } from '@trawl/queue';
import type { ExtractFinisher } from './extract-finisher.js';
import type { ExtractStarter } from './extract-starter.js';

/** Consumer of the `extract` queue (`http` role): the start of an extract, and its finish once its pages are scraped. */
export class ExtractProcessor {
  constructor(private readonly deps: { starter: ExtractStarter; finisher: ExtractFinisher }) {}

  async process(bullJob: Job): Promise<void> {
    const job = parseJob('extract', bullJob.data);
    switch (job.kind) {
      case 'start':
        return this.deps.starter.run(job);
      case 'finish':
        return this.deps.finisher.run(job, bullJob);
    }
  }
}
