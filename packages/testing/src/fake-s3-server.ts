import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { listenOnLoopback } from './listen.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** An object held by {@link FakeS3Server}. */
export interface FakeS3Object {
  body: Buffer;
  contentType: string;
  lastModified: Date;
}

/** Options of {@link FakeS3Server}. */
export interface FakeS3ServerOptions {
  /** Buckets that exist from the start. Default `['test-bucket']`. */
  buckets?: string[];
  /** The only credentials accepted. Default `test-access-key` / `test-secret-key`. */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Region every signature must be scoped to. Default `us-east-1`. */
  region?: string;
  /** Clock (milliseconds since the epoch) used for expiry checks; tests move it forward. Default `Date.now`. */
  now?: () => number;
}

const STREAMING_PAYLOADS = /^STREAMING-/;

function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

/** RFC 3986 encoding, as SigV4 canonical requests use (encodeURIComponent leaves !'()* alone). */
function uriEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** `20240102T030405Z` -> milliseconds, or NaN. */
function parseAmzDate(value: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!m) return Number.NaN;
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
}

class S3Error extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

interface SignedParts {
  credential: string;
  signedHeaders: string;
  signature: string;
  amzDate: string;
  payloadHash: string;
}

/**
 * A local stand-in for an S3-compatible service, speaking the real protocol subset Trawl uses:
 * path-style `PUT`, `GET` and `HEAD` of objects (`/<bucket>/<key>`), authenticated with AWS Signature
 * Version 4 either in the `Authorization` header or as presigned query parameters. Signatures are
 * verified for real (so a wrongly built presigned URL fails as it would on S3), presigned URLs past
 * `X-Amz-Date + X-Amz-Expires` are refused with `AccessDenied`, and errors are S3's XML documents.
 * Not supported: virtual-hosted addressing, streaming (aws-chunked) uploads, multipart, ranges.
 */
export class FakeS3Server {
  /** Objects by bucket, then key. Tests read and seed it directly. */
  readonly buckets = new Map<string, Map<string, FakeS3Object>>();
  /** Every request seen, in order: method, path (without query) and response status. */
  readonly requests: { method: string; path: string; status: number }[] = [];
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly region: string;
  private readonly now: () => number;
  private server: Server | undefined;
  port = 0;

  constructor(opts: FakeS3ServerOptions = {}) {
    for (const b of opts.buckets ?? ['test-bucket']) this.buckets.set(b, new Map());
    this.accessKeyId = opts.accessKeyId ?? 'test-access-key';
    this.secretAccessKey = opts.secretAccessKey ?? 'test-secret-key';
    this.region = opts.region ?? 'us-east-1';
    this.now = opts.now ?? Date.now;
  }

