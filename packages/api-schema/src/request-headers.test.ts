import { describe, expect, it } from '@jest/globals';
import { requestHeadersSchema } from './request-headers.js';
import { MAX_METADATA_BYTES, jsonDepthExceeds, metadataSchema } from './bounded-json.js';

describe('requestHeadersSchema', () => {
  it('accepts token names and Latin-1 values', () => {
    expect(requestHeadersSchema.safeParse({ 'X-Name': 'caf\u00e9\tok', Cookie: 'a=b; c=d' }).success).toBe(true);
  });

  it.each([
    ['Bad Name', 'v'], ['a:b', 'v'], ['', 'v'], ['x\u00e9', 'v'],
    ['x', 'a\r\nInjected: 1'], ['x', 'a\nb'], ['x', 'a\u0000b'], ['x', '\u2603'],
  ])('refuses %j: %j with an issue at the header', (name, value) => {
    const r = requestHeadersSchema.safeParse({ [name]: value });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual([name]);
    expect(r.error?.issues[0]?.message).toContain(JSON.stringify(name));
  });
});

describe('metadataSchema', () => {
  const nested = (depth: number): unknown => {
    let v: unknown = 1;
    for (let i = 0; i < depth; i++) v = { a: v };
    return v;
  };

  it('bounds depth without recursion, and size', () => {
    expect(jsonDepthExceeds(nested(16), 16)).toBe(false);
    expect(jsonDepthExceeds(nested(17), 16)).toBe(true);
    expect(jsonDepthExceeds([[[]]], 2)).toBe(true);
    expect(metadataSchema.safeParse(nested(16)).success).toBe(true);
    expect(metadataSchema.safeParse(nested(17)).success).toBe(false);
    expect(metadataSchema.safeParse(nested(20_000)).success).toBe(false);
    expect(metadataSchema.safeParse({ a: 'x'.repeat(MAX_METADATA_BYTES) }).success).toBe(false);
    expect(metadataSchema.safeParse({ a: 'x'.repeat(1000), b: [1, { c: null }] }).success).toBe(true);
  });
});
