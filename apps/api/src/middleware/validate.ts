import type { z } from 'zod';
import { TrawlError, toValidationIssues, validationErrorText } from '@trawl/api-schema';

/**
 * Parses untrusted input once, at the boundary; a failure is a 400 whose details list every issue and
 * whose `error` is the hosted service's text ({@link validationErrorText}; `apiVersion` picks the v1
 * wording of the unknown-key text).
 */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  input: unknown,
  code: 'BAD_REQUEST' | 'INVALID_JOB_ID' = 'BAD_REQUEST',
  opts: { apiVersion?: 'v1' | 'v2' } = {},
): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = toValidationIssues(result.error);
  const message = code === 'INVALID_JOB_ID' ? (issues[0]?.message ?? 'Invalid job ID') : validationErrorText(issues, opts);
  throw new TrawlError(code, message, { details: { issues } });
}
