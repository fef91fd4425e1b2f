import { pipeline } from 'node:stream/promises';
import { Router } from 'express';
import { TrawlError } from '@trawl/api-schema';
import { assertValidBlobKey, type LocalBlobStore } from '@trawl/blob-store';

/** Express 5 gives a `*key` wildcard as its decoded segments; join them back into the key. */
function keyOf(param: unknown): string {
  if (Array.isArray(param)) return param.join('/');
  return typeof param === 'string' ? param : '';
}

/**
 * `GET /v2/blobs/<key>?expires=<unix sec>&signature=<hex>`: blobs of the local store (screenshots,
 * action PDFs), reached through the signed URLs returned in documents. No API key: the signature is
 * the credential, so mount this router before the API-key middleware of `/v2`. Checks in this order,
 * so an unsigned request learns nothing about which blobs exist: key syntax (400 `BLOB_INVALID_KEY`),
 * signature (403 `BLOB_SIGNATURE_INVALID`), expiry (403 `BLOB_URL_EXPIRED`), existence (404 `NOT_FOUND`).
 * With `store: null` (blobs live in S3 and are fetched there) every request is 404.
 */
export function blobRoutes(deps: { store: LocalBlobStore | null }): Router {
  const router = Router();
  router.get('/v2/blobs/*key', async (req, res) => {
    const store = deps.store;
    if (!store) throw new TrawlError('NOT_FOUND', 'This deployment does not serve blobs itself');
    const key = keyOf(req.params.key);
    assertValidBlobKey(key);
    const check = store.verify({ key, expires: req.query.expires, signature: req.query.signature });
    if (!check.ok && check.reason === 'expired') {
      throw new TrawlError('BLOB_URL_EXPIRED', 'This blob URL has expired; fetch the document again for a fresh URL');
    }
    if (!check.ok) throw new TrawlError('BLOB_SIGNATURE_INVALID', 'Invalid blob URL signature');
    const blob = await store.read(key);
    res.status(200);
    res.setHeader('Content-Type', blob.contentType);
    res.setHeader('Content-Length', String(blob.size));
    // Never cached past the URL's expiry; `private` keeps shared caches from serving it to others.
    res.setHeader('Cache-Control', `private, max-age=${check.remainingSec}`);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (req.method === 'HEAD') {
      blob.stream.destroy();
      res.end();
      return;
    }
    try {
      await pipeline(blob.stream, res);
    } catch {
      // The client went away or the file vanished mid-stream: headers are sent, so the only honest
      // signal left is a truncated response. pipeline() has already destroyed both streams.
    }
  });
  return router;
}
