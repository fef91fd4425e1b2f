import type { Job } from 'bullmq';
import { parseJob } from '@trawl/queue';
import type { MonitorCheckFinisher } from './monitor-check-finisher.js';
import type { MonitorCheckStarter } from './monitor-check-starter.js';

/** Consumer of the `monitor` queue (`http` role): scheduled and manual checks, and the end of their targets. */
export class MonitorProcessor {
  constructor(private readonly deps: { starter: MonitorCheckStarter; finisher: MonitorCheckFinisher }) {}

  async process(bullJob: Job): Promise<void> {
    const job = parseJob('monitor', bullJob.data);
    switch (job.kind) {
      case 'check':
        return this.deps.starter.run(job, bullJob);
      case 'target-done':
        return this.deps.finisher.targetDone(job);
    }
  }
}
