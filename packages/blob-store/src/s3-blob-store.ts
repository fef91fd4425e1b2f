import { GetObjectCommand, PutObjectCommand, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { TrawlError } from '@trawl/api-schema';
import { assertValidBlobKey, normalizeKeyPrefix } from './blob-key.js';
import {
  assertValidContentType,
  resolveUrlTtlSec,
  type BlobStore,
  type BlobUrlOptions,
  type PutBlobInput,
} from './blob-store.js';

/** Static credentials of an S3-compatible service. */
export interface S3Credentials {
  /** `TRAWL_S3_ACCESS_KEY_ID`. */
  accessKeyId: string;
  /** `TRAWL_S3_SECRET_ACCESS_KEY`. */
  secretAccessKey: string;
}

/** Options of {@link S3BlobStore}. */
export interface S3BlobStoreOptions {
  /** Bucket name (`TRAWL_S3_BUCKET`). Must exist; the store never creates buckets. */
  bucket: string;
  /** Signing region (`TRAWL_S3_REGION`): the bucket's region on AWS, `auto` on R2, `us-east-1` on MinIO. */
  region: string;
  /** Endpoint of a non-AWS service, e.g. `http://minio:9000` (`TRAWL_S3_ENDPOINT`). Default: AWS. */
  endpoint?: string;
  /** Address objects as `<endpoint>/<bucket>/<key>` instead of `<bucket>.<endpoint>/<key>` (MinIO needs it). Default false. */
  forcePathStyle?: boolean;
  /**
   * Static credentials. Default: the AWS SDK's provider chain (the SDK's own environment variables,
   * shared config files, container or instance role). URLs presigned with temporary (role) credentials
   * stop working when those credentials expire, whatever `urlTtlSec` says.
   */
  credentials?: S3Credentials;
  /** Prepended to every key as `<prefix>/<key>` (`TRAWL_S3_KEY_PREFIX`), e.g. `trawl/blobs`. Default none. */
  keyPrefix?: string;
  /** Default lifetime of presigned URLs, in seconds (`TRAWL_BLOB_URL_TTL_SEC`). Default 86400; at most 604800. */
  urlTtlSec?: number;
  /** Longest wait for one upload, ms (`TRAWL_S3_REQUEST_TIMEOUT_MS`); the SDK has no limit of its own. Default 30000. */
  requestTimeoutMs?: number;
}

/**
 * Blobs in any S3-compatible store (AWS S3, MinIO, Cloudflare R2), handed out as presigned GET URLs.
 * Expiry of the objects is the bucket's job: configure a lifecycle rule that deletes objects (under
 * the key prefix) after the retention you want, e.g. 1 day. This store never deletes.
 */
export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const;
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly urlTtlSec: number;
  private readonly requestTimeoutMs: number;

  constructor(opts: S3BlobStoreOptions) {
    const prefix = normalizeKeyPrefix(opts.keyPrefix ?? '');
    if (prefix === null) throw new RangeError('keyPrefix must be /-separated segments of [A-Za-z0-9._-]');
    this.prefix = prefix === '' ? '' : `${prefix}/`;
    this.bucket = opts.bucket;
    this.urlTtlSec = resolveUrlTtlSec(undefined, opts.urlTtlSec ?? 86_400);
    this.requestTimeoutMs = opts.requestTimeoutMs ?? 30_000;
    const config: S3ClientConfig = {
      region: opts.region,
      forcePathStyle: opts.forcePathStyle ?? false,
      // Checksums only when an operation requires them: several S3-compatible services reject the
      // CRC32 headers and trailers that newer SDKs add to every PutObject by default.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    };
    if (opts.endpoint !== undefined) config.endpoint = opts.endpoint;
    if (opts.credentials !== undefined) config.credentials = { ...opts.credentials };
    this.client = new S3Client(config);
  }

  async put(input: PutBlobInput): Promise<void> {
    assertValidBlobKey(input.key);
    assertValidContentType(input.contentType);
    if (!Buffer.isBuffer(input.body)) throw new TypeError('put: body must be a Buffer');
    // Bounded: an object store that accepts the connection and never answers would hold the job for good.
    const timeout = AbortSignal.timeout(this.requestTimeoutMs);
    try {
      await this.client.send(new PutObjectCommand({
        Bucket: this.bucket,
        Key: this.prefix + input.key,
        Body: input.body,
        ContentType: input.contentType,
        ContentLength: input.body.length,
      }), { abortSignal: input.signal ? AbortSignal.any([timeout, input.signal]) : timeout });
    } catch (err) {
      const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (timeout.aborted && !input.signal?.aborted) {
        throw new TrawlError('BLOB_STORE_FAILED', `The object store did not answer within ${this.requestTimeoutMs} ms`, { retryable: true, cause: err });
      }
      throw new TrawlError('BLOB_STORE_FAILED', 'Could not write blob to the object store', {
        // 4xx (no such bucket, access denied) stays wrong until an operator fixes the configuration.
        retryable: status === undefined || status >= 500 || status === 429,
        details: status === undefined ? {} : { status },
        cause: err,
      });
    }
  }

  /** A presigned GetObject URL; signing is local (no request to the service). */
  async url(key: string, opts: BlobUrlOptions = {}): Promise<string> {
    assertValidBlobKey(key);
    const expiresIn = resolveUrlTtlSec(opts.expiresInSec, this.urlTtlSec);
    return getSignedUrl(this.client, new GetObjectCommand({ Bucket: this.bucket, Key: this.prefix + key }), { expiresIn });
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
