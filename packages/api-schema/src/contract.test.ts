import { describe, expect, it } from '@jest/globals';
import { createTeamRequestSchema, updateTeamRequestSchema, createApiKeyRequestSchema, teamSchema } from './admin.js';
import { documentSchema, scrapeResponseSchema } from './document.js';
import { errorResponseSchema } from './error-response.js';
import { INVALID_JOB_ID_MESSAGE, jobIdParamsSchema, jobIdSchema } from './job-id.js';
import { concurrencyCheckResponseSchema, creditUsageResponseSchema, queueStatusResponseSchema } from './team.js';

describe('job id', () => {
  it('accepts a UUID and rejects anything else with the exact message', () => {
    expect(jobIdSchema.parse('3f2504e0-4f89-41d3-9a0c-0305e82c3301')).toBe('3f2504e0-4f89-41d3-9a0c-0305e82c3301');
    const result = jobIdParamsSchema.safeParse({ id: 'not-a-uuid' });
    expect(result.success ? undefined : result.error.issues[0]?.message).toBe(
      'Invalid job ID format. Job ID must be a valid UUID.',
    );
    expect(INVALID_JOB_ID_MESSAGE).toBe('Invalid job ID format. Job ID must be a valid UUID.');
  });
});

describe('admin schemas', () => {
  it('applies team defaults', () => {
    expect(createTeamRequestSchema.parse({ name: 'Acme' })).toEqual({
      name: 'Acme',
      concurrency: 2,
      ratePerMinute: 100,
      credits: null,
      flags: {},
      disabled: false,
    });
  });

  it('checks team limits', () => {
    const bad = (v: Record<string, unknown>) => createTeamRequestSchema.safeParse({ name: 'a', ...v }).success;
    expect(bad({ name: '' })).toBe(false);
    expect(bad({ name: 'x'.repeat(101) })).toBe(false);
    expect(bad({ concurrency: 0 })).toBe(false);
    expect(bad({ concurrency: 1001 })).toBe(false);
    expect(bad({ ratePerMinute: 1_000_001 })).toBe(false);
    expect(bad({ credits: -1 })).toBe(false);
    expect(bad({ flags: { beta: [1] } })).toBe(false);
    expect(bad({ unknown: 1 })).toBe(false);
    expect(bad({ credits: 0, flags: { beta: true, tier: 'pro', n: 3 } })).toBe(true);
  });

  it('needs at least one field to update', () => {
    expect(updateTeamRequestSchema.safeParse({}).success).toBe(false);
    expect(updateTeamRequestSchema.parse({ credits: null })).toEqual({ credits: null });
    expect(updateTeamRequestSchema.parse({ disabled: true })).toEqual({ disabled: true });
    expect(updateTeamRequestSchema.safeParse({ disabled: 'yes' }).success).toBe(false);
    expect(createApiKeyRequestSchema.parse({})).toEqual({});
  });

  it('describes a team record', () => {
    const team = {
      id: 't1',
      name: 'Acme',
      concurrency: 2,
      ratePerMinute: 100,
      credits: null,
      creditsUsed: 0,
      flags: {},
      disabled: false,
      createdAt: '2025-01-01T00:00:00.000Z',
    };
    expect(teamSchema.parse(team)).toEqual(team);
  });
});

describe('response schemas', () => {
  it('accepts a document with metadata catch-all and rejects unknown document members', () => {
    const doc = {
      markdown: '# Hi',
      html: null,
      actions: { screenshots: [], scrapes: [{ url: 'u', html: '<p>' }], javascriptReturns: [{ type: 'number', value: 1 }], pdfs: [] },
      metadata: {
        sourceURL: 'https://a.example',
        url: 'https://a.example/',
        statusCode: 404,
        language: null,
        'og:image': 'x',
        'article:tag': ['a', 'b'],
        proxyUsed: 'basic',
        cacheState: 'miss',
      },
    };
    expect(scrapeResponseSchema.parse({ success: true, data: doc }).data.metadata['og:image']).toBe('x');
    expect(documentSchema.safeParse({ ...doc, extract: {} }).success).toBe(false);
    expect(documentSchema.safeParse({ ...doc, metadata: { ...doc.metadata, custom: 1 } }).success).toBe(false);
  });

  it('checks error and team bodies', () => {
    expect(errorResponseSchema.parse({ success: false, error: 'x', code: 'BAD_REQUEST', details: [] }).code).toBe('BAD_REQUEST');
    expect(errorResponseSchema.safeParse({ success: false, error: 'x', code: 'NOPE' }).success).toBe(false);
    expect(
      creditUsageResponseSchema.safeParse({
        success: true,
        data: { remainingCredits: 1, planCredits: 2, billingPeriodStart: null, billingPeriodEnd: null },
      }).success,
    ).toBe(true);
    expect(
      queueStatusResponseSchema.safeParse({
        success: true,
        jobsInQueue: 1,
        activeJobsInQueue: 1,
        waitingJobsInQueue: 0,
        maxConcurrency: 2,
        mostRecentSuccess: null,
      }).success,
    ).toBe(true);
    expect(concurrencyCheckResponseSchema.safeParse({ success: true, concurrency: 0, maxConcurrency: 2 }).success).toBe(true);
  });
});
