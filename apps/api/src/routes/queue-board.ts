import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Router } from 'express';
import type { QueueSet } from '@trawl/queue';

/** Where the queue UI lives; `adminAuth` guards everything under /admin. */
export const QUEUE_BOARD_PATH = '/admin/queues';

/**
 * Bull Board over every queue of the catalog. Read-only by default: retrying or removing a job by
 * hand bypasses team admission (the reaper repairs slots, but not the caller waiting for it). Jobs
 * under zero data retention show no payload.
 */
export function queueBoard(queues: QueueSet, opts: { readOnly: boolean }): Router {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(QUEUE_BOARD_PATH);
  const adapters = queues.all().map((queue) => {
    const adapter = new BullMQAdapter(queue, { readOnlyMode: opts.readOnly, allowRetries: !opts.readOnly });
    adapter.setFormatter('data', (data: unknown) => redactZdr(data));
    return adapter;
  });
  createBullBoard({ queues: adapters, serverAdapter, options: { uiConfig: { boardTitle: 'Trawl queues' } } });
  return serverAdapter.getRouter() as Router;
}

/** A zero-data-retention job's payload (its URL, its request) is not shown, only its ids. */
export function redactZdr(data: unknown): unknown {
  if (data === null || typeof data !== 'object') return data;
  const d = data as { zeroDataRetention?: unknown; jobId?: unknown; teamId?: unknown };
  if (d.zeroDataRetention !== true) return data;
  return { jobId: d.jobId, teamId: d.teamId, zeroDataRetention: true, redacted: 'payload hidden: zero data retention' };
}
