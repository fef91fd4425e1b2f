import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { mergeExtractions } from './merge-extractions.js';

describe('mergeExtractions', () => {
  it('keeps the first non-empty scalar and lists the paths where later parts disagreed', () => {
    const result = mergeExtractions([
      { title: '', price: 10, product: { name: 'Lamp', sku: null } },
      { title: 'Desk lamp', price: 12, product: { name: 'Lamp', sku: 'L-1' } },
      { title: 'Other', price: 10, product: { name: 'Table' } },
    ]);
    expect(result.value).toEqual({ title: 'Desk lamp', price: 10, product: { name: 'Lamp', sku: 'L-1' } });
    expect(result.conflicts).toEqual(['price', 'title', 'product.name']);
  });

  it('concatenates arrays and removes deep duplicates whatever the key order', () => {
    const result = mergeExtractions([
      { items: [{ name: 'a', tags: ['x'] }, { name: 'b' }] },
      { items: [{ tags: ['x'], name: 'a' }, { name: 'c' }] },
      null,
      { items: [] },
    ]);
    expect(result.value).toEqual({ items: [{ name: 'a', tags: ['x'] }, { name: 'b' }, { name: 'c' }] });
    expect(result.conflicts).toEqual([]);
  });

  it('merges top-level arrays', () => {
    expect(mergeExtractions([[1, 2], [2, 3], [], null, [{ a: 1, b: 2 }], [{ b: 2, a: 1 }]]).value).toEqual([1, 2, 3, { a: 1, b: 2 }]);
  });

  it('skips empty values: null, undefined, empty strings, arrays and objects', () => {
    const result = mergeExtractions([{ a: null, b: '', c: [], d: {} }, { a: 1, b: 'x', c: [1], d: { e: true } }]);
    expect(result.value).toEqual({ a: 1, b: 'x', c: [1], d: { e: true } });
    expect(result.conflicts).toEqual([]);
  });

  it('gives an all-empty result the shape of the schema (or of the parts)', () => {
    expect(mergeExtractions([null, {}], { type: 'object', properties: {} }).value).toEqual({});
    expect(mergeExtractions([null, null], { type: 'array', items: { type: 'string' } }).value).toEqual([]);
    expect(mergeExtractions([null, null], { type: ['array', 'null'] }).value).toEqual([]);
    expect(mergeExtractions([]).value).toBeNull();
    expect(mergeExtractions([null, []]).value).toEqual([]);
    expect(mergeExtractions([{}, null]).value).toEqual({});
  });

  it('uses the schema to know a field is an array when parts omit it or give a single value', () => {
    const schema = {
      type: 'object',
      properties: {
        tags: { type: 'array', items: { type: 'string' } },
        authors: { $ref: '#/$defs/people' },
        name: { type: 'string' },
      },
      $defs: { people: { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'null' }] } },
    };
    const result = mergeExtractions([{ name: 'x', authors: 'Ann' }, { authors: ['Bob', 'Ann'] }], schema);
    expect(result.value).toEqual({ name: 'x', authors: ['Ann', 'Bob'], tags: [] });
  });

  it('quotes keys that are not identifiers in conflict paths, and names a root scalar $', () => {
    expect(mergeExtractions([{ 'a.b': { 'x y': 1 } }, { 'a.b': { 'x y': 2 } }]).conflicts).toEqual(['["a.b"]["x y"]']);
    expect(mergeExtractions(['one', 'two']).conflicts).toEqual(['$']);
  });

  const json = fc.jsonValue({ maxDepth: 3 });

  it('is idempotent on one part and keeps every array element of every part', () => {
    fc.assert(
      fc.property(fc.array(fc.array(json, { maxLength: 4 }), { maxLength: 4 }), (parts) => {
        const merged = mergeExtractions(parts, { type: 'array' }).value as unknown[];
        const keys = new Set(merged.map((v) => JSON.stringify(sortKeys(v))));
        expect(keys.size).toBe(merged.length);
        for (const part of parts) for (const v of part) expect(keys.has(JSON.stringify(sortKeys(v)))).toBe(true);
      }),
    );
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.oneof(fc.string({ minLength: 1 }), fc.integer())), (obj) => {
        expect(mergeExtractions([obj, obj])).toEqual({ value: obj, conflicts: [] });
      }),
    );
  });
});

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, sortKeys(v)]));
  }
  return value;
}

describe('mergeExtractions with keys named like Object.prototype members', () => {
  it('treats "toString", "constructor" and "__proto__" as data', () => {
    const a = JSON.parse('{"toString":"x","__proto__":{"polluted":1},"constructor":[1]}') as unknown;
    const b = JSON.parse('{"toString":"y","__proto__":{"other":2},"constructor":[2]}') as unknown;
    const result = mergeExtractions([a, b]);
    expect(result.conflicts).toEqual(['toString']);
    const value = result.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(value, '__proto__')?.value).toEqual({ polluted: 1, other: 2 });
    expect(value.constructor).toEqual([1, 2]);
  });
});
