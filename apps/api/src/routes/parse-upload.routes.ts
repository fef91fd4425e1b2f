import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Router } from 'express';
import { z } from 'zod';
import { MAX_PARSE_FILE_BYTES, TrawlError } from '@trawl/api-schema';
import type { DocumentBodyStore, ParseUploadRecord, ParseUploadStore } from '@trawl/queue';

/** Timing of the upload URLs, shared by the route that issues them and the route that takes the PUT. */
export interface ParseUploadTiming {
  /** How long an upload URL accepts its PUT, seconds (TRAWL_PARSE_UPLOAD_URL_TTL_SEC). */
  urlTtlSec: number;
}

/**
 * How long an uploaded file waits for its parse, seconds: as long as its URL was valid, at least a
 * minute. The bytes live a minute longer than the record, so a record taken by a parse finds them.
 */
export function uploadKeepSec(timing: ParseUploadTiming): number {
  return Math.max(timing.urlTtlSec, 60);
}

/** A late PUT is told its URL expired (403) rather than that it never existed, this long after expiry. */
export const UPLOAD_RECORD_GRACE_MS = 3_600_000;

/** A new URL token (256 random bits, base64url) and the digest kept in Redis. */
export function newUploadToken(): { token: string; tokenHash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, tokenHash: hashUploadToken(token) };
}

function hashUploadToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Compares the URL's token with the record's digest in constant time (digests of equal length). */
function tokenMatches(record: ParseUploadRecord, token: unknown): boolean {
  if (typeof token !== 'string' || token.length === 0 || token.length > 512) return false;
  const expected = Buffer.from(record.tokenHash, 'hex');
  const given = Buffer.from(hashUploadToken(token), 'hex');
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** MIME type without parameters, lower-cased; undefined for the generic type sent for anything. */
function declaredType(header: string | undefined): string | undefined {
  const t = header?.split(';')[0]?.trim().toLowerCase();
  return t && t !== 'application/octet-stream' && t.length <= 256 ? t : undefined;
}

const refSchema = z.uuid();

/**
 * `PUT /v2/parse/uploads/:ref?token=<token>`: the bytes of a file to parse, sent to the URL that
 * `POST /v2/parse/upload-url` issued. No API key: the token is the credential, so mount this router
 * before the API-key middleware of `/v2`. Checks in this order: the upload exists (404 `NOT_FOUND`),
 * the token (403 `UPLOAD_URL_INVALID`), expiry (403 `UPLOAD_URL_EXPIRED`), not uploaded yet (409
 * `CONFLICT`), size (413 `PAYLOAD_TOO_LARGE`, from Content-Length or while streaming: nothing is kept
 * and the URL may be used again). The bytes stream into the DocumentBodyStore in 1 MiB chunks.
 */
export function parseUploadRoutes(deps: {
  uploads: ParseUploadStore;
  documentBodies: DocumentBodyStore;
  timing: ParseUploadTiming;
  /** Largest file, bytes. Default 50 MiB. */
  maxFileBytes?: number;
}): Router {
  const router = Router();
  const maxFileBytes = deps.maxFileBytes ?? MAX_PARSE_FILE_BYTES;
  router.put('/v2/parse/uploads/:ref', async (req, res) => {
    try {
      const ref = refSchema.safeParse(req.params.ref);
      const record = ref.success ? await deps.uploads.get(ref.data) : null;
      if (!record) throw new TrawlError('NOT_FOUND', 'No such upload URL (it expired, or was used and parsed)');
      if (!tokenMatches(record, req.query.token)) throw new TrawlError('UPLOAD_URL_INVALID', 'Invalid upload URL token');
      if (Date.now() >= record.expiresAt) {
        throw new TrawlError('UPLOAD_URL_EXPIRED', 'This upload URL has expired; ask POST /v2/parse/upload-url for a new one');
      }
      if (record.state !== 'pending') {
        throw new TrawlError('CONFLICT', record.state === 'stored' ? 'A file was uploaded to this URL already' : 'An upload to this URL is in progress');
      }
      const length = Number(req.headers['content-length']);
      if (Number.isFinite(length) && length > maxFileBytes) {
        throw new TrawlError('PAYLOAD_TOO_LARGE', `The file is larger than ${maxFileBytes} bytes`, { details: { maxBytes: maxFileBytes } });
      }
      if (!(await deps.uploads.beginUpload(record.ref))) throw new TrawlError('CONFLICT', 'An upload to this URL is in progress');
      const keepSec = uploadKeepSec(deps.timing);
      let size: number;
      try {
        size = await deps.documentBodies.put(record.jobId, req, { ttlSec: keepSec + 60, maxBytes: maxFileBytes });
        if (size === 0) throw new TrawlError('BAD_REQUEST', 'The file is empty');
      } catch (err) {
        // Too large, empty or interrupted (the request stream failed): nothing is kept (the store
        // deleted what it wrote) and the URL may be used again.
        await deps.documentBodies.delete(record.jobId);
        await deps.uploads.abortUpload(record.ref);
        throw err instanceof TrawlError ? err : new TrawlError('BAD_REQUEST', 'The upload was interrupted');
      }
      const mimeType = record.mimeType ? undefined : declaredType(req.headers['content-type']);
      if (!(await deps.uploads.finishUpload(record.ref, size, keepSec * 1000, mimeType))) {
        await deps.documentBodies.delete(record.jobId);
        throw new TrawlError('NOT_FOUND', 'The upload URL expired during the upload');
      }
      await deps.documentBodies.touch(record.jobId, keepSec + 60);
      res.json({ success: true, uploadRef: record.ref, size });
    } catch (err) {
      // Answer without reading the rest: drain it so the client, still sending, gets the answer.
      req.unpipe();
      req.resume();
      res.setHeader('Connection', 'close');
      throw err;
    }
  });
  return router;
}
