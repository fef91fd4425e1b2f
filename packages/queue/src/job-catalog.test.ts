import { describe, expect, it } from '@jest/globals';
import { UnrecoverableError } from 'bullmq';
import { parseJob, type ScrapeJob, type WebhookJob } from './job-catalog.js';
import type { JobDispatcher } from './job-dispatcher.js';

const jobId = '00000000-0000-4000-8000-000000000001';
const scrape: ScrapeJob = {
  v: 1, jobId, teamId: 'team', request: { url: 'http://a.example/', formats: ['markdown'] }, deadline: 1, mode: 'async', zeroDataRetention: false,
};
const webhook: WebhookJob = {
  v: 1, webhookId: jobId, teamId: 'team', url: 'https://hooks.example/', headers: {}, event: 'crawl.page', zeroDataRetention: false,
  body: { success: true, type: 'crawl.page', id: jobId, webhookId: jobId, data: [], metadata: {} },
};
const common = { jobId, teamId: 'team', name: 'scrape', priorityClass: 'bulk', enqueuedAt: 0 } as const;

describe('job catalog', () => {
  it('types a submitted job by its queue: a payload of another queue does not compile', () => {
    const specs: Array<Parameters<JobDispatcher['submit']>[0]> = [
      { ...common, queue: 'scrape', data: scrape },
      { ...common, queue: 'browser', data: scrape },
      { ...common, queue: 'webhook', data: webhook },
      // @ts-expect-error a scrape payload is not a webhook job
      { ...common, queue: 'webhook', data: scrape },
      // @ts-expect-error a webhook delivery is not a scrape job
      { ...common, queue: 'scrape', data: webhook },
    ];
    // A scrape job's request is the API's scrape request (its input form), checked by the compiler.
    // @ts-expect-error `url` is required and `formats` holds format names or objects
    const badRequest: ScrapeJob = { ...scrape, request: { formats: [42] } };
    // Handing off goes to a scrape queue only, with a scrape payload.
    const handoffs = [
      // @ts-expect-error the webhook queue takes no handoff
      (d: JobDispatcher) => d.handoff('team', jobId, 'webhook', webhook),
      // @ts-expect-error the documents queue takes a scrape payload
      (d: JobDispatcher) => d.handoff('team', jobId, 'documents', webhook),
    ];
    expect(specs.map((s) => s.queue)).toEqual(['scrape', 'browser', 'webhook', 'webhook', 'scrape']);
    expect(badRequest.request.formats).toEqual([42]);
    expect(handoffs).toHaveLength(2);
  });

  it('reads a payload with its queue schema; the request is only required to be an object', () => {
    expect(parseJob('scrape', scrape).request).toEqual(scrape.request);
    // The worker validates the request itself with the request schema (rolling deploys): not here.
    expect(parseJob('browser', { ...scrape, request: { url: 'file:///upload.pdf', newerField: 1 } }).request).toEqual({ url: 'file:///upload.pdf', newerField: 1 });
    expect(() => parseJob('scrape', { ...scrape, request: 'http://a.example/' })).toThrow(UnrecoverableError);
    expect(() => parseJob('scrape', { ...scrape, request: [] })).toThrow(UnrecoverableError);
    expect(() => parseJob('scrape', webhook)).toThrow(UnrecoverableError);
  });
});
