import type { JsonSchema } from './types.js';

/** The merge of per-chunk (or per-page) extractions. */
export interface MergeResult {
  value: unknown;
  /** JSON paths of scalar fields on which the parts disagreed (first non-empty value kept). */
  conflicts: string[];
}

type Shape = 'object' | 'array' | 'other';
type JsonObject = { [key: string]: unknown };

/**
 * Merges extractions of parts of one document (or of several pages): arrays concatenated and
 * de-duplicated (deep equality), objects merged field by field, scalars from the first part that has a
 * non-empty value. A top-level array schema works. Nulls and empty parts are skipped.
 */
export function mergeExtractions(parts: readonly unknown[], schema?: JsonSchema): MergeResult {
  const conflicts = new Set<string>();
  const root = schema === undefined ? undefined : { root: schema, node: schema };
  let value: unknown = undefined;
  for (const part of parts) value = mergeValue(value, part, '', root, conflicts);
  value = fillArrays(value, root);
  if (isEmpty(value)) {
    const shape = root === undefined ? shapeOfParts(parts) : shapeOf(root);
    if (shape === 'object' && !isPlainObject(value)) value = {};
    else if (shape === 'array') value = [];
    else if (value === undefined) value = null;
  }
  return { value, conflicts: [...conflicts] };
}

/** A schema node with the root it belongs to (for local `$ref`s). */
interface SchemaAt {
  root: JsonSchema;
  node: unknown;
}

function mergeValue(acc: unknown, next: unknown, path: string, schema: SchemaAt | undefined, conflicts: Set<string>): unknown {
  const shape = schema === undefined ? 'other' : shapeOf(schema);
  if (shape === 'array') {
    // The schema says array: a lone value the model gave instead of a list is a list of one.
    acc = asArray(acc);
    next = asArray(next);
  }
  if (isEmpty(next)) return acc === undefined ? next : acc;
  if (isEmpty(acc)) return Array.isArray(next) ? dedupe(next) : isPlainObject(next) ? mergeObject({}, next, path, schema, conflicts) : next;
  if (Array.isArray(acc) && Array.isArray(next)) return dedupe([...acc, ...next]);
  if (isPlainObject(acc) && isPlainObject(next)) return mergeObject(acc, next, path, schema, conflicts);
  if (canonical(acc) !== canonical(next)) conflicts.add(path === '' ? '$' : path);
  return acc;
}

function mergeObject(acc: JsonObject, next: JsonObject, path: string, schema: SchemaAt | undefined, conflicts: Set<string>): JsonObject {
  // A Map, not property assignment: keys such as "toString" or "__proto__" are plain data here.
  const out = new Map<string, unknown>(Object.entries(acc));
  for (const [key, value] of Object.entries(next)) {
    out.set(key, mergeValue(out.get(key), value, joinPath(path, key), propertySchema(schema, key), conflicts));
  }
  return Object.fromEntries(out);
}

/** Array fields of the schema that no part filled become `[]` (the shape the caller asked for). */
function fillArrays(value: unknown, schema: SchemaAt | undefined): unknown {
  if (schema === undefined || !isPlainObject(value)) return value;
  const properties = propertiesOf(schema);
  if (properties === undefined) return value;
  const out = new Map<string, unknown>(Object.entries(value));
  for (const key of Object.keys(properties)) {
    const sub = propertySchema(schema, key);
    if (sub === undefined) continue;
    const field = out.get(key);
    if (shapeOf(sub) === 'array' && (field === undefined || field === null)) out.set(key, []);
    else if (isPlainObject(field)) out.set(key, fillArrays(field, sub));
  }
  return Object.fromEntries(out);
}

function joinPath(path: string, key: string): string {
  const step = /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
  if (path === '') return /^[A-Za-z_$][\w$]*$/.test(key) ? key : `[${step}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${step}]`;
}

/** Null, undefined, '', [] and {} carry no information: a later part may fill them. */
function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return isPlainObject(value) && Object.keys(value).length === 0;
}

function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asArray(value: unknown): unknown {
  return isEmpty(value) || Array.isArray(value) ? value : [value];
}

function dedupe(values: readonly unknown[]): unknown[] {
  const seen = new Set<string>();
  const out: unknown[] = [];
  for (const value of values) {
    const key = canonical(value);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(value);
  }
  return out;
}

/** JSON with object keys sorted: equal for deeply equal values whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value).filter((k) => value[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

function shapeOfParts(parts: readonly unknown[]): Shape {
  if (parts.some(Array.isArray)) return 'array';
  return parts.some(isPlainObject) ? 'object' : 'other';
}

/** The node itself, following local `$ref`s (`#/$defs/x`, `#/definitions/x`) and a nullable `anyOf`/`oneOf`. */
function resolve(schema: SchemaAt): JsonObject | undefined {
  let node = schema.node;
  for (let depth = 0; depth < 16 && isPlainObject(node); depth++) {
    const ref = node.$ref;
    if (typeof ref === 'string' && ref.startsWith('#/')) {
      node = ref
        .slice(2)
        .split('/')
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
        .reduce<unknown>((at, key) => (isPlainObject(at) ? at[key] : undefined), schema.root);
      continue;
    }
    const alternatives = node.anyOf ?? node.oneOf;
    if (node.type === undefined && node.properties === undefined && node.items === undefined && Array.isArray(alternatives)) {
      const nonNull = alternatives.filter((a) => !(isPlainObject(a) && a.type === 'null'));
      if (nonNull.length === 1) {
        node = nonNull[0];
        continue;
      }
    }
    return node;
  }
  return undefined;
}

function shapeOf(schema: SchemaAt): Shape {
  const node = resolve(schema);
  if (node === undefined) return 'other';
  const types: unknown[] = Array.isArray(node.type) ? node.type : [node.type];
  if (types.includes('array')) return 'array';
  if (types.includes('object')) return 'object';
  if (node.type === undefined) {
    if (node.items !== undefined || node.prefixItems !== undefined) return 'array';
    if (node.properties !== undefined) return 'object';
  }
  return 'other';
}

function propertiesOf(schema: SchemaAt): JsonObject | undefined {
  const properties = resolve(schema)?.properties;
  return isPlainObject(properties) ? properties : undefined;
}

function propertySchema(schema: SchemaAt | undefined, key: string): SchemaAt | undefined {
  if (schema === undefined) return undefined;
  const properties = propertiesOf(schema);
  if (properties === undefined || !Object.hasOwn(properties, key)) return undefined;
  return { root: schema.root, node: properties[key] };
}
