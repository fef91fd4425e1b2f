import { describe, expect, it } from '@jest/globals';
import { changeStatusOf, isGone, markdownDiff, normalizeForComparison } from './change-tracking.js';

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
  it('ignores trailing spaces and extra blank lines', () => {
    expect(normalizeForComparison('a  \n\n\n\nb\t\n')).toBe('a\n\nb');
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
