import { envBaseUrl, envBoolean, envInt, envOptionalString } from '@trawl/config';
import { normalizeKeyPrefix } from './blob-key.js';
import { MAX_URL_TTL_SEC } from './blob-store.js';

/** Shortest accepted `TRAWL_BLOB_SIGNING_SECRET` (characters), e.g. `openssl rand -hex 32` gives 64. */
export const MIN_SIGNING_SECRET_LENGTH = 32;

/**
 * Environment of the blob store, to spread into the zod config schema of every process that writes
 * blobs (browser workers) or serves them (the API). Cross-variable rules (a bucket for `s3`, a public
 * URL for `local`) are checked by `createBlobStore`.
 */
export const blobStoreEnv = {
  /** Where blobs live: `local` (files under `TRAWL_BLOB_DIR`, served by the API) or `s3`. Default `local`. */
  TRAWL_BLOB_STORE: envOptionalString().transform((value, ctx): 'local' | 's3' => {
    if (value === undefined || value === 'local') return 'local';
    if (value === 's3') return 's3';
    ctx.addIssue({ code: 'custom', message: `expected local or s3, got "${value}"` });
    return 'local'; // never used: the issue fails the parse
  }),
  /**
   * Local store: directory of the blobs, relative to the working directory or absolute. Default
   * `.data/blobs`. The API and every browser worker must see the same directory.
   */
  TRAWL_BLOB_DIR: envOptionalString().transform((value) => value ?? '.data/blobs'),
  /**
   * Local store: secret that signs blob URLs (at least 32 characters; `openssl rand -hex 32`). Optional
   * when one process both writes and serves blobs (embedded mode): a random secret is made at start,
   * and URLs stop working when the process restarts. Required as soon as more than one process is
   * involved (API plus separate workers, several API replicas): each must have the same value.
   */
  TRAWL_BLOB_SIGNING_SECRET: envOptionalString().refine(
    (value) => value === undefined || value.length >= MIN_SIGNING_SECRET_LENGTH,
    { message: `must be at least ${MIN_SIGNING_SECRET_LENGTH} characters` },
  ),
  /**
   * Local store: base URL clients use to reach the API that serves `/v2/blobs/*`, e.g.
   * `https://trawl.example.com`. Default: the API's public URL passed to `createBlobStore`.
   */
  TRAWL_BLOB_PUBLIC_URL: envBaseUrl(),
  /** Lifetime of the blob URLs returned to clients, in seconds (1 to 604800). Default 86400 (1 day). */
  TRAWL_BLOB_URL_TTL_SEC: envInt(86_400, { min: 1, max: MAX_URL_TTL_SEC }),
  /**
   * Local store: blobs older than this many seconds are deleted by the periodic sweep. Default 86400.
   * Keep it at least `TRAWL_BLOB_URL_TTL_SEC`, or URLs outlive their blobs (404). On S3 a bucket
   * lifecycle rule does this job instead.
   */
  TRAWL_BLOB_RETENTION_SEC: envInt(86_400, { min: 60 }),
  /** S3 store: bucket name (required when `TRAWL_BLOB_STORE=s3`). The bucket must exist. */
  TRAWL_S3_BUCKET: envOptionalString(),
  /** S3 store: signing region: the bucket's region on AWS, `auto` on R2. Default `us-east-1` (MinIO's). */
  TRAWL_S3_REGION: envOptionalString().transform((value) => value ?? 'us-east-1'),
  /** S3 store: endpoint of a non-AWS service, e.g. `http://minio:9000`. Default: AWS S3. */
  TRAWL_S3_ENDPOINT: envBaseUrl(),
  /**
   * S3 store: static access key id. Set both it and `TRAWL_S3_SECRET_ACCESS_KEY`, or neither to use the
   * AWS SDK's provider chain (instance or container role, shared config files).
   */
  TRAWL_S3_ACCESS_KEY_ID: envOptionalString(),
  /** S3 store: static secret access key; see `TRAWL_S3_ACCESS_KEY_ID`. */
  TRAWL_S3_SECRET_ACCESS_KEY: envOptionalString(),
  /** S3 store: path-style addressing (`<endpoint>/<bucket>/<key>`), needed by MinIO. Default false. */
  TRAWL_S3_FORCE_PATH_STYLE: envBoolean(false),
  /**
   * S3 store: longest wait for one upload, ms; past it the put fails (BLOB_STORE_FAILED, retryable).
   * An object store that stops answering (a frozen server, a partition) would otherwise hold the job,
   * and its worker slot, for good: the SDK sets no time limit of its own. Default 30000.
   */
  TRAWL_S3_REQUEST_TIMEOUT_MS: envInt(30_000, { min: 100, max: 600_000 }),
  /**
   * S3 store: prefix of every object key, e.g. `trawl/blobs` (segments of `[A-Za-z0-9._-]`, surrounding
   * slashes ignored). Default none. Scope the bucket's expiry lifecycle rule to it.
   */
  TRAWL_S3_KEY_PREFIX: envOptionalString()
    .refine((value) => value === undefined || normalizeKeyPrefix(value) !== null, {
      message: 'must be /-separated segments of [A-Za-z0-9._-], each starting with a letter or digit',
    })
    .transform((value) => (value === undefined ? undefined : (normalizeKeyPrefix(value) ?? undefined))),
};

/** Output type of one field of a zod schema, without importing zod. */
type Output<T> = T extends { _zod: { output: infer O } } ? O : never;

/** The parsed blob-store variables (a slice of a process's config); see {@link blobStoreEnv}. */
type Env = typeof blobStoreEnv;
/** Fields whose output may be undefined are optional, as in a parsed `z.object` (exactOptionalPropertyTypes aside). */
export type BlobStoreConfig =
  & { [K in keyof Env as undefined extends Output<Env[K]> ? never : K]: Output<Env[K]> }
  & { [K in keyof Env as undefined extends Output<Env[K]> ? K : never]?: Output<Env[K]> };
