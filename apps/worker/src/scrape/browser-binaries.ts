import { TrawlError } from '@trawl/api-schema';
import { blobKey, type BlobStore, type PutBlobInput } from '@trawl/blob-store';
import type { BrowserBinary, BrowserFetchResult } from '@trawl/browser';
import { abortError } from '@trawl/scrape-engine';
import type { BinaryUrls } from '../convert/page-source.js';

const EXT: Record<BrowserBinary['contentType'], string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'application/pdf': 'pdf' };

/**
 * Puts a blob of a job; `input.signal` is the job's deadline or cancellation, which ends an upload
 * still under way: the job then ends for that reason (SCRAPE_TIMEOUT, JOB_CANCELLED), not as a store
 * failure that would be retried.
 */
export async function putJobBlob(blobs: BlobStore, input: PutBlobInput): Promise<void> {
  try {
    await blobs.put(input);
  } catch (err) {
    if (input.signal?.aborted) throw abortError(input.signal);
    throw err;
  }
}

/**
 * Puts the screenshot and the action screenshots and PDFs of a browser fetch into the blob store and
 * returns their signed URLs, in action order. Keys are `<team>/<job>/<name>.<ext>`, so a retried job
 * overwrites its own blobs instead of adding more. `signal`: the job's deadline, which ends an upload
 * still under way.
 */
export async function storeBrowserBinaries(
  page: BrowserFetchResult,
  opts: { blobs: BlobStore | undefined; teamId: string; jobId: string; urlTtlSec: number; signal?: AbortSignal },
): Promise<BinaryUrls> {
  const put = async (binary: BrowserBinary, name: string): Promise<string> => {
    if (!opts.blobs) throw new TrawlError('UNSUPPORTED_OPTION', 'No blob store is configured for screenshots and PDFs');
    const key = blobKey({ teamId: opts.teamId, jobId: opts.jobId, name, ext: EXT[binary.contentType] });
    await putJobBlob(opts.blobs, { key, body: binary.data, contentType: binary.contentType, ...(opts.signal ? { signal: opts.signal } : {}) });
    return opts.blobs.url(key, { expiresInSec: opts.urlTtlSec });
  };
  const out: BinaryUrls = {};
  if (page.screenshot) out.screenshot = await put(page.screenshot, 'screenshot');
  if (page.actions) {
    const a = page.actions;
    out.actions = {
      screenshots: await Promise.all(a.screenshots.map((b, i) => put(b, `action-screenshot-${i}`))),
      scrapes: a.scrapes,
      javascriptReturns: a.javascriptReturns,
      pdfs: await Promise.all(a.pdfs.map((b, i) => put(b, `action-pdf-${i}`))),
    };
  }
  return out;
}
