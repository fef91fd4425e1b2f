/**
 * An `includePaths` or `excludePaths` entry is not a valid RE2 regular expression. A caller error,
 * never retryable: the API turns it into a 400 naming the field and the pattern.
 */
export class InvalidCrawlPatternError extends Error {
  /** The pattern as the user wrote it. */
  readonly pattern: string;
  /** Which option held it. */
  readonly field: 'includePaths' | 'excludePaths';

  constructor(field: 'includePaths' | 'excludePaths', pattern: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`Invalid regular expression in ${field}: ${JSON.stringify(pattern)} (${reason})`, { cause });
    this.name = 'InvalidCrawlPatternError';
    this.field = field;
    this.pattern = pattern;
  }
}
