import { describe, expect, it } from '@jest/globals';
import { TrawlError } from '@trawl/api-schema';
import type { BlobStore, PutBlobInput } from '@trawl/blob-store';
import { putJobBlob } from './browser-binaries.js';

/** A store whose uploads never finish on their own: they fail when their signal fires, as the S3 store's do. */
function silentStore(): BlobStore {
  return {
    kind: 's3',
    put: (input: PutBlobInput) => new Promise<void>((_resolve, reject) => {
      input.signal?.addEventListener('abort', () => reject(new TrawlError('BLOB_STORE_FAILED', 'Could not write blob to the object store', { retryable: true })), { once: true });
    }),
    url: async (key: string) => `https://blobs.example/${key}`,
    close: async () => undefined,
  };
}

const input = (signal?: AbortSignal): PutBlobInput => ({ key: 't/j/screenshot.png', body: Buffer.from('x'), contentType: 'image/png', ...(signal ? { signal } : {}) });

describe('putJobBlob', () => {
  it('ends an upload cut by the job\'s deadline as SCRAPE_TIMEOUT, and by its cancellation as JOB_CANCELLED, not as a retryable store failure', async () => {
    const deadline = new AbortController();
    const timedOut = putJobBlob(silentStore(), input(deadline.signal));
    deadline.abort(new DOMException('The operation timed out.', 'TimeoutError'));
    await expect(timedOut).rejects.toMatchObject({ code: 'SCRAPE_TIMEOUT' });

    const cancel = new AbortController();
    const cancelled = putJobBlob(silentStore(), input(cancel.signal));
    cancel.abort();
    await expect(cancelled).rejects.toMatchObject({ code: 'JOB_CANCELLED' });
  });

  it('passes a store failure of its own through', async () => {
    const failing: BlobStore = { ...silentStore(), put: async () => { throw new TrawlError('BLOB_STORE_FAILED', 'Could not write blob to the object store', { retryable: false }); } };
    await expect(putJobBlob(failing, input(new AbortController().signal))).rejects.toMatchObject({ code: 'BLOB_STORE_FAILED', retryable: false });
  });
});
