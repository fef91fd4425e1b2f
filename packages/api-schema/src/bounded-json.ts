import { z } from 'zod';

/** Deepest nesting of caller metadata (`auditMetadata`, webhook `metadata`): objects and arrays. */
export const MAX_METADATA_DEPTH = 16;
/** Largest caller metadata, bytes of its JSON text (32 KiB): it is copied into every job and webhook. */
export const MAX_METADATA_BYTES = 32 * 1024;

/**
 * Nesting depth of a JSON value (a scalar is 0, `{}` is 1), counted without recursion and stopping
 * once past `limit`, so a value nested thousands of levels deep costs no stack.
 */
export function jsonDepthExceeds(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * Opaque caller metadata: a JSON object at most {@link MAX_METADATA_DEPTH} levels deep and
 * {@link MAX_METADATA_BYTES} bytes as JSON. Depth is checked first: serialising a very deep value
 * would overflow the stack.
 */
export const metadataSchema = z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
  if (jsonDepthExceeds(value, MAX_METADATA_DEPTH)) {
    ctx.addIssue({ code: 'custom', message: `Metadata may be nested at most ${MAX_METADATA_DEPTH} levels deep` });
    return;
  }
  const bytes = new TextEncoder().encode(JSON.stringify(value)).length;
  if (bytes > MAX_METADATA_BYTES) {
    ctx.addIssue({ code: 'custom', message: `Metadata may be at most ${MAX_METADATA_BYTES} bytes as JSON (got ${bytes})` });
  }
});
