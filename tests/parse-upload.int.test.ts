import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request as httpRequest } from 'node:http';
import { parseUploadPutResponseSchema, parseUploadUrlResponseSchema, scrapeResponseSchema } from '@trawl/api-schema';
import { buildPdf, waitFor } from '@trawl/testing';
import { BOOT_KEY, TestCluster } from './helpers/cluster.js';

// The large-file parse flow: POST /v2/parse/upload-url -> PUT the bytes to the signed URL (no API key)
// -> POST /v2/parse {uploadRef}. Through the gateway and the documents role, against a real Redis.
// The 4.x SDK has no method for this flow (its `parse` sends multipart only), so the test speaks HTTP.

const MAX_FILE_BYTES = 2 * 1024 * 1024;
const REPORT = buildPdf([
  [{ text: 'Uploaded Large Report', y: 80, size: 24, bold: true }, { text: 'The first page of a file sent through an upload URL.', y: 130 }],
  [{ text: 'The second page says something else entirely.', y: 130 }],
], { title: 'Upload fixture' });

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await TestCluster.start({ TRAWL_WORKER_ROLES: 'http,documents', TRAWL_PARSE_MAX_FILE_BYTES: String(MAX_FILE_BYTES) });
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
}, 30_000);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience

async function uploadUrl(c: TestCluster, body: Record<string, unknown>, key = BOOT_KEY): Promise<{ status: number; body: Json }> {
  const r = await c.call('POST', '/v2/parse/upload-url', { key, body });
  return { status: r.status, body: r.body };
}

/** PUT to an upload URL, without an API key (the URL's token is the credential). */
async function put(url: string, body: Buffer | string | ReadableStream<Uint8Array>, headers: Record<string, string> = {}): Promise<{ status: number; body: Json }> {
  const res = await fetch(url, { method: 'PUT', headers, body, ...(body instanceof ReadableStream ? { duplex: 'half' } : {}) } as Parameters<typeof fetch>[1]);
  return { status: res.status, body: await res.json() as Json };
}

const parseRef = (uploadRef: string, options?: unknown, key = BOOT_KEY) =>
  cluster.call('POST', '/v2/parse', { key, body: { uploadRef, ...(options !== undefined ? { options } : {}) } });

const withToken = (url: string, token: string | null) => {
  const u = new URL(url);
  if (token === null) u.searchParams.delete('token');
  else u.searchParams.set('token', token);
  return u.toString();
};

/** A stream of `total` bytes in 64 KiB chunks, with no Content-Length: the cap must hold while streaming. */
function streamOf(total: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= total) {
        controller.close();
        return;
      }
      const n = Math.min(64 * 1024, total - sent);
      sent += n;
      controller.enqueue(new Uint8Array(n).fill(1));
    },
  });
}

