import { z } from 'zod';

/** `GET /v2/team/credit-usage` body. Billing period bounds are ISO 8601 times, null without a billing period. */
export const creditUsageResponseSchema = z
  .strictObject({
    success: z.literal(true),
    data: z.strictObject({
      /** Credits left in the current period. */
      remainingCredits: z.number(),
      /** Credits the plan grants per period. */
      planCredits: z.number(),
      billingPeriodStart: z.string().nullable(),
      billingPeriodEnd: z.string().nullable(),
    }),
  })
  .meta({ id: 'CreditUsageResponse' });

/** Credit usage body. */
export type CreditUsageResponse = z.output<typeof creditUsageResponseSchema>;

/** `GET /v2/team/queue-status` body. `mostRecentSuccess` is an ISO 8601 time or null. */
export const queueStatusResponseSchema = z
  .strictObject({
    success: z.literal(true),
    jobsInQueue: z.number().int().min(0),
    activeJobsInQueue: z.number().int().min(0),
    waitingJobsInQueue: z.number().int().min(0),
    maxConcurrency: z.number().int().min(0),
    mostRecentSuccess: z.string().nullable(),
  })
  .meta({ id: 'QueueStatusResponse' });

/** Queue status body. */
export type QueueStatusResponse = z.output<typeof queueStatusResponseSchema>;

/** `GET /v2/concurrency-check` body: jobs running now and the team's limit. */
export const concurrencyCheckResponseSchema = z
  .strictObject({
    success: z.literal(true),
    concurrency: z.number().int().min(0),
    maxConcurrency: z.number().int().min(0),
  })
  .meta({ id: 'ConcurrencyCheckResponse' });

/** Concurrency check body. */
export type ConcurrencyCheckResponse = z.output<typeof concurrencyCheckResponseSchema>;
