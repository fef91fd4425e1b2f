import { describe, expect, it } from '@jest/globals';
import { actionSchema, actionListSchema, totalActionWaitMs } from './actions.js';
import { toValidationIssues } from './validation-issues.js';

function issuePaths(value: unknown): string[] {
  const result = actionSchema.safeParse(value);
  if (result.success) throw new Error(`expected failure for ${JSON.stringify(value)}`);
  return toValidationIssues(result.error).map((i) => i.path);
}

describe('actionSchema', () => {
  it('applies each action type default', () => {
    expect(actionSchema.parse({ type: 'wait', milliseconds: 1 })).toEqual({ type: 'wait', milliseconds: 1 });
    expect(actionSchema.parse({ type: 'wait', selector: '#x' })).toEqual({ type: 'wait', selector: '#x' });
    expect(actionSchema.parse({ type: 'screenshot' })).toEqual({ type: 'screenshot', fullPage: false });
    expect(actionSchema.parse({ type: 'click', selector: 'a' })).toEqual({ type: 'click', selector: 'a', all: false });
    expect(actionSchema.parse({ type: 'write', text: 'hi' })).toEqual({ type: 'write', text: 'hi' });
    expect(actionSchema.parse({ type: 'press', key: 'Enter' })).toEqual({ type: 'press', key: 'Enter' });
    expect(actionSchema.parse({ type: 'scroll' })).toEqual({ type: 'scroll', direction: 'down' });
    expect(actionSchema.parse({ type: 'scrape' })).toEqual({ type: 'scrape' });
    expect(actionSchema.parse({ type: 'executeJavascript', script: 'return 1' })).toEqual({
      type: 'executeJavascript',
      script: 'return 1',
    });
    expect(actionSchema.parse({ type: 'pdf' })).toEqual({ type: 'pdf', format: 'Letter', landscape: false, scale: 1 });
  });

  it('rejects a wait with both forms or with neither', () => {
    expect(issuePaths({ type: 'wait', milliseconds: 5, selector: '#a' })).toEqual(['']);
    expect(issuePaths({ type: 'wait' })).toEqual(['']);
    const result = actionSchema.safeParse({ type: 'wait' });
    expect(result.success ? '' : result.error.issues[0]?.message).toContain('exactly one of "milliseconds" or "selector"');
  });

  it('checks wait fields', () => {
    expect(issuePaths({ type: 'wait', milliseconds: 0 })).toEqual(['milliseconds']);
    expect(issuePaths({ type: 'wait', milliseconds: 1.5 })).toEqual(['milliseconds']);
    expect(issuePaths({ type: 'wait', milliseconds: 5, timeout: 3 })).toEqual(['timeout']);
  });

  it('checks screenshot quality and viewport', () => {
    expect(actionSchema.parse({ type: 'screenshot', fullPage: true, quality: 100, viewport: { width: 800, height: 600 } }))
      .toEqual({ type: 'screenshot', fullPage: true, quality: 100, viewport: { width: 800, height: 600 } });
    expect(issuePaths({ type: 'screenshot', quality: 0 })).toEqual(['quality']);
    expect(issuePaths({ type: 'screenshot', quality: 101 })).toEqual(['quality']);
    expect(issuePaths({ type: 'screenshot', viewport: { width: 800 } })).toEqual(['viewport.height']);
    expect(issuePaths({ type: 'screenshot', viewport: { width: 1, height: 1, depth: 1 } })).toEqual(['viewport.depth']);
  });

  it('requires the mandatory fields', () => {
    expect(issuePaths({ type: 'click' })).toEqual(['selector']);
    expect(issuePaths({ type: 'write' })).toEqual(['text']);
    expect(issuePaths({ type: 'press' })).toEqual(['key']);
    expect(issuePaths({ type: 'executeJavascript' })).toEqual(['script']);
  });

  it('checks enums and rejects unknown types and fields', () => {
    expect(issuePaths({ type: 'scroll', direction: 'left' })).toEqual(['direction']);
    expect(issuePaths({ type: 'pdf', format: 'B5' })).toEqual(['format']);
    expect(actionSchema.parse({ type: 'pdf', format: 'A4', landscape: true, scale: 0.5 })).toMatchObject({ format: 'A4' });
    expect(issuePaths({ type: 'hover', selector: 'a' })).toEqual(['type']);
    expect(issuePaths({ type: 'scrape', full: true })).toEqual(['full']);
  });
});

describe('actionListSchema', () => {
  it('holds at most 50 actions', () => {
    expect(actionListSchema.safeParse(Array.from({ length: 51 }, () => ({ type: 'scrape' }))).success).toBe(false);
  });

  it('sums wait milliseconds', () => {
    const actions = actionListSchema.parse([
      { type: 'wait', milliseconds: 100 },
      { type: 'wait', selector: 'a' },
      { type: 'wait', milliseconds: 50 },
    ]);
    expect(totalActionWaitMs(actions)).toBe(150);
    expect(totalActionWaitMs(undefined)).toBe(0);
  });
});
