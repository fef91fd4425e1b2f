import { describe, expect, it } from '@jest/globals';
import { crawlRequestSchema } from './crawl.js';
import { checkPathPattern, MAX_PATH_PATTERNS_PROGRAM_SIZE } from './path-pattern.js';
import { toValidationIssues } from './validation-issues.js';

function issues(body: unknown): { path: string; message: string }[] {
  const r = crawlRequestSchema.safeParse(body);
  if (r.success) throw new Error(`expected failure for ${JSON.stringify(body)}`);
  return toValidationIssues(r.error).map(({ path, message }) => ({ path, message }));
}

describe('checkPathPattern', () => {
  it('accepts RE2 patterns, including ones a backtracking engine chokes on', () => {
    for (const p of ['^/blog/', '(a+)+$', '\\.html$', '(?<slug>[^/]+)$', '\\p{L}+']) expect(checkPathPattern(p).ok).toBe(true);
  });

  it('says why a pattern is refused', () => {
    expect(checkPathPattern('(unclosed')).toEqual({ ok: false, reason: 'missing closing ): `(unclosed`' });
    expect(checkPathPattern('^/(?!private)')).toMatchObject({ ok: false, reason: expect.stringContaining('(?!') });
    expect(checkPathPattern('(a)\\1')).toMatchObject({ ok: false, reason: expect.stringContaining('\\1') });
  });
});

describe('crawl includePaths/excludePaths', () => {
  const url = 'https://example.com/';

  it('names the field, the index and the pattern of each bad entry', () => {
    expect(issues({ url, includePaths: ['^/ok', '(?<=a)b'], excludePaths: ['(a)\\1'] })).toEqual([
      { path: 'includePaths[1]', message: expect.stringContaining('Invalid regular expression "(?<=a)b"') },
      { path: 'excludePaths[0]', message: expect.stringContaining('Invalid regular expression "(a)\\\\1"') },
    ]);
    expect(issues({ url, includePaths: ['(unclosed'] })[0]?.message).toContain('RE2 syntax: no lookaround or backreferences');
  });

  it('refuses a list too costly to run on every URL', () => {
    const heavy = Array.from({ length: 10 }, (_, i) => `[a-z]{${900 + i}}`);
    expect(issues({ url, excludePaths: heavy })).toEqual([
      { path: 'excludePaths', message: expect.stringContaining(`at most ${MAX_PATH_PATTERNS_PROGRAM_SIZE}`) },
    ]);
    expect(crawlRequestSchema.parse({ url, excludePaths: heavy.slice(0, 2) }).excludePaths).toHaveLength(2);
  });
});
