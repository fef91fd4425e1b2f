import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { EventEmitter } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { FakeS3Server } from '@trawl/testing';
import { S3BlobStore } from './s3-blob-store.js';

let s3: FakeS3Server;
let clockOffsetMs = 0;

beforeAll(async () => {
  s3 = await new FakeS3Server({ buckets: ['blobs'], now: () => Date.now() + clockOffsetMs }).start();
});

afterAll(async () => {
  await s3.stop();
});

function storeFor(opts: { bucket?: string; secretAccessKey?: string; keyPrefix?: string } = {}): S3BlobStore {
  return new S3BlobStore({
    bucket: opts.bucket ?? 'blobs',
    region: 'us-east-1',
    endpoint: s3.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: opts.secretAccessKey ?? s3.secretAccessKey },
    ...(opts.keyPrefix !== undefined ? { keyPrefix: opts.keyPrefix } : {}),
  });
}

describe('S3BlobStore', () => {
  it('puts an object and hands out a presigned URL that plain fetch can GET', async () => {
    const store = storeFor({ keyPrefix: '/trawl/blobs/' });
    const body = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]);
    await store.put({ key: 'team/job/shot.png', body, contentType: 'image/png' });
    expect(s3.object('blobs', 'trawl/blobs/team/job/shot.png')?.contentType).toBe('image/png');

    const url = await store.url('team/job/shot.png', { expiresInSec: 300 });
    expect(new URL(url).pathname).toBe('/blobs/trawl/blobs/team/job/shot.png');
    expect(new URL(url).searchParams.get('X-Amz-Expires')).toBe('300');
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await res.arrayBuffer())).toEqual(body);
    await store.close();
  });

  it('presigned URLs stop working after their lifetime and when altered', async () => {
    const store = storeFor();
    await store.put({ key: 't/j/a.pdf', body: Buffer.from('%PDF'), contentType: 'application/pdf' });
    const url = await store.url('t/j/a.pdf', { expiresInSec: 60 });
    const other = url.replace('/t/j/a.pdf', '/t/j/b.pdf');
    const otherRes = await fetch(other);
    expect([otherRes.status, await otherRes.text()]).toEqual([403, expect.stringContaining('SignatureDoesNotMatch')]);
    clockOffsetMs = 61_000;
    try {
      const res = await fetch(url);
      expect([res.status, await res.text()]).toEqual([403, expect.stringContaining('Request has expired')]);
    } finally {
      clockOffsetMs = 0;
    }
    await store.close();
  });

  it('reports a missing bucket or bad credentials as a non-retryable BLOB_STORE_FAILED', async () => {
    for (const store of [storeFor({ bucket: 'nope' }), storeFor({ secretAccessKey: 'wrong' })]) {
      await expect(store.put({ key: 't/j/a.png', body: Buffer.from('x'), contentType: 'image/png' }))
        .rejects.toMatchObject({ code: 'BLOB_STORE_FAILED', retryable: false });
      await store.close();
    }
  });

  it('reports an unreachable service as a retryable BLOB_STORE_FAILED', async () => {
    const down = new FakeS3Server();
    await down.start();
    const endpoint = down.endpoint;
    await down.stop();
    const store = new S3BlobStore({
      bucket: 'blobs', region: 'us-east-1', endpoint, forcePathStyle: true,
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    });
    await expect(store.put({ key: 't/j/a.png', body: Buffer.from('x'), contentType: 'image/png' }))
      .rejects.toMatchObject({ code: 'BLOB_STORE_FAILED', retryable: true });
    await store.close();
  });

  it('gives up on a service that accepts the upload and never answers (its time limit, or the job\'s signal)', async () => {
    // Accepts connections and reads requests, answers nothing: a frozen object store.
    const connected = new EventEmitter();
    const silent = createServer((socket) => {
      socket.on('data', () => connected.emit('request'));
      socket.on('error', () => undefined);
    });
    const port = await new Promise<number>((resolve) => silent.listen(0, '127.0.0.1', () => resolve((silent.address() as AddressInfo).port)));
    const store = (requestTimeoutMs: number) => new S3BlobStore({
      bucket: 'blobs', region: 'us-east-1', endpoint: `http://127.0.0.1:${port}`, forcePathStyle: true,
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' }, requestTimeoutMs,
    });
    try {
      const bounded = store(300);
      await expect(bounded.put({ key: 't/j/a.png', body: Buffer.from('x'), contentType: 'image/png' }))
        .rejects.toMatchObject({ code: 'BLOB_STORE_FAILED', retryable: true, message: 'The object store did not answer within 300 ms' });
      await bounded.close();
      // The job's deadline comes first: the upload ends when its signal does (here, once the request arrived).
      const job = new AbortController();
      connected.once('request', () => job.abort(new Error('deadline')));
      const patient = store(600_000);
      const ended = await patient.put({ key: 't/j/b.png', body: Buffer.from('x'), contentType: 'image/png', signal: job.signal }).then(() => undefined, (err: unknown) => err);
      expect(ended).toMatchObject({ code: 'BLOB_STORE_FAILED', message: 'Could not write blob to the object store' });
      await patient.close();
    } finally {
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
