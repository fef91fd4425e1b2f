import type { DocumentBodyStore, JobDispatcher, ScrapeJob } from '@trawl/queue';

/**
 * A fetch stage's decision to move the job to another queue. The job keeps its team slot, its
 * deadline and its admission facts (they travel in the payload); the host slot of this attempt is
 * spent (the next request to the host reserves its own).
 * - `browser`, `js-shell`: the page needs JavaScript;
 * - `browser`, `blocked`: `proxy: auto` met a bot wall on the basic tier, the browser retries enhanced;
 * - `documents`: the response is a PDF, office file, CSV or image, parked for the documents role.
 */
export type Handoff =
  | { queue: 'browser'; reason: 'js-shell' | 'blocked' }
  | { queue: 'documents'; reason: 'document'; bytes: Uint8Array; facts: Omit<NonNullable<ScrapeJob['document']>, 'size'> };

/** Carries a hand-off out: parks a document's bytes, then moves the job (slot and spec) to its new queue. */
export async function executeHandoff(
  deps: { dispatcher: Pick<JobDispatcher, 'handoff'>; documentBodies: Pick<DocumentBodyStore, 'put'> }, job: ScrapeJob, handoff: Handoff, now: number,
): Promise<void> {
  const { hostSlotAt: _slot, hostSlotAttempt: _attempt, ...rest } = job;
  if (handoff.queue === 'browser') {
    await deps.dispatcher.handoff(job.teamId, job.jobId, 'browser', { ...rest, escalation: handoff.reason });
    return;
  }
  const ttlSec = Math.ceil(Math.max(0, job.deadline - now) / 1000) + 60;
  const size = await deps.documentBodies.put(job.jobId, handoff.bytes, { ttlSec, maxBytes: Number.MAX_SAFE_INTEGER });
  await deps.dispatcher.handoff(job.teamId, job.jobId, 'documents', { ...rest, document: { ...handoff.facts, size } });
}