describe('the upload-url flow', () => {
  it('issues a signed URL, takes the PUT, and parses the stored file as a multipart upload is parsed', async () => {
    const issued = await uploadUrl(cluster, { filename: 'big report.pdf', contentType: 'application/pdf' });
    expect(issued.status).toBe(200);
    expect(parseUploadUrlResponseSchema.safeParse(issued.body).error?.issues ?? []).toEqual([]);
    const { uploadUrl: url, uploadRef, expiresAt } = issued.body as { uploadUrl: string; uploadRef: string; expiresAt: string };
    expect(url.startsWith(`${cluster.api.url}/v2/parse/uploads/${uploadRef}?token=`)).toBe(true);
    // Default 15 minutes (compared with the issue time, not the clock of this test's end).
    expect(Date.parse(expiresAt)).toBeGreaterThan(Date.now() + 10 * 60_000);
    expect(Date.parse(expiresAt)).toBeLessThanOrEqual(Date.now() + 15 * 60_000);
    // The record expires on its own: nothing is left if nobody uploads.
    expect(await cluster.redis.pttl(`trawl:{u:${uploadRef}}:upload`)).toBeGreaterThan(0);

    const stored = await put(url, REPORT, { 'content-type': 'application/pdf' });
    expect(stored).toMatchObject({ status: 200, body: { success: true, uploadRef, size: REPORT.length } });
    expect(parseUploadPutResponseSchema.safeParse(stored.body).error?.issues ?? []).toEqual([]);
    // Stored, not parsed yet: the bytes expire on their own too.
    const bodies = await cluster.redis.keys('trawl:docbody:*');
    expect(bodies).toHaveLength(1);
    expect(await cluster.redis.ttl(bodies[0]!)).toBeGreaterThan(0);
    // A second PUT to a used URL is refused.
    expect(await put(url, REPORT)).toMatchObject({ status: 409, body: { code: 'CONFLICT' } });

    const parsed = await parseRef(uploadRef, { formats: ['markdown', 'html'] });
    expect(parsed.status).toBe(200);
    expect(scrapeResponseSchema.safeParse(parsed.body).error?.issues ?? []).toEqual([]);
    expect(parsed.body.data.markdown).toMatch(/^#+ Uploaded Large Report/m);
    expect(parsed.body.data.markdown).toContain('The second page says something else entirely.');
    expect(parsed.body.data.html).toContain('Uploaded Large Report');
    expect(parsed.body.data.metadata).toMatchObject({ sourceURL: 'big report.pdf', numPages: 2, contentType: 'application/pdf', title: 'Upload fixture' });

    // Single use: the parse took the record; nothing is left behind.
    expect(await parseRef(uploadRef)).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    expect(await cluster.redis.keys('trawl:{u:*')).toEqual([]);
    // The parked file goes after the outcome (which answered) and the slot release.
    await waitFor(async () => (await cluster.redis.keys('trawl:docbody:*')).length === 0, { what: 'the parked file to be deleted' });
  }, 90_000);

  it('parses without options and with a type named only by the PUT', async () => {
    const issued = await uploadUrl(cluster, { filename: 'numbers.csv' });
    expect((await put(issued.body.uploadUrl as string, 'a,b\n1,2\n', { 'content-type': 'text/csv' })).status).toBe(200);
    const parsed = await parseRef(issued.body.uploadRef as string);
    expect(parsed.status).toBe(200);
    expect(parsed.body.data.markdown).toContain('| a | b |');
    expect(parsed.body.data.metadata.sourceURL).toBe('numbers.csv');
  }, 60_000);

  it('refuses another team\'s uploadRef without using it up', async () => {
    const owner = await cluster.team({ credits: 100 });
    const other = await cluster.team({ credits: 100 });
    const issued = await uploadUrl(cluster, { filename: 'mine.pdf' }, owner.key);
    expect((await put(issued.body.uploadUrl as string, REPORT)).status).toBe(200);
    expect(await parseRef(issued.body.uploadRef as string, undefined, other.key)).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    const mine = await parseRef(issued.body.uploadRef as string, { formats: ['markdown'] }, owner.key);
    expect(mine.status).toBe(200);
    expect(mine.body.data.markdown).toContain('Uploaded Large Report');
  }, 60_000);

  it('refuses a wrong or missing token, and an unknown ref', async () => {
    const issued = await uploadUrl(cluster, { filename: 'tok.pdf' });
    const url = issued.body.uploadUrl as string;
    const token = new URL(url).searchParams.get('token')!;
    const flipped = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    expect(await put(withToken(url, flipped), REPORT)).toMatchObject({ status: 403, body: { code: 'UPLOAD_URL_INVALID' } });
    expect(await put(withToken(url, null), REPORT)).toMatchObject({ status: 403, body: { code: 'UPLOAD_URL_INVALID' } });
    // Another URL's token does not open this one.
    const second = await uploadUrl(cluster, { filename: 'other.pdf' });
    expect(await put(withToken(url, new URL(second.body.uploadUrl as string).searchParams.get('token')), REPORT))
      .toMatchObject({ status: 403, body: { code: 'UPLOAD_URL_INVALID' } });
    const unknown = url.replace(issued.body.uploadRef as string, '00000000-0000-4000-8000-000000000000');
    expect(await put(unknown, REPORT)).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    expect(await put(`${cluster.api.url}/v2/parse/uploads/not-a-ref?token=${token}`, REPORT)).toMatchObject({ status: 404 });
    expect(await cluster.redis.keys('trawl:docbody:*')).toEqual([]);
    // Nothing was uploaded: a parse of the ref is refused, and the right token still works.
    expect(await parseRef(issued.body.uploadRef as string)).toMatchObject({ status: 409, body: { code: 'CONFLICT' } });
    expect((await put(url, REPORT)).status).toBe(200);
    expect((await parseRef(issued.body.uploadRef as string)).status).toBe(200);
  }, 60_000);

  it('answers 413 to an oversize PUT, by Content-Length or while streaming, and keeps nothing', async () => {
    const issued = await uploadUrl(cluster, { filename: 'huge.pdf' });
    const url = issued.body.uploadUrl as string;
    const declared = await put(url, Buffer.alloc(MAX_FILE_BYTES + 1, 1));
    expect(declared).toMatchObject({ status: 413, body: { code: 'PAYLOAD_TOO_LARGE' } });
    const streamed = await put(url, streamOf(3 * 1024 * 1024));
    expect(streamed).toMatchObject({ status: 413, body: { code: 'PAYLOAD_TOO_LARGE', details: { maxBytes: MAX_FILE_BYTES } } });
    expect(await cluster.redis.keys('trawl:docbody:*')).toEqual([]);
    expect(await parseRef(issued.body.uploadRef as string)).toMatchObject({ status: 409, body: { code: 'CONFLICT' } });
    // The URL is still good for a file within the limit.
    expect((await put(url, REPORT)).status).toBe(200);
    expect((await parseRef(issued.body.uploadRef as string)).status).toBe(200);
    expect((await cluster.call('GET', '/health/ready', { key: null })).status).toBe(200);
  }, 60_000);

  it('answers 413 from the declared Content-Length before the body is sent', async () => {
    const issued = await uploadUrl(cluster, { filename: 'declared.pdf' });
    const url = new URL(issued.body.uploadUrl as string);
    // Headers and a few bytes of a body declared too large, then nothing: the answer must not wait for the rest.
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest({ host: url.hostname, port: url.port, method: 'PUT', path: url.pathname + url.search, headers: { 'content-length': String(MAX_FILE_BYTES * 4) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
          req.destroy();
        });
      });
      req.on('error', reject);
      req.write(REPORT.subarray(0, 100));
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(await cluster.redis.keys('trawl:docbody:*')).toEqual([]);
  }, 30_000);

  it('validates the requests and keeps the upload when the options are refused', async () => {
    expect((await uploadUrl(cluster, {})).body.code).toBe('BAD_REQUEST');
    expect((await uploadUrl(cluster, { filename: 'x.pdf', extra: 1 })).body.code).toBe('BAD_REQUEST');
    expect((await cluster.call('POST', '/v2/parse/upload-url', { key: null, body: { filename: 'x.pdf' } })).status).toBe(401);
    expect((await cluster.call('POST', '/v2/parse', { body: { uploadRef: 'nope' } })).body.code).toBe('BAD_REQUEST');
    const issued = await uploadUrl(cluster, { filename: 'opts.pdf' });
    expect((await put(issued.body.uploadUrl as string, REPORT)).status).toBe(200);
    const ref = issued.body.uploadRef as string;
    expect(await parseRef(ref, { actions: [{ type: 'wait', milliseconds: 1 }] }))
      .toMatchObject({ status: 400, body: { code: 'PARSE_UNSUPPORTED_OPTIONS', details: { options: ['actions'] } } });
    expect((await parseRef(ref, { formats: ['nope'] })).body.code).toBe('BAD_REQUEST');
    expect(await put(issued.body.uploadUrl as string, Buffer.alloc(0))).toMatchObject({ status: 409 });
    expect((await parseRef(ref, { formats: ['markdown'] })).status).toBe(200);
  }, 60_000);

  it('refuses an empty PUT', async () => {
    const issued = await uploadUrl(cluster, { filename: 'empty.pdf' });
    expect(await put(issued.body.uploadUrl as string, Buffer.alloc(0))).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST' } });
    expect(await parseRef(issued.body.uploadRef as string)).toMatchObject({ status: 409 });
  });
});

describe('expiry', () => {
  let expiring: TestCluster;
  beforeAll(async () => {
    // URLs expire the moment they are issued: no waiting in the test.
    expiring = await TestCluster.start({ TRAWL_DOCUMENTS_ENABLED: 'true', TRAWL_PARSE_UPLOAD_URL_TTL_SEC: '0' }, { worker: false });
  }, 60_000);
  afterAll(async () => {
    await expiring?.stop();
  }, 30_000);

  it('refuses a PUT to an expired URL and stores nothing', async () => {
    const issued = await uploadUrl(expiring, { filename: 'late.pdf' });
    expect(issued.status).toBe(200);
    expect(await put(issued.body.uploadUrl as string, REPORT)).toMatchObject({ status: 403, body: { code: 'UPLOAD_URL_EXPIRED' } });
    expect(await expiring.redis.keys('trawl:docbody:*')).toEqual([]);
    expect((await expiring.call('POST', '/v2/parse', { body: { uploadRef: issued.body.uploadRef } })).status).toBe(409);
    // The record still expires on its own.
    expect(await expiring.redis.pttl(`trawl:{u:${issued.body.uploadRef as string}}:upload`)).toBeGreaterThan(0);
  });
});
