import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request as httpRequest, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { blobSignature, LocalBlobStore } from '@trawl/blob-store';
import { createLogger } from '@trawl/observability';
import { errorHandler, notFound } from '../middleware/error-handler.js';
import { requestId } from '../middleware/request-id.js';
import { blobRoutes } from './blob.routes.js';

const secret = 's'.repeat(32);
const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
let root: string;
let server: Server;
let origin: string;
let store: LocalBlobStore;

async function listen(store: LocalBlobStore | null): Promise<Server> {
  const app = express();
  app.use(requestId(createLogger({ role: 'test', level: 'silent' })));
  app.use(blobRoutes({ store }));
  app.use(notFound());
  app.use(errorHandler());
  const s = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => s.once('listening', () => resolve()));
  return s;
}

function portOf(s: Server): number {
  const addr = s.address();
  return typeof addr === 'object' && addr ? addr.port : 0;
}

/** A raw request: fetch() would normalise `..` segments away before they reach the server. */
function rawGet(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'trawl-blob-routes-'));
  // As in production: the API verifies with one store object, a worker signs with another; they share
  // only the directory and the secret.
  server = await listen(new LocalBlobStore({ root, publicBaseUrl: 'http://api.invalid', signingSecret: secret }));
  origin = `http://127.0.0.1:${portOf(server)}`;
  store = new LocalBlobStore({ root, publicBaseUrl: origin, signingSecret: secret });
  await store.put({ key: 'team/job/shot.png', body: png, contentType: 'image/png' });
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(root, { recursive: true, force: true });
});

async function expectError(res: Response, status: number, code: string): Promise<void> {
  expect(res.status).toBe(status);
  expect(await res.json()).toMatchObject({ success: false, code });
}

describe('GET /v2/blobs/*key', () => {
  it('serves a signed blob with its type, length and caching headers', async () => {
    const res = await fetch(await store.url('team/job/shot.png', { expiresInSec: 120 }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-length')).toBe(String(png.length));
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const maxAge = Number(/^private, max-age=(\d+)$/.exec(res.headers.get('cache-control') ?? '')?.[1]);
    expect(maxAge).toBeGreaterThanOrEqual(118);
    expect(maxAge).toBeLessThanOrEqual(120);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(png);
  });

  it('answers HEAD with the headers only', async () => {
    const res = await fetch(await store.url('team/job/shot.png'), { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(png.length));
    expect(await res.text()).toBe('');
  });

  it('refuses a tampered signature, key or expiry with 403 BLOB_SIGNATURE_INVALID', async () => {
    const good = new URL(await store.url('team/job/shot.png'));
    const sig = good.searchParams.get('signature')!;
    const tampered = [
      `${good.origin}${good.pathname}?expires=${good.searchParams.get('expires')}&signature=${(sig[0] === '0' ? '1' : '0') + sig.slice(1)}`,
      `${good.origin}${good.pathname}?expires=${Number(good.searchParams.get('expires')) + 3600}&signature=${sig}`,
      `${good.origin}/v2/blobs/team/job/other.png${good.search}`,
      `${good.origin}${good.pathname}`,
      `${good.origin}${good.pathname}?expires=${good.searchParams.get('expires')}&signature=${sig}&signature=${sig}`,
    ];
    for (const url of tampered) await expectError(await fetch(url), 403, 'BLOB_SIGNATURE_INVALID');
    const otherSecret = blobSignature({ key: 'team/job/shot.png', expires: 4_000_000_000, secret: 'o'.repeat(32) });
    await expectError(await fetch(`${origin}/v2/blobs/team/job/shot.png?expires=4000000000&signature=${otherSecret}`), 403, 'BLOB_SIGNATURE_INVALID');
  });

  it('refuses an expired URL with 403 BLOB_URL_EXPIRED', async () => {
    const expires = Math.floor(Date.now() / 1000) - 1;
    const signature = blobSignature({ key: 'team/job/shot.png', expires, secret });
    await expectError(await fetch(`${origin}/v2/blobs/team/job/shot.png?expires=${expires}&signature=${signature}`), 403, 'BLOB_URL_EXPIRED');
  });

  it('answers 404 NOT_FOUND for a validly signed URL of a missing blob', async () => {
    await expectError(await fetch(await store.url('team/job/missing.png')), 404, 'NOT_FOUND');
  });

  it('rejects traversal in the path with 400 BLOB_INVALID_KEY, whatever the signature', async () => {
    const port = portOf(server);
    const expires = Math.floor(Date.now() / 1000) + 60;
    for (const key of ['../../etc/passwd', 'team/%2e%2e/%2e%2e/etc/passwd', '..%2F..%2Fetc%2Fpasswd', 'team//job/shot.png', '%2Fetc%2Fpasswd']) {
      // Signed over the decoded key, so only the key check can stop it.
      const signature = blobSignature({ key: decodeURIComponent(key), expires, secret });
      const res = await rawGet(port, `/v2/blobs/${key}?expires=${expires}&signature=${signature}`);
      expect([key, res.status]).toEqual([key, 400]);
      expect(JSON.parse(res.body)).toMatchObject({ code: 'BLOB_INVALID_KEY' });
    }
  });

  it('answers 404 for every blob when the store is not local', async () => {
    const s3Mode = await listen(null);
    try {
      const url = new URL(await store.url('team/job/shot.png'));
      url.port = String(portOf(s3Mode));
      await expectError(await fetch(url), 404, 'NOT_FOUND');
    } finally {
      await new Promise<void>((resolve) => s3Mode.close(() => resolve()));
    }
  });
});
