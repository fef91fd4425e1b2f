import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { JOB_CATALOG, QUEUE_NAMES, type QueueName, type QueuePolicy } from './job-catalog.js';
import type { RedisKeys } from './redis-keys.js';

/** The BullMQ queues of the catalog, for producing and inspecting jobs. Owns the Queue objects. */
export class QueueSet {
  private readonly queues = new Map<QueueName, Queue>();

  /**
   * `onError` hears the queues' connection errors (one per reconnection attempt while Redis is
   * down); without a listener BullMQ prints each to stderr.
   */
  constructor(connection: Redis, keys: RedisKeys, opts: { onError?: (err: Error) => void } = {}) {
    for (const name of QUEUE_NAMES) {
      const policy: QueuePolicy = JOB_CATALOG[name].policy;
      const queue = new Queue(name, {
        connection,
        prefix: keys.bullPrefix(name),
        defaultJobOptions: {
          attempts: policy.attempts,
          backoff: { type: policy.backoffType ?? 'exponential', delay: policy.backoffMs },
          removeOnComplete: { age: policy.retentionSec },
          removeOnFail: { age: policy.retentionSec },
        },
      });
      queue.on('error', (err: Error) => opts.onError?.(err));
      this.queues.set(name, queue);
    }
  }

  get(name: string): Queue {
    const q = this.queues.get(name as QueueName);
    if (!q) throw new Error(`unknown queue ${name}`);
    return q;
  }

  all(): Queue[] {
    return [...this.queues.values()];
  }

  async close(): Promise<void> {
    await Promise.all(this.all().map((q) => q.close()));
  }
}
