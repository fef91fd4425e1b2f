import type { z } from 'zod';

/** Issues as zod's error maps see them (no `input` needed). */
type RawIssue = z.core.$ZodIssue;

/** One validation problem, as returned to clients in `details` of a 400 `BAD_REQUEST`. */
export interface ValidationIssue {
  /** Dotted path to the offending field, e.g. `actions[2].selector`; `''` for the body itself. */
  path: string;
  /** zod issue code, e.g. `too_big`, `unrecognized_keys`, `custom`. */
  code: string;
  /** Human-readable message; for unknown keys it names the key: `Unrecognized key: "foo"`. */
  message: string;
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

/**
 * Flattens a ZodError into client-facing issues. Unknown keys become one issue per key whose `path`
 * ends with the key itself (`location.foo`), so the offending key is obvious from either field.
 */
export function toValidationIssues(error: z.ZodError): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        issues.push({
          path: formatPath([...issue.path, key]),
          code: issue.code,
          message: `Unrecognized key: "${key}"`,
        });
      }
      continue;
    }
    issues.push({ path: formatPath(issue.path), code: issue.code, message: issue.message });
  }
  return issues;
}

/** One-line summary of validation issues for the `error` field: `timeout: Too big ...; foo: Unrecognized key: "foo"`. */
export function describeValidationIssues(issues: readonly ValidationIssue[]): string {
  if (issues.length === 0) return 'Bad Request';
  const parts = issues.map((i) => (i.path === '' ? i.message : `${i.path}: ${i.message}`));
  return `Bad Request: ${parts.join('; ')}`;
}

/** The `error` of a body with an unknown key, as the hosted service words it (per API version). */
export function unrecognizedKeyText(apiVersion: 'v1' | 'v2' = 'v2'): string {
  return `Unrecognized key in body -- please review the ${apiVersion} API documentation for request body changes`;
}

/**
 * The `error` of a 400 validation failure, as the hosted service words it (clients and test suites
 * match on it): an unknown key gives {@link unrecognizedKeyText}; else a custom rule's own message
 * (`waitFor must not exceed half of timeout`, `URL must have a valid top-level domain or be an IP
 * address`); else `Bad Request`. The issues themselves go in `details`.
 */
export function validationErrorText(issues: readonly ValidationIssue[], opts: { apiVersion?: 'v1' | 'v2' } = {}): string {
  if (issues.some((i) => i.code === 'unrecognized_keys')) return unrecognizedKeyText(opts.apiVersion);
  return issues.find((i) => i.code === 'custom')?.message ?? 'Bad Request';
}

/**
 * Joins the issues of one union branch into a message (`viewport.height: Invalid input...`). Used by union
 * error maps: zod reports a failed union as one issue at the union's path, and this keeps the inner path.
 */
export function joinBranchIssues(issues: readonly RawIssue[]): string {
  return issues.map((i) => (i.path.length > 0 ? `${formatPath(i.path)}: ${i.message}` : i.message)).join('; ');
}