  /** `http://127.0.0.1:<port>`: the endpoint to configure (with path-style addressing). */
  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The stored object, or undefined. */
  object(bucket: string, key: string): FakeS3Object | undefined {
    return this.buckets.get(bucket)?.get(key);
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.port = await listenOnLoopback(this.server);
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawUrl = req.url ?? '/';
    const qIndex = rawUrl.indexOf('?');
    const rawPath = qIndex === -1 ? rawUrl : rawUrl.slice(0, qIndex);
    const rawQuery = qIndex === -1 ? '' : rawUrl.slice(qIndex + 1);
    let status: number;
    try {
      const body = await readBody(req);
      this.authenticate(req, rawPath, rawQuery, body);
      status = this.route(req, res, rawPath, body);
    } catch (err) {
      const e = err instanceof S3Error ? err : new S3Error(500, 'InternalError', String(err));
      status = e.status;
      const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${e.code}</Code><Message>${escapeXml(e.message)}</Message></Error>`;
      res.writeHead(e.status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(xml) });
      res.end(req.method === 'HEAD' ? undefined : xml);
    }
    this.requests.push({ method: req.method ?? '', path: rawPath, status });
  }

  private route(req: IncomingMessage, res: ServerResponse, rawPath: string, body: Buffer): number {
    const slash = rawPath.indexOf('/', 1);
    if (slash === -1) throw new S3Error(501, 'NotImplemented', 'Only object operations are supported');
    const bucketName = decodeURIComponent(rawPath.slice(1, slash));
    const key = decodeURIComponent(rawPath.slice(slash + 1));
    const bucket = this.buckets.get(bucketName);
    if (!bucket) throw new S3Error(404, 'NoSuchBucket', 'The specified bucket does not exist');
    if (key === '') throw new S3Error(501, 'NotImplemented', 'Only object operations are supported');
    if (req.method === 'PUT') {
      const contentType = req.headers['content-type'] ?? 'binary/octet-stream';
      bucket.set(key, { body, contentType, lastModified: new Date(this.now()) });
      res.writeHead(200, { etag: `"${createHash('md5').update(body).digest('hex')}"`, 'content-length': 0 });
      res.end();
      return 200;
    }
    if (req.method === 'GET' || req.method === 'HEAD') {
      const obj = bucket.get(key);
      if (!obj) throw new S3Error(404, 'NoSuchKey', 'The specified key does not exist.');
      res.writeHead(200, {
        'content-type': obj.contentType,
        'content-length': obj.body.length,
        'last-modified': obj.lastModified.toUTCString(),
        etag: `"${createHash('md5').update(obj.body).digest('hex')}"`,
      });
      res.end(req.method === 'HEAD' ? undefined : obj.body);
      return 200;
    }
    throw new S3Error(405, 'MethodNotAllowed', `${req.method} is not supported`);
  }

  /** Verifies SigV4 (header or presigned query); throws the error S3 would answer. */
  private authenticate(req: IncomingMessage, rawPath: string, rawQuery: string, body: Buffer): void {
    const query = parseQuery(rawQuery);
    const parts = query.has('X-Amz-Signature') ? this.presignedParts(query) : this.headerParts(req, body);
    const [accessKeyId, date, region, service, terminator] = parts.credential.split('/');
    if (accessKeyId !== this.accessKeyId) {
      throw new S3Error(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
    }
    if (region !== this.region || service !== 's3' || terminator !== 'aws4_request' || !parts.amzDate.startsWith(date ?? '-')) {
      throw new S3Error(400, 'AuthorizationHeaderMalformed', 'The credential scope is wrong');
    }
    const signedHeaderNames = parts.signedHeaders.split(';');
    if (!signedHeaderNames.includes('host')) throw new S3Error(400, 'AuthorizationHeaderMalformed', 'host must be signed');
    const canonicalHeaders = signedHeaderNames
      .map((name) => `${name}:${String(req.headers[name] ?? '').trim().replace(/\s+/g, ' ')}\n`)
      .join('');
    const canonicalQuery = [...query.entries()]
      .filter(([k]) => k !== 'X-Amz-Signature')
      .map(([k, v]) => [uriEncode(k), uriEncode(v)] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${k}=${v}`)
      .join('&');
    const canonicalRequest = [req.method, rawPath, canonicalQuery, canonicalHeaders, parts.signedHeaders, parts.payloadHash].join('\n');
    const scope = `${date}/${region}/s3/aws4_request`;
    const stringToSign = ['AWS4-HMAC-SHA256', parts.amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
    const key = hmac(hmac(hmac(hmac(`AWS4${this.secretAccessKey}`, date ?? ''), this.region), 's3'), 'aws4_request');
    const expected = hmac(key, stringToSign);
    const given = Buffer.from(/^[0-9a-f]{64}$/.test(parts.signature) ? parts.signature : '', 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new S3Error(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.');
    }
  }

  private presignedParts(query: Map<string, string>): SignedParts {
    const need = (name: string): string => {
      const v = query.get(name);
      if (v === undefined) throw new S3Error(400, 'AuthorizationQueryParametersError', `${name} is missing`);
      return v;
    };
    if (need('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') {
      throw new S3Error(400, 'AuthorizationQueryParametersError', 'X-Amz-Algorithm must be AWS4-HMAC-SHA256');
    }
    const amzDate = need('X-Amz-Date');
    const expires = need('X-Amz-Expires');
    const signedAt = parseAmzDate(amzDate);
    if (!/^\d+$/.test(expires) || Number.isNaN(signedAt)) {
      throw new S3Error(400, 'AuthorizationQueryParametersError', 'X-Amz-Date or X-Amz-Expires is malformed');
    }
    if (Number(expires) > 604_800) {
      throw new S3Error(400, 'AuthorizationQueryParametersError', 'X-Amz-Expires must be less than a week');
    }
    if (this.now() > signedAt + Number(expires) * 1000) throw new S3Error(403, 'AccessDenied', 'Request has expired');
    return {
      credential: need('X-Amz-Credential'),
      signedHeaders: need('X-Amz-SignedHeaders'),
      signature: need('X-Amz-Signature'),
      amzDate,
      payloadHash: 'UNSIGNED-PAYLOAD',
    };
  }

  private headerParts(req: IncomingMessage, body: Buffer): SignedParts {
    const auth = req.headers.authorization;
    if (auth === undefined) throw new S3Error(403, 'AccessDenied', 'Access Denied');
    const m = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]+)$/.exec(auth);
    if (!m) throw new S3Error(400, 'AuthorizationHeaderMalformed', 'The authorization header is malformed');
    const amzDate = String(req.headers['x-amz-date'] ?? '');
    if (Number.isNaN(parseAmzDate(amzDate))) throw new S3Error(400, 'AuthorizationHeaderMalformed', 'x-amz-date is missing');
    if (Math.abs(this.now() - parseAmzDate(amzDate)) > 15 * 60_000) {
      throw new S3Error(403, 'RequestTimeTooSkewed', 'The difference between the request time and the current time is too large.');
    }
    const payloadHash = String(req.headers['x-amz-content-sha256'] ?? '');
    if (STREAMING_PAYLOADS.test(payloadHash)) throw new S3Error(501, 'NotImplemented', 'Streaming uploads are not supported');
    if (payloadHash !== 'UNSIGNED-PAYLOAD' && payloadHash !== sha256Hex(body)) {
      throw new S3Error(400, 'XAmzContentSHA256Mismatch', 'The provided x-amz-content-sha256 header does not match');
    }
    return { credential: m[1]!, signedHeaders: m[2]!, signature: m[3]!, amzDate, payloadHash };
  }
}

function parseQuery(rawQuery: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const pair of rawQuery.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const k = eq === -1 ? pair : pair.slice(0, eq);
    const v = eq === -1 ? '' : pair.slice(eq + 1);
    out.set(decodeURIComponent(k), decodeURIComponent(v));
  }
  return out;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function escapeXml(s: string): string {
  return s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
