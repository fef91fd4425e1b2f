import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtemp, readdir, rm, stat, utimes, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { LocalBlobStore } from './local-blob-store.js';

const secret = 'k'.repeat(32);
let root: string;
let store: LocalBlobStore;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'trawl-blobs-'));
  store = new LocalBlobStore({ root, publicBaseUrl: 'http://api.test/', signingSecret: secret, urlTtlSec: 600 });
});

afterEach(async () => {
  await store.close();
  await rm(root, { recursive: true, force: true });
});

async function age(key: string, seconds: number): Promise<void> {
  const t = new Date(Date.now() - seconds * 1000);
  await utimes(join(root, 'objects', key), t, t);
}

describe('LocalBlobStore', () => {
  it('stores bytes and content type, and reads them back with the size', async () => {
    await store.put({ key: 'team/job/shot.png', body: Buffer.from('PNG bytes'), contentType: 'image/png' });
    const blob = await store.read('team/job/shot.png');
    expect(blob.contentType).toBe('image/png');
    expect(blob.size).toBe(9);
    expect(await text(blob.stream)).toBe('PNG bytes');
  });

  it('replaces a blob atomically and leaves no temp files', async () => {
    await store.put({ key: 't/j/a.txt', body: Buffer.from('one'), contentType: 'text/plain' });
    await store.put({ key: 't/j/a.txt', body: Buffer.from('second'), contentType: 'text/plain; charset=utf-8' });
    const blob = await store.read('t/j/a.txt');
    expect([blob.contentType, blob.size, await text(blob.stream)]).toEqual(['text/plain; charset=utf-8', 6, 'second']);
    expect(await readdir(join(root, 'tmp'))).toEqual([]);
  });

  it('signs URLs that its own verify() accepts, for the requested lifetime', async () => {
    const url = new URL(await store.url('team/job/shot.png', { expiresInSec: 60 }));
    expect(url.origin + url.pathname).toBe('http://api.test/v2/blobs/team/job/shot.png');
    const expires = url.searchParams.get('expires');
    expect(Number(expires) - Math.floor(Date.now() / 1000)).toBeGreaterThanOrEqual(59);
    const check = store.verify({ key: 'team/job/shot.png', expires, signature: url.searchParams.get('signature') });
    expect(check).toEqual({ ok: true, remainingSec: expect.any(Number) });
    const other = new LocalBlobStore({ root, publicBaseUrl: 'http://api.test', signingSecret: 'z'.repeat(32) });
    expect(other.verify({ key: 'team/job/shot.png', expires, signature: url.searchParams.get('signature') }))
      .toEqual({ ok: false, reason: 'invalid' });
  });

  it('answers NOT_FOUND for a missing blob and for bytes whose sidecar is missing', async () => {
    await expect(store.read('team/job/none.png')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await mkdir(join(root, 'objects', 'team', 'job'), { recursive: true });
    await writeFile(join(root, 'objects', 'team', 'job', 'half.png'), 'x');
    await expect(store.read('team/job/half.png')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses keys that would leave the root, before touching the disk', async () => {
    for (const key of ['../outside.txt', 'a/../../outside.txt', '/etc/passwd']) {
      await expect(store.put({ key, body: Buffer.from('x'), contentType: 'text/plain' })).rejects.toMatchObject({ code: 'BLOB_INVALID_KEY' });
      await expect(store.read(key)).rejects.toMatchObject({ code: 'BLOB_INVALID_KEY' });
      await expect(store.url(key)).rejects.toMatchObject({ code: 'BLOB_INVALID_KEY' });
    }
    expect(await readdir(root)).toEqual([]);
  });

  it('reports a key clash (file where a directory is needed) as an invalid key', async () => {
    await store.put({ key: 'a/b', body: Buffer.from('x'), contentType: 'text/plain' });
    await expect(store.put({ key: 'a/b/c', body: Buffer.from('y'), contentType: 'text/plain' }))
      .rejects.toMatchObject({ code: 'BLOB_INVALID_KEY' });
    await store.put({ key: 'x/y/z', body: Buffer.from('x'), contentType: 'text/plain' });
    await expect(store.put({ key: 'x/y', body: Buffer.from('y'), contentType: 'text/plain' }))
      .rejects.toMatchObject({ code: 'BLOB_INVALID_KEY' });
    expect(await readdir(join(root, 'tmp'))).toEqual([]);
  });

  it('sweeps blobs older than the retention, their sidecars, stale temp files and empty directories', async () => {
    await store.put({ key: 'team/old-job/a.png', body: Buffer.from('old'), contentType: 'image/png' });
    await store.put({ key: 'team/new-job/b.png', body: Buffer.from('new'), contentType: 'image/png' });
    await age('team/old-job/a.png', 7200);
    const staleTmp = join(root, 'tmp', 'leftover');
    await writeFile(staleTmp, 'partial');
    const t = new Date(Date.now() - 7200_000);
    await utimes(staleTmp, t, t);

    const [first, second] = await Promise.all([store.sweep({ olderThanSec: 3600 }), store.sweep({ olderThanSec: 3600 })]);
    expect(first).toEqual({ deleted: 1 });
    expect(second).toBe(first);

    await expect(store.read('team/old-job/a.png')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await text((await store.read('team/new-job/b.png')).stream)).toBe('new');
    await expect(stat(join(root, 'objects', 'team', 'old-job'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(stat(join(root, 'meta', 'team', 'old-job'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(stat(staleTmp)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await store.sweep({ olderThanSec: 3600 })).toEqual({ deleted: 0 });
  });
});
