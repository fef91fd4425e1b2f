import { describe, expect, it } from '@jest/globals';
import { TrawlError } from '@trawl/api-schema';
import { assertValidBlobKey, blobKey, isValidBlobKey, normalizeKeyPrefix } from './blob-key.js';

describe('blobKey', () => {
  it('builds <teamId>/<jobId>/<name>.<ext>', () => {
    expect(blobKey({ teamId: 'c0ffee00-1111-4222-8333-444455556666', jobId: 'job_1', name: 'screenshot', ext: 'png' }))
      .toBe('c0ffee00-1111-4222-8333-444455556666/job_1/screenshot.png');
  });

  it.each([
    ['teamId', { teamId: '..', jobId: 'j', name: 'n', ext: 'png' }],
    ['teamId', { teamId: 'a/b', jobId: 'j', name: 'n', ext: 'png' }],
    ['jobId', { teamId: 't', jobId: '', name: 'n', ext: 'png' }],
    ['jobId', { teamId: 't', jobId: '.hidden', name: 'n', ext: 'png' }],
    ['name', { teamId: 't', jobId: 'j', name: 'a b', ext: 'png' }],
    ['name', { teamId: 't', jobId: 'j', name: 'x%2F..', ext: 'png' }],
    ['ext', { teamId: 't', jobId: 'j', name: 'n', ext: 'PNG' }],
    ['ext', { teamId: 't', jobId: 'j', name: 'n', ext: 'png/x' }],
  ])('rejects a bad %s', (part, parts) => {
    try {
      blobKey(parts);
      throw new Error('blobKey accepted a bad part');
    } catch (err) {
      expect(err).toBeInstanceOf(TrawlError);
      expect((err as TrawlError).code).toBe('BLOB_INVALID_KEY');
      expect((err as TrawlError).details).toEqual({ part });
    }
  });
});

describe('assertValidBlobKey', () => {
  it.each(['a', 'team/job/screenshot.png', 'A-1/b_2/c.d.e', `${'a'.repeat(128)}/x`])('accepts %s', (key) => {
    expect(() => assertValidBlobKey(key)).not.toThrow();
  });

  it.each([
    '',
    '/etc/passwd',
    '../etc/passwd',
    'team/../../etc/passwd',
    'team/./job',
    'team/..',
    'team//job',
    'team/job/',
    'team\\..\\job',
    'team/%2e%2e/job',
    'team/job\0.png',
    'team/job\n.png',
    'team/.env',
    'tëam/job',
    'C:/windows',
    `${'a'.repeat(129)}`,
    Array.from({ length: 9 }, () => 'a').join('/'),
    Array.from({ length: 8 }, () => 'a'.repeat(70)).join('/'),
  ])('rejects %j', (key) => {
    expect(isValidBlobKey(key)).toBe(false);
    expect(() => assertValidBlobKey(key)).toThrow(expect.objectContaining({ code: 'BLOB_INVALID_KEY' }));
  });
});

describe('normalizeKeyPrefix', () => {
  it('strips surrounding slashes and rejects bad segments', () => {
    expect(normalizeKeyPrefix('/trawl/blobs/')).toBe('trawl/blobs');
    expect(normalizeKeyPrefix('')).toBe('');
    expect(normalizeKeyPrefix('a/../b')).toBeNull();
    expect(normalizeKeyPrefix('a//b')).toBeNull();
  });
});
