import { RE2JS } from 're2js';
import { z } from 'zod';

/** Longest `includePaths`/`excludePaths` entry, characters. */
export const MAX_PATH_PATTERN_LENGTH = 2_048;
/** Most entries in one `includePaths`/`excludePaths` list. */
export const MAX_PATH_PATTERNS = 100;
/**
 * Largest total compiled size (RE2 program instructions) of one pattern list. RE2 matches in time
 * proportional to program size times input length, and a crawl runs the list on every discovered URL:
 * this keeps the worst case per URL bounded (realistic patterns are 5 to 50 instructions each).
 */
export const MAX_PATH_PATTERNS_PROGRAM_SIZE = 5_000;

/** Why {@link checkPathPattern} refused a pattern, or its compiled size. */
export type PathPatternCheck = { ok: true; programSize: number } | { ok: false; reason: string };

/**
 * Checks a user path pattern the way crawls run it: RE2 syntax (linear-time matching, so no lookaround
 * and no backreferences), no flags. The one validator of user patterns: `includePaths`/`excludePaths`
 * of crawls and of monitor crawl targets go through {@link pathPatternListSchema}.
 */
export function checkPathPattern(pattern: string): PathPatternCheck {
  try {
    return { ok: true, programSize: RE2JS.compile(pattern).programSize() };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, reason: message.replace(/^error parsing regexp: /, '') };
  }
}

/**
 * `includePaths`/`excludePaths`: RE2 patterns, each compiled once here so a bad one is a 400 naming it
 * (`includePaths[1]: Invalid regular expression "(?=x)": ...`) before anything is queued.
 */
export const pathPatternListSchema = z
  .array(z.string().min(1).max(MAX_PATH_PATTERN_LENGTH))
  .max(MAX_PATH_PATTERNS)
  .superRefine((patterns, ctx) => {
    let total = 0;
    patterns.forEach((pattern, i) => {
      const check = checkPathPattern(pattern);
      if (check.ok) {
        total += check.programSize;
        return;
      }
      ctx.addIssue({
        code: 'custom',
        path: [i],
        message: `Invalid regular expression ${JSON.stringify(pattern)}: ${check.reason} (patterns use RE2 syntax: no lookaround or backreferences)`,
      });
    });
    if (total > MAX_PATH_PATTERNS_PROGRAM_SIZE) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: `These regular expressions are too complex together (${total} RE2 instructions, at most ${MAX_PATH_PATTERNS_PROGRAM_SIZE}); use fewer or simpler patterns`,
      });
    }
  });
