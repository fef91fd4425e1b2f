import { describe, expect, it } from '@jest/globals';
import { Registry } from '@trawl/observability';
import { createWorkerMetrics } from './worker-metrics.js';

describe('the jobs-in-flight gauge', () => {
  it('counts every queue on the gauge, and only the scrape queues as scrapes running', async () => {
    const registry = new Registry();
    const metrics = createWorkerMetrics(registry);
    metrics.jobsInFlight.inc({ queue: 'webhook' });
    metrics.jobsInFlight.inc({ queue: 'scrape' });
    metrics.jobsInFlight.inc({ queue: 'browser' });
    expect(metrics.jobsInFlight.scrapesRunning).toBe(2);
    metrics.jobsInFlight.dec({ queue: 'scrape' });
    metrics.jobsInFlight.dec({ queue: 'webhook' });
    expect(metrics.jobsInFlight.scrapesRunning).toBe(1);
    const gauge = await registry.getSingleMetric('trawl_jobs_in_flight')?.get();
    expect(Object.fromEntries((gauge?.values ?? []).map((v) => [v.labels.queue, v.value]))).toEqual({ webhook: 0, scrape: 0, browser: 1 });
  });
});
