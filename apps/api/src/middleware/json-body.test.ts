import { describe, expect, it } from '@jest/globals';
import { jsonTextDepthExceeds } from './json-body.js';

const depthOver = (text: string, max: number) => jsonTextDepthExceeds(Buffer.from(text), max);

describe('jsonTextDepthExceeds', () => {
  it('counts nesting of objects and arrays outside strings', () => {
    expect(depthOver('{"a":[1,{"b":2}]}', 3)).toBe(false);
    expect(depthOver('{"a":[1,{"b":2}]}', 2)).toBe(true);
    expect(depthOver('[[],[],[]]', 2)).toBe(false);
    expect(depthOver(`${'['.repeat(100_000)}${']'.repeat(100_000)}`, 64)).toBe(true);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(depthOver('{"a":"[[[[{{{{"}', 1)).toBe(false);
    expect(depthOver('{"a":"\\"[[[[\\\\"}', 1)).toBe(false);
    expect(depthOver('{"a":"\\\\","b":[[1]]}', 2)).toBe(true);
  });
});
