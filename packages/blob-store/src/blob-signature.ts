import { createHmac, timingSafeEqual } from 'node:crypto';
import { isValidBlobKey } from './blob-key.js';

const SIGNATURE = /^[0-9a-f]{64}$/;
// Unix seconds: digits only (no sign, exponent or fraction), at most 12 of them (year 33658).
const EXPIRES = /^[0-9]{1,12}$/;

/**
 * HMAC-SHA256 (hex, lowercase) of `<key>\n<expires>` with `secret`. The newline cannot occur in a valid
 * key, so no two (key, expires) pairs share a message.
 */
export function blobSignature(opts: { key: string; expires: number; secret: string | Buffer }): string {
  return createHmac('sha256', opts.secret).update(`${opts.key}\n${opts.expires}`).digest('hex');
}

/** Inputs of {@link verifyBlobSignature}, as they arrive in a request (strings, unvalidated). */
export interface VerifyBlobSignatureInput {
  /** The blob key from the URL path (already percent-decoded). */
  key: string;
  /** The `expires` query parameter: unix time in seconds. */
  expires: unknown;
  /** The `signature` query parameter: 64 lowercase hex characters. */
  signature: unknown;
  /** The signing secret of the store that made the URL. */
  secret: string | Buffer;
  /** Current time in milliseconds since the epoch. Default `Date.now()`. */
  nowMs?: number;
}

/**
 * Outcome of {@link verifyBlobSignature}: valid with the seconds left (at least 1), or why not.
 * `invalid` covers malformed parameters, a malformed key and a wrong signature alike, so a caller
 * learns nothing about which part was wrong.
 */
export type BlobSignatureCheck =
  | { ok: true; remainingSec: number }
  | { ok: false; reason: 'invalid' | 'expired' };

/**
 * Checks a signed blob URL's parameters. Pure (no I/O). The signature is checked first, in constant
 * time, and the expiry only after it: an expired URL whose `expires` was edited is `invalid`, never
 * "expired", so `expires` cannot be probed.
 */
export function verifyBlobSignature(input: VerifyBlobSignatureInput): BlobSignatureCheck {
  const { key, expires, signature } = input;
  if (typeof expires !== 'string' || !EXPIRES.test(expires)) return { ok: false, reason: 'invalid' };
  if (typeof signature !== 'string' || !SIGNATURE.test(signature)) return { ok: false, reason: 'invalid' };
  if (!isValidBlobKey(key)) return { ok: false, reason: 'invalid' };
  const expiresSec = Number(expires);
  const expected = Buffer.from(blobSignature({ key, expires: expiresSec, secret: input.secret }), 'hex');
  // Both buffers are 32 bytes (the regex fixed the length), as timingSafeEqual requires.
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) return { ok: false, reason: 'invalid' };
  const remainingSec = expiresSec - Math.floor((input.nowMs ?? Date.now()) / 1000);
  if (remainingSec <= 0) return { ok: false, reason: 'expired' };
  return { ok: true, remainingSec };
}
