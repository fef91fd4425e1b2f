import { describe, expect, it } from '@jest/globals';
import { InvalidCrawlPatternError } from './invalid-crawl-pattern-error.js';
import { compilePathPatterns, pathCandidates } from './path-patterns.js';

describe('compilePathPatterns', () => {
  it('matches a catastrophic-backtracking pattern in linear time', () => {
    // A backtracking engine tries 2^40 ways to split the run of `a`s before giving up on `!`: with
    // `new RegExp` this test never returned (a synchronous loop; not even jest's timeout can stop it).
    const evil = compilePathPatterns('includePaths', ['(a+)+$']);
    const path = `/${'a'.repeat(40)}!`;
    expect(evil.matches(pathCandidates(path, ''))).toBe(false);
    expect(evil.matches(pathCandidates(`/${'a'.repeat(40)}`, ''))).toBe(true);
  });

  it('keeps the pattern semantics: unanchored, case-sensitive, against the path', () => {
    const p = compilePathPatterns('includePaths', ['blog/', '^/docs/v\\d+/', '\\.html$']);
    expect(p.matches(['/x/blog/post'])).toBe(true);
    expect(p.matches(['/Blog/post'])).toBe(false);
    expect(p.matches(['/docs/v2/a'])).toBe(true);
    expect(p.matches(['/docs/vx/a'])).toBe(false);
    expect(p.matches(['/a/page.html'])).toBe(true);
    expect(compilePathPatterns('excludePaths', ['Zürich']).matches(['/wiki/Zürich'])).toBe(true);
  });

  it('refuses what RE2 does not support: lookaround and backreferences', () => {
    for (const pattern of ['^/(?!private)', '(?<=a)b', '(a)\\1']) {
      expect(() => compilePathPatterns('excludePaths', [pattern])).toThrow(InvalidCrawlPatternError);
    }
  });
});
