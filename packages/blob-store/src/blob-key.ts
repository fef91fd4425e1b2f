import { TrawlError } from '@trawl/api-schema';

/**
 * One path segment of a blob key: starts with a letter or digit (so never `.`, `..` or a hidden file),
 * then letters, digits, `.`, `_` or `-`; at most 128 characters. Nothing a file system, a URL or an S3
 * console would escape or interpret.
 */
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** Extensions are short and lowercase, so the same blob never exists as `a.PNG` and `a.png`. */
const EXTENSION = /^[a-z0-9]{1,10}$/;

/** Longest key accepted (characters). S3 allows 1024 bytes; keys also become paths under the blob root. */
export const MAX_BLOB_KEY_LENGTH = 512;
/** Most `/`-separated segments a key may have. */
export const MAX_BLOB_KEY_SEGMENTS = 8;

/** Why a key is invalid, or null when it is valid. Pure; no I/O. */
export function blobKeyProblem(key: string): string | null {
  if (typeof key !== 'string' || key.length === 0) return 'key is empty';
  if (key.length > MAX_BLOB_KEY_LENGTH) return `key is longer than ${MAX_BLOB_KEY_LENGTH} characters`;
  const segments = key.split('/');
  if (segments.length > MAX_BLOB_KEY_SEGMENTS) return `key has more than ${MAX_BLOB_KEY_SEGMENTS} segments`;
  for (const segment of segments) {
    if (!SEGMENT.test(segment)) return 'key segments must match [A-Za-z0-9][A-Za-z0-9._-]*';
  }
  return null;
}

/** True when `key` is a valid blob key (see {@link assertValidBlobKey}). */
export function isValidBlobKey(key: string): boolean {
  return blobKeyProblem(key) === null;
}

/**
 * Throws unless `key` is a valid blob key: 1 to {@link MAX_BLOB_KEY_SEGMENTS} segments separated by `/`,
 * each `[A-Za-z0-9][A-Za-z0-9._-]{0,127}`, at most {@link MAX_BLOB_KEY_LENGTH} characters in all. No
 * leading, trailing or double slash, no `.`/`..` segment, no backslash, no percent-encoding: a valid key
 * is always a relative path strictly inside the store's root.
 * @throws TrawlError `BLOB_INVALID_KEY`.
 */
export function assertValidBlobKey(key: string): void {
  const problem = blobKeyProblem(key);
  if (problem !== null) {
    throw new TrawlError('BLOB_INVALID_KEY', `Invalid blob key: ${problem}`, { details: { reason: problem } });
  }
}

/** Parts of a key built by {@link blobKey}. */
export interface BlobKeyParts {
  /** The owning team's id (a UUID in practice). One segment: `[A-Za-z0-9][A-Za-z0-9._-]*`. */
  teamId: string;
  /** The job that produced the blob. Same character rules as `teamId`. */
  jobId: string;
  /** The blob's name within the job, e.g. `screenshot` or `action-2`. Same character rules. */
  name: string;
  /** File extension without the dot, lowercase letters and digits, e.g. `png`, `pdf`, `mp3`. */
  ext: string;
}

/**
 * Builds the key `<teamId>/<jobId>/<name>.<ext>`. Every part is checked, never escaped: a part that
 * does not fit the rules is a bug in the caller (or unchecked user input), not something to repair.
 * @throws TrawlError `BLOB_INVALID_KEY` naming the bad part.
 */
export function blobKey(parts: BlobKeyParts): string {
  for (const field of ['teamId', 'jobId', 'name'] as const) {
    if (!SEGMENT.test(parts[field])) {
      throw new TrawlError('BLOB_INVALID_KEY', `Invalid blob key part ${field}`, { details: { part: field } });
    }
  }
  if (!EXTENSION.test(parts.ext)) {
    throw new TrawlError('BLOB_INVALID_KEY', 'Invalid blob key part ext', { details: { part: 'ext' } });
  }
  const key = `${parts.teamId}/${parts.jobId}/${parts.name}.${parts.ext}`;
  assertValidBlobKey(key);
  return key;
}

/**
 * Validates a key prefix (S3 `TRAWL_S3_KEY_PREFIX`): same rules as a key, surrounding slashes ignored.
 * Returns it without surrounding slashes, or null when it is invalid.
 */
export function normalizeKeyPrefix(prefix: string): string | null {
  const trimmed = prefix.replace(/^\/+|\/+$/g, '');
  if (trimmed === '') return '';
  return isValidBlobKey(trimmed) ? trimmed : null;
}
