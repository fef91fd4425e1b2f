import { describe, expect, it } from '@jest/globals';
import { blobSignature, verifyBlobSignature } from './blob-signature.js';

const secret = 'x'.repeat(32);
const key = 'team/job/screenshot.png';
const nowMs = 1_700_000_000_000;
const expires = nowMs / 1000 + 600;
const signature = blobSignature({ key, expires, secret });

describe('blobSignature', () => {
  it('is HMAC-SHA256 of key and expiry, in lowercase hex', () => {
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    expect(blobSignature({ key, expires, secret })).toBe(signature);
    expect(blobSignature({ key, expires: expires + 1, secret })).not.toBe(signature);
    expect(blobSignature({ key: 'team/job/other.png', expires, secret })).not.toBe(signature);
    expect(blobSignature({ key, expires, secret: 'y'.repeat(32) })).not.toBe(signature);
  });
});

describe('verifyBlobSignature', () => {
  const base = { key, expires: String(expires), signature, secret, nowMs };

  it('accepts a good signature and reports the seconds left', () => {
    expect(verifyBlobSignature(base)).toEqual({ ok: true, remainingSec: 600 });
  });

  it('reports an expired URL once the expiry second is reached', () => {
    expect(verifyBlobSignature({ ...base, nowMs: expires * 1000 - 1000 })).toEqual({ ok: true, remainingSec: 1 });
    expect(verifyBlobSignature({ ...base, nowMs: expires * 1000 })).toEqual({ ok: false, reason: 'expired' });
  });

  it('calls an edited expiry invalid, not expired, even when it is in the past', () => {
    expect(verifyBlobSignature({ ...base, expires: String(expires + 3600) })).toEqual({ ok: false, reason: 'invalid' });
    expect(verifyBlobSignature({ ...base, expires: '1' })).toEqual({ ok: false, reason: 'invalid' });
  });

  it.each([
    ['another key', { key: 'team/job/other.png' }],
    ['another secret', { secret: 'y'.repeat(32) }],
    ['a flipped signature digit', { signature: (signature[0] === 'a' ? 'b' : 'a') + signature.slice(1) }],
    ['an uppercase signature', { signature: signature.toUpperCase() }],
    ['a short signature', { signature: signature.slice(0, 62) }],
    ['a missing signature', { signature: undefined }],
    ['a repeated signature parameter', { signature: [signature, signature] }],
    ['a missing expiry', { expires: undefined }],
    ['a negative expiry', { expires: `-${expires}` }],
    ['a fractional expiry', { expires: `${expires}.5` }],
    ['an exponent expiry', { expires: '1e12' }],
    ['a traversal key', { key: '../team/job/screenshot.png' }],
  ])('rejects %s', (_name, change) => {
    expect(verifyBlobSignature({ ...base, ...change })).toEqual({ ok: false, reason: 'invalid' });
  });
});
