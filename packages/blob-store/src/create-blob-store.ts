import { ConfigError } from '@trawl/config';
import type { BlobStoreConfig } from './blob-store-env.js';
import { LocalBlobStore } from './local-blob-store.js';
import { S3BlobStore, type S3BlobStoreOptions } from './s3-blob-store.js';

/** Options of {@link createBlobStore} that do not come from the blob-store variables. */
export interface CreateBlobStoreOptions {
  /**
   * Base URL of the API, used for local blob URLs when `TRAWL_BLOB_PUBLIC_URL` is unset (normally the
   * API's `TRAWL_PUBLIC_URL`, or `http://127.0.0.1:<port>` in embedded mode). Ignored for `s3`.
   */
  publicBaseUrl?: string;
}

/**
 * Builds the configured store: a {@link LocalBlobStore} or an {@link S3BlobStore}. The caller owns it
 * (closes it on shutdown and, for `local`, calls `sweep({olderThanSec: TRAWL_BLOB_RETENTION_SEC})` on
 * an interval).
 * @throws ConfigError listing every variable that is missing or inconsistent for the chosen store.
 */
export function createBlobStore(
  config: BlobStoreConfig,
  opts: CreateBlobStoreOptions = {},
): LocalBlobStore | S3BlobStore {
  if (config.TRAWL_BLOB_STORE === 's3') return new S3BlobStore(s3Options(config));
  const publicBaseUrl = config.TRAWL_BLOB_PUBLIC_URL ?? opts.publicBaseUrl;
  if (publicBaseUrl === undefined) {
    throw new ConfigError([
      'TRAWL_BLOB_PUBLIC_URL: required with TRAWL_BLOB_STORE=local when the API has no public URL ' +
        '(blob URLs given to clients must be absolute)',
    ]);
  }
  return new LocalBlobStore({
    root: config.TRAWL_BLOB_DIR,
    publicBaseUrl,
    urlTtlSec: config.TRAWL_BLOB_URL_TTL_SEC,
    ...(config.TRAWL_BLOB_SIGNING_SECRET !== undefined ? { signingSecret: config.TRAWL_BLOB_SIGNING_SECRET } : {}),
  });
}

function s3Options(config: BlobStoreConfig): S3BlobStoreOptions {
  const issues: string[] = [];
  if (config.TRAWL_S3_BUCKET === undefined) issues.push('TRAWL_S3_BUCKET: required with TRAWL_BLOB_STORE=s3');
  const id = config.TRAWL_S3_ACCESS_KEY_ID;
  const secret = config.TRAWL_S3_SECRET_ACCESS_KEY;
  if ((id === undefined) !== (secret === undefined)) {
    issues.push('TRAWL_S3_ACCESS_KEY_ID, TRAWL_S3_SECRET_ACCESS_KEY: set both or neither');
  }
  if (issues.length > 0 || config.TRAWL_S3_BUCKET === undefined) throw new ConfigError(issues);
  return {
    bucket: config.TRAWL_S3_BUCKET,
    region: config.TRAWL_S3_REGION,
    forcePathStyle: config.TRAWL_S3_FORCE_PATH_STYLE,
    urlTtlSec: config.TRAWL_BLOB_URL_TTL_SEC,
    requestTimeoutMs: config.TRAWL_S3_REQUEST_TIMEOUT_MS,
    ...(config.TRAWL_S3_ENDPOINT !== undefined ? { endpoint: config.TRAWL_S3_ENDPOINT } : {}),
    ...(config.TRAWL_S3_KEY_PREFIX !== undefined ? { keyPrefix: config.TRAWL_S3_KEY_PREFIX } : {}),
    ...(id !== undefined && secret !== undefined ? { credentials: { accessKeyId: id, secretAccessKey: secret } } : {}),
  };
}
