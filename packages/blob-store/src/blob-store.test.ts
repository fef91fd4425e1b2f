import { describe, expect, it } from '@jest/globals';
import { assertValidContentType, resolveUrlTtlSec } from './blob-store.js';

describe('assertValidContentType', () => {
  it.each(['image/png', 'application/pdf', 'audio/mpeg', 'text/plain; charset=utf-8', 'image/svg+xml'])('accepts %s', (t) => {
    expect(() => assertValidContentType(t)).not.toThrow();
  });
  it.each([
    '',
    'png',
    'image/',
    'image/png\r\nSet-Cookie: a=b',
    'image/png; charset',
    'a/'.repeat(200),
    'text/plain; name="a\tb"',
    'text/plain; name="é"',
  ])('rejects %j', (t) => {
    expect(() => assertValidContentType(t)).toThrow(expect.objectContaining({ code: 'BLOB_INVALID_KEY' }));
  });
});

describe('resolveUrlTtlSec', () => {
  it('uses the requested lifetime, else the default, within 1 s .. 7 days', () => {
    expect(resolveUrlTtlSec(60, 86_400)).toBe(60);
    expect(resolveUrlTtlSec(undefined, 86_400)).toBe(86_400);
    expect(() => resolveUrlTtlSec(0, 86_400)).toThrow(RangeError);
    expect(() => resolveUrlTtlSec(1.5, 86_400)).toThrow(RangeError);
    expect(() => resolveUrlTtlSec(604_801, 86_400)).toThrow(RangeError);
  });
});
