import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@trawl/config';
import { blobStoreEnv, type BlobStoreConfig } from './blob-store-env.js';
import { createBlobStore } from './create-blob-store.js';
import { LocalBlobStore } from './local-blob-store.js';
import { S3BlobStore } from './s3-blob-store.js';

/** Parses the fragment field by field, as an app's `z.object({...blobStoreEnv})` would. */
function parseEnv(env: Record<string, string>): BlobStoreConfig {
  const entries = Object.entries(blobStoreEnv).map(([name, schema]) => [name, schema.parse(env[name])]);
  return Object.fromEntries(entries) as BlobStoreConfig;
}

function issuesOf(fn: () => unknown): readonly string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.issues;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('blobStoreEnv', () => {
  it('has the documented defaults', () => {
    expect(parseEnv({})).toEqual({
      TRAWL_BLOB_STORE: 'local',
      TRAWL_BLOB_DIR: '.data/blobs',
      TRAWL_BLOB_SIGNING_SECRET: undefined,
      TRAWL_BLOB_PUBLIC_URL: undefined,
      TRAWL_BLOB_URL_TTL_SEC: 86_400,
      TRAWL_BLOB_RETENTION_SEC: 86_400,
      TRAWL_S3_BUCKET: undefined,
      TRAWL_S3_REGION: 'us-east-1',
      TRAWL_S3_ENDPOINT: undefined,
      TRAWL_S3_ACCESS_KEY_ID: undefined,
      TRAWL_S3_SECRET_ACCESS_KEY: undefined,
      TRAWL_S3_FORCE_PATH_STYLE: false,
      TRAWL_S3_REQUEST_TIMEOUT_MS: 30_000,
      TRAWL_S3_KEY_PREFIX: undefined,
    });
  });

  it('reads every variable', () => {
    const c = parseEnv({
      TRAWL_BLOB_STORE: 's3',
      TRAWL_BLOB_PUBLIC_URL: 'https://trawl.example.com/',
      TRAWL_BLOB_URL_TTL_SEC: '600',
      TRAWL_S3_ENDPOINT: 'http://minio:9000/',
      TRAWL_S3_FORCE_PATH_STYLE: 'true',
      TRAWL_S3_REQUEST_TIMEOUT_MS: '5000',
      TRAWL_S3_KEY_PREFIX: '/trawl/blobs/',
    });
    expect(c.TRAWL_BLOB_STORE).toBe('s3');
    expect(c.TRAWL_BLOB_PUBLIC_URL).toBe('https://trawl.example.com');
    expect(c.TRAWL_BLOB_URL_TTL_SEC).toBe(600);
    expect(c.TRAWL_S3_ENDPOINT).toBe('http://minio:9000');
    expect(c.TRAWL_S3_FORCE_PATH_STYLE).toBe(true);
    expect(c.TRAWL_S3_REQUEST_TIMEOUT_MS).toBe(5000);
    expect(c.TRAWL_S3_KEY_PREFIX).toBe('trawl/blobs');
  });

  it.each([
    ['TRAWL_BLOB_STORE', 'gcs'],
    ['TRAWL_BLOB_SIGNING_SECRET', 'short'],
    ['TRAWL_BLOB_URL_TTL_SEC', '604801'],
    ['TRAWL_BLOB_URL_TTL_SEC', '0'],
    ['TRAWL_S3_FORCE_PATH_STYLE', 'maybe'],
    ['TRAWL_S3_REQUEST_TIMEOUT_MS', '0'],
    ['TRAWL_S3_KEY_PREFIX', 'a/../b'],
    ['TRAWL_BLOB_PUBLIC_URL', 'ftp://x.example'],
  ] as const)('rejects %s=%s', (name, value) => {
    expect(blobStoreEnv[name].safeParse(value).success).toBe(false);
  });
});

describe('createBlobStore', () => {
  it('makes a local store by default, with the public URL of the API', async () => {
    const store = createBlobStore(parseEnv({}), { publicBaseUrl: 'http://127.0.0.1:3002' });
    expect(store).toBeInstanceOf(LocalBlobStore);
    expect(await store.url('t/j/a.png')).toMatch(/^http:\/\/127\.0\.0\.1:3002\/v2\/blobs\/t\/j\/a\.png\?expires=\d+&signature=[0-9a-f]{64}$/);
    expect((store as LocalBlobStore).ephemeralSecret).toBe(true);
  });

  it('prefers TRAWL_BLOB_PUBLIC_URL', async () => {
    const env = { TRAWL_BLOB_PUBLIC_URL: 'https://blobs.example.com', TRAWL_BLOB_SIGNING_SECRET: 's'.repeat(32) };
    const store = createBlobStore(parseEnv(env), { publicBaseUrl: 'http://127.0.0.1:3002' });
    expect(await store.url('t/j/a.png')).toMatch(/^https:\/\/blobs\.example\.com\/v2\/blobs\//);
    expect((store as LocalBlobStore).ephemeralSecret).toBe(false);
  });

  it('needs a public URL for the local store', () => {
    expect(issuesOf(() => createBlobStore(parseEnv({})))).toEqual([expect.stringMatching(/^TRAWL_BLOB_PUBLIC_URL: required/)]);
  });

  it('needs a bucket for s3, and both keys or neither', () => {
    const env = { TRAWL_BLOB_STORE: 's3', TRAWL_S3_ACCESS_KEY_ID: 'id' };
    expect(issuesOf(() => createBlobStore(parseEnv(env)))).toEqual([
      expect.stringMatching(/^TRAWL_S3_BUCKET: required/),
      expect.stringMatching(/set both or neither/),
    ]);
  });

  it('makes an S3 store', async () => {
    const store = createBlobStore(parseEnv({ TRAWL_BLOB_STORE: 's3', TRAWL_S3_BUCKET: 'b' }));
    expect(store).toBeInstanceOf(S3BlobStore);
    await store.close();
  });
});
