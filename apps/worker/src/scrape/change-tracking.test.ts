import { describe, expect, it } from '@jest/globals';
import { MAX_DIFF_CHARS, changeStatusOf, isComparable, isGone, markdownDiff, normalizeForComparison } from './change-tracking.js';

const snap = (markdown: string, gone = false) => ({ url: 'u', markdown, scrapedAt: 1, scrapeId: 'j', gone });

describe('change tracking', () => {
  it('classifies new, same, changed and removed', () => {
    expect(changeStatusOf(null, { markdown: 'a', gone: false })).toBe('new');
    expect(changeStatusOf(snap('a'), { markdown: 'a', gone: false })).toBe('same');
    expect(changeStatusOf(snap('a'), { markdown: 'b', gone: false })).toBe('changed');
    expect(changeStatusOf(snap('a'), { markdown: '', gone: true })).toBe('removed');
    expect(changeStatusOf(snap('', true), { markdown: '', gone: true })).toBe('same');
    expect(changeStatusOf(snap('', true), { markdown: 'a', gone: false })).toBe('changed');
    expect(isGone(404) && isGone(410) && !isGone(500) && !isGone(200)).toBe(true);
  });
  it('ignores trailing spaces and extra blank lines, in linear time on long space runs', () => {
    expect(normalizeForComparison('a  \n\n\n\nb\t\n')).toBe('a\n\nb');
    // A regex with a trailing-space class and `$` takes quadratic time on this (minutes for 300k).
    expect(normalizeForComparison(`a${' '.repeat(300_000)}b`)).toHaveLength(300_002);
  });
  it('compares only real and gone pages', () => {
    expect([200, 204, 404, 410].every(isComparable)).toBe(true);
    expect([301, 403, 429, 500, 503].some(isComparable)).toBe(false);
  });
  it('caps the diff and skips huge versions', () => {
    const lines = (tag: string) => Array.from({ length: 20_000 }, (_, i) => `${tag} line ${i}`).join('\n');
    const diff = markdownDiff(lines('old'), lines('new'))!;
    expect(diff.length).toBeLessThanOrEqual(MAX_DIFF_CHARS + 100);
    expect(diff).toMatch(/diff truncated at \d+ characters\n$/);
    expect(markdownDiff('x'.repeat(1_000_001), 'y')).toBeNull();
  });
  it('writes a unified diff with context', () => {
    const diff = markdownDiff('one\ntwo\nthree', 'one\n2\nthree')!;
    expect(diff).toContain('--- previous');
    expect(diff).toContain('@@ -1,3 +1,3 @@');
    expect(diff).toMatch(/^-two$/m);
    expect(diff).toMatch(/^\+2$/m);
    expect(diff).toMatch(/^ one$/m);
  });
});
