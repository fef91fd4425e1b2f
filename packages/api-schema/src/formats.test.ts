import { describe, expect, it } from '@jest/globals';
import { findFormat, formatListSchema } from './formats.js';
import { toValidationIssues, type ValidationIssue } from './validation-issues.js';

function issues(value: unknown): ValidationIssue[] {
  const result = formatListSchema.safeParse(value);
  if (result.success) throw new Error(`expected failure for ${JSON.stringify(value)}`);
  return toValidationIssues(result.error);
}

describe('formatListSchema', () => {
  it('normalizes every string form to an object', () => {
    const names = ['markdown', 'html', 'rawHtml', 'links', 'summary', 'images', 'audio', 'branding', 'changeTracking', 'menu', 'product'];
    expect(formatListSchema.parse(names)).toEqual(names.map((type) => ({ type })));
    expect(formatListSchema.parse(['screenshot'])).toEqual([{ type: 'screenshot', fullPage: false }]);
  });

  it('accepts the object forms with their fields', () => {
    const parsed = formatListSchema.parse([
      { type: 'json', prompt: 'Extract', schema: { type: 'object' } },
      { type: 'screenshot', fullPage: true, quality: 80, viewport: { width: 1280, height: 720 } },
      { type: 'changeTracking', modes: ['git-diff', 'json'], prompt: 'p', tag: null },
      { type: 'question', question: 'Who?' },
      { type: 'highlights', query: 'price' },
      { type: 'summary' },
      { type: 'markdown' },
    ]);
    expect(parsed[1]).toEqual({ type: 'screenshot', fullPage: true, quality: 80, viewport: { width: 1280, height: 720 } });
    expect(findFormat(parsed, 'question')?.question).toBe('Who?');
    expect(findFormat(parsed, 'json')?.schema).toEqual({ type: 'object' });
    expect(findFormat(parsed, 'links')).toBeUndefined();
    expect(formatListSchema.parse([{ type: 'highlights' }])).toEqual([{ type: 'highlights' }]);
  });

  it('rejects v1 spellings and string forms of parameterized formats with a message naming them', () => {
    expect(issues(['screenshot@fullPage'])[0]?.message).toContain('v1 syntax');
    expect(issues(['extract'])[0]?.message).toContain('renamed');
    expect(issues(['json'])[0]?.message).toContain('object form');
    expect(issues(['question'])[0]?.message).toContain('object form');
    expect(issues(['pdf'])[0]?.message).toContain('Unknown format "pdf"');
    expect(issues([{ type: 'xml' }])[0]?.message).toContain('Unknown format type "xml"');
    expect(issues([42])[0]?.path).toBe('[0]');
  });

  it('rejects duplicates, also across string and object forms', () => {
    expect(issues(['markdown', 'markdown'])).toEqual([expect.objectContaining({ path: '[1]', message: 'Duplicate format "markdown"' })]);
    expect(issues(['screenshot', { type: 'screenshot', fullPage: true }])[0]?.path).toBe('[1]');
  });

  it('checks object fields, naming the inner field in the path or the message', () => {
    // zod reports some inner failures at the item (union) path; the message then starts with the inner path.
    const located = (value: unknown): string => issues(value).map((i) => `${i.path} ${i.message}`).join('\n');
    expect(located([{ type: 'screenshot', quality: 101 }])).toMatch(/^\[0\](\.| )quality/);
    expect(located([{ type: 'screenshot', viewport: { width: 10 } }])).toMatch(/^\[0\](\.| )viewport\.height/);
    expect(located([{ type: 'question' }])).toMatch(/^\[0\](\.| )question/);
    expect(located([{ type: 'changeTracking', modes: ['html'] }])).toMatch(/^\[0\](\.| )modes\[0\]/);
    expect(located([{ type: 'markdown', extra: true }])).toMatch(/^\[0\]\.extra /);
  });

  it('accepts attributes, rawBase64 and video (issue 19) and keeps rawBase64 alone', () => {
    const selectors = [{ selector: 'a.nav', attribute: 'href' }];
    expect(formatListSchema.parse([{ type: 'attributes', selectors }, 'markdown'])).toEqual([{ type: 'attributes', selectors }, { type: 'markdown' }]);
    expect(formatListSchema.parse(['rawBase64'])).toEqual([{ type: 'rawBase64' }]);
    expect(formatListSchema.parse(['video'])).toEqual([{ type: 'video' }]);
    expect(issues(['markdown', 'rawBase64'])).toEqual([
      expect.objectContaining({ path: '[1]', message: expect.stringContaining('rawBase64 format must be the only format') }),
    ]);
    expect(issues([{ type: 'attributes', selectors: [] }])[0]?.path).toBe('[0].selectors');
    expect(issues(['attributes'])[0]?.message).toContain('object form');
  });

  it('names an unknown format string and lists the accepted ones', () => {
    const message = issues(['markdown', 'pdfText'])[0]?.message ?? '';
    expect(message).toContain('"pdfText"');
    for (const name of ['markdown', 'rawBase64', 'video', 'attributes', 'json']) expect(message).toContain(name);
  });
});
