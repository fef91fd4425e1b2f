import { z } from 'zod';

/** Thrown when the environment does not satisfy an app's config schema; lists every problem at once. */
export class ConfigError extends Error {
  readonly issues: readonly string[];
  constructor(issues: readonly string[]) {
    super(`invalid configuration:\n  ${issues.join('\n  ')}`);
    this.name = 'ConfigError';
    this.issues = issues;
  }
}

/**
 * Parses `source` (normally `process.env`, passed in by `main.ts`) with `schema`. Reads nothing else.
 * @throws ConfigError naming each variable that is wrong and why.
 */
export function loadConfig<S extends z.ZodType>(schema: S, source: Record<string, string | undefined>): z.output<S> {
  const result = schema.safeParse(source);
  if (result.success) return result.data;
  throw new ConfigError(result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`));
}
