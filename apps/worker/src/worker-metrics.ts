import { Histogram, type Registry } from '@trawl/observability';

/** Metrics of a worker process; labels are bounded (queue, engine, outcome code). */
export function createWorkerMetrics(registry: Registry) {
  return {
    jobDuration: new Histogram({
      name: 'trawl_job_duration_seconds',
      help: 'Job run time by queue, engine and outcome (success or error code)',
      labelNames: ['queue', 'engine', 'outcome'] as const,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      registers: [registry],
    }),
    admissionWait: new Histogram({
      name: 'trawl_admission_wait_seconds',
      help: 'Time jobs waited for a team concurrency slot (limited jobs only)',
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: [registry],
    }),
  };
}
export type WorkerMetrics = ReturnType<typeof createWorkerMetrics>;
