export {
  blobKey,
  assertValidBlobKey,
  isValidBlobKey,
  MAX_BLOB_KEY_LENGTH,
  MAX_BLOB_KEY_SEGMENTS,
  type BlobKeyParts,
} from './blob-key.js';
export {
  assertValidContentType,
  MAX_URL_TTL_SEC,
  type BlobStore,
  type BlobUrlOptions,
  type PutBlobInput,
} from './blob-store.js';
export {
  blobSignature,
  verifyBlobSignature,
  type BlobSignatureCheck,
  type VerifyBlobSignatureInput,
} from './blob-signature.js';
export { LocalBlobStore, type LocalBlob, type LocalBlobStoreOptions, type SweepResult } from './local-blob-store.js';
export { S3BlobStore, type S3BlobStoreOptions, type S3Credentials } from './s3-blob-store.js';
export { blobStoreEnv, MIN_SIGNING_SECRET_LENGTH, type BlobStoreConfig } from './blob-store-env.js';
export { createBlobStore, type CreateBlobStoreOptions } from './create-blob-store.js';
