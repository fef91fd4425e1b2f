import { TrawlError } from '@trawl/api-schema';

/** What {@link BlobStore.put} stores. */
export interface PutBlobInput {
  /** Where to store it; see `blobKey()` and `assertValidBlobKey()`. An existing blob is replaced. */
  key: string;
  /** The bytes, held in memory (screenshots and PDFs are a few MB at most). */
  body: Buffer;
  /** Media type served back with the blob, e.g. `image/png`; parameters allowed (`; charset=utf-8`). */
  contentType: string;
  /** The job's deadline or cancellation: a put still under way fails with it (S3; a local write is short). */
  signal?: AbortSignal;
}

/** Options of {@link BlobStore.url}. */
export interface BlobUrlOptions {
  /**
   * Seconds the URL stays valid, from now. Default: the store's `urlTtlSec` (`TRAWL_BLOB_URL_TTL_SEC`).
   * At most 604800 (7 days, the limit of S3 presigned URLs).
   */
  expiresInSec?: number;
}

/**
 * Where browser workers keep screenshots, action PDFs and audio, and how API clients fetch them: by an
 * absolute, signed, expiring URL that needs no API key. Implementations: `LocalBlobStore` (files on
 * disk, served by the API's `/v2/blobs/*` route) and `S3BlobStore` (any S3-compatible service).
 */
export interface BlobStore {
  /** `local` or `s3`. */
  readonly kind: 'local' | 's3';
  /**
   * Stores `body` under `key`, replacing any blob with that key. Readers never see a partial blob.
   * @throws TrawlError `BLOB_INVALID_KEY` (bad key or content type), `BLOB_STORE_FAILED` (retryable).
   */
  put(input: PutBlobInput): Promise<void>;
  /**
   * An absolute URL a client can GET without an API key until it expires. Does not check that the blob
   * exists (a missing blob answers 404 when fetched).
   * @throws TrawlError `BLOB_INVALID_KEY`.
   */
  url(key: string, opts?: BlobUrlOptions): Promise<string>;
  /** Releases connections; the store is unusable afterwards. */
  close(): Promise<void>;
}

/** Longest URL lifetime accepted (seconds): 7 days, the limit of S3 presigned URLs. */
export const MAX_URL_TTL_SEC = 604_800;

// type/subtype with optional parameters (token or quoted values).
const CONTENT_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}( *; *[a-z0-9!#$%&'*+.^_`|~-]+=("[^"\\]*"|[a-z0-9!#$%&'*+.^_`|~-]+))*$/i;
// Printable ASCII only: no CR/LF or other control characters, so it is always a safe header value.
const NOT_PRINTABLE_ASCII = /[^ -~]/;

/**
 * Throws unless `contentType` is a media type (`type/subtype[; name=value]...`, at most 255 characters).
 * @throws TrawlError `BLOB_INVALID_KEY`: the content type is stored with the key and is as strictly checked.
 */
export function assertValidContentType(contentType: string): void {
  if (
    typeof contentType !== 'string' ||
    contentType.length > 255 ||
    NOT_PRINTABLE_ASCII.test(contentType) ||
    !CONTENT_TYPE.test(contentType)
  ) {
    throw new TrawlError('BLOB_INVALID_KEY', 'Invalid blob content type', { details: { reason: 'contentType' } });
  }
}

/**
 * The URL lifetime to use: `requested` if given, else `fallback`; a whole number of seconds from 1 to
 * {@link MAX_URL_TTL_SEC}.
 * @throws RangeError for anything else (a caller bug, not a client error).
 */
export function resolveUrlTtlSec(requested: number | undefined, fallback: number): number {
  const ttl = requested ?? fallback;
  if (!Number.isInteger(ttl) || ttl < 1 || ttl > MAX_URL_TTL_SEC) {
    throw new RangeError(`expiresInSec must be an integer from 1 to ${MAX_URL_TTL_SEC}, got ${ttl}`);
  }
  return ttl;
}
