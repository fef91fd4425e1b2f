import type { z } from 'zod';
import {
  TrawlError, ignoredOptionsOf, ignoredOptionsWarning, splitExperimentalKeys, toValidationIssues, validationErrorText,
  type IgnorableBodyKind,
} from '@trawl/api-schema';

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

/**
 * {@link parseOrThrow} for a request body that may carry options the SDKs send and this server ignores:
 * `__experimental_*` keys are taken out of a copy first, and the `warning` names them with the other
 * accepted-but-ignored options present (undefined when there are none).
 */
export function parseBodyOrThrow<S extends z.ZodType>(schema: S, kind: IgnorableBodyKind, input: unknown): { data: z.output<S>; warning: string | undefined } {
  const { body, keys } = splitExperimentalKeys(input);
  const data = parseOrThrow(schema, body);
  return { data, warning: ignoredOptionsWarning([...keys, ...ignoredOptionsOf(kind, body)]) };
}
