import { z } from 'zod';

/** `GET /v2/team/credit-usage` body. Billing period bounds are ISO 8601 times, null without a billing period. */
export const creditUsageResponseSchema = z
  .strictObject({
    success: z.literal(true),
    data: z.strictObject({
      /** Credits left in the current period; {@link UNLIMITED_USAGE} for a team without a limit. */
      remainingCredits: z.number(),
      /** Credits the plan grants per period; {@link UNLIMITED_USAGE} for a team without a limit. */
      planCredits: z.number(),
      billingPeriodStart: z.string().nullable(),
      billingPeriodEnd: z.string().nullable(),
    }),
  })
  .meta({ id: 'CreditUsageResponse' });

/**
 * What a usage endpoint reports for a team without a limit: a large number rather than null, as the
 * other self-hosted system does (clients do arithmetic and `toLocaleString()` on it).
 */
export const UNLIMITED_USAGE = 99_999_999;

/**
 * `GET /v2/team/token-usage` body: LLM tokens (prompt + completion) of the current billing period.
 * A team has no token plan here: both numbers are {@link UNLIMITED_USAGE}.
 */
export const tokenUsageResponseSchema = z
  .strictObject({
    success: z.literal(true),
    data: z.strictObject({
      /** Tokens left in the current period. */
      remainingTokens: z.number(),
      /** Tokens the plan grants per period. */
      planTokens: z.number(),
      billingPeriodStart: z.string().nullable(),
      billingPeriodEnd: z.string().nullable(),
    }),
  })
  .meta({ id: 'TokenUsageResponse' });

/** Token usage body. */
export type TokenUsageResponse = z.output<typeof tokenUsageResponseSchema>;

/** Query of the historical usage endpoints: `byApiKey=true` asks for one entry per API key and period. */
export const usageHistoryQuerySchema = z.object({
  byApiKey: z.enum(['true', 'false']).optional().transform((v) => v === 'true'),
});

/**
 * A `/historical` usage body: the team's billing periods, newest first, with the amount used in each
 * under `field`. Use is recorded per team, not per key: `apiKey` is never set.
 */
function usageHistoricalResponseSchema<F extends 'tokensUsed' | 'creditsUsed'>(field: F, id: string) {
  return z
    .strictObject({
      success: z.literal(true),
      periods: z.array(z.strictObject({
        /** Period start, ISO 8601. */
        startDate: z.string().nullable(),
        /** Period end (excluded), ISO 8601. */
        endDate: z.string().nullable(),
        apiKey: z.string().optional(),
        ...({ [field]: z.number().int().min(0) } as Record<F, z.ZodNumber>),
      })),
    })
    .meta({ id });
}

/** `GET /v2/team/token-usage/historical` body: LLM tokens used per billing period. */
export const tokenUsageHistoricalResponseSchema = usageHistoricalResponseSchema('tokensUsed', 'TokenUsageHistoricalResponse');

/** Historical token usage body. */
export type TokenUsageHistoricalResponse = z.output<typeof tokenUsageHistoricalResponseSchema>;

/** `GET /v2/team/credit-usage/historical` body: credits charged per billing period. */
export const creditUsageHistoricalResponseSchema = usageHistoricalResponseSchema('creditsUsed', 'CreditUsageHistoricalResponse');

/** Historical credit usage body. */
export type CreditUsageHistoricalResponse = z.output<typeof creditUsageHistoricalResponseSchema>;

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
