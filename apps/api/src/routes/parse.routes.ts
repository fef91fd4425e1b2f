import { Router, type Request } from 'express';
import busboy from 'busboy';
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { MAX_PARSE_FILE_BYTES, TrawlError, parseRequestSchema, parseUnsupportedOptions, uploadSourceUrl, type ScrapeRequest } from '@trawl/api-schema';
import type { CreditLedger, DocumentBodyStore, RateLimiter } from '@trawl/queue';
import { DEFAULT_MAX_JSON_DEPTH, jsonTextDepthExceeds } from '../middleware/json-body.js';
import { parseOrThrow } from '../middleware/validate.js';
import { rateLimit } from '../middleware/rate-limit.js';
import { locals, teamOf } from '../request-context.js';
import type { ScrapeService, StoredUpload } from '../services/scrape.service.js';

export interface ParseRoutesDeps {
  scrape: ScrapeService;
  limiter: RateLimiter;
  credits: CreditLedger;
  documentBodies: DocumentBodyStore;
  /** Documents workers are deployed; false answers 400 UNSUPPORTED_OPTION. */
  enabled: boolean;
  /** Largest `options` part, bytes (the JSON body limit). */
  maxOptionsBytes: number;
  /** Largest file, bytes. Default 50 MiB. */
  maxFileBytes?: number;
  /** Deepest nesting of the `options` JSON. Default 64. */
  maxJsonDepth?: number;
}

/** The multipart body of a parse: the `options` JSON text and the stored file. */
interface ParseUpload {
  options: string | undefined;
  upload: StoredUpload | undefined;
}

/** MIME type without parameters, lower-cased; undefined for the generic types a browser sends for anything. */
function declaredType(mimeType: string): string | undefined {
  const t = mimeType.split(';')[0]?.trim().toLowerCase();
  return t && t !== 'application/octet-stream' ? t : undefined;
}

/**
 * Reads a `multipart/form-data` parse request as it arrives: the `file` part streams into the
 * DocumentBodyStore in 1 MiB chunks (the gateway never holds the file), `options` is kept as text.
 */
function readUpload(req: Request, deps: ParseRoutesDeps, ttlSec: number): Promise<ParseUpload> {
  const maxFileBytes = deps.maxFileBytes ?? MAX_PARSE_FILE_BYTES;
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: req.headers,
        limits: { files: 2, fields: 20, fieldSize: deps.maxOptionsBytes, fileSize: maxFileBytes + 1, parts: 25 },
      });
    } catch (err) {
      reject(new TrawlError('BAD_REQUEST', `A parse request is multipart/form-data with a file part: ${(err as Error).message}`));
      return;
    }
    const result: ParseUpload = { options: undefined, upload: undefined };
    let storing: Promise<void> | undefined;
    let failed = false;
    const fail = (err: unknown) => {
      if (failed) return;
      failed = true;
      req.unpipe(bb);
      bb.destroy(); // ends the file stream, so a running store stops and deletes what it wrote
      req.resume(); // drain what is left so the error answer can be sent
      // A file stored before the failure is dropped too.
      void (storing ?? Promise.resolve()).then(() => (result.upload ? deps.documentBodies.delete(result.upload.jobId) : undefined)).catch(() => undefined);
      reject(err);
    };
    bb.on('field', (name, value, info) => {
      if (name !== 'options') return;
      if (info.valueTruncated) fail(new TrawlError('PAYLOAD_TOO_LARGE', `The options part is larger than ${deps.maxOptionsBytes} bytes`));
      else result.options = value;
    });
    bb.on('file', (name, stream: Readable, info) => {
      // busboy fails a part's stream when the body ends inside it (no closing boundary), possibly
      // before anything reads it (the store is still waiting on Redis): an unheard 'error' would kill
      // the process. Listen at once, on every part; the part being stored reports through the store,
      // whose own errors (a file too large) come first.
      const stored = name === 'file' && !result.upload && !storing;
      let partError: Error | undefined;
      const malformed = (err: Error) => new TrawlError('BAD_REQUEST', `Malformed multipart body: ${err.message}`);
      stream.on('error', (err) => {
        partError = err;
        if (!stored) fail(malformed(err));
      });
      if (name === 'options') {
        // `-F options=@options.json` sends the options as a file part: read it as text.
        const chunks: Buffer[] = [];
        let bytes = 0;
        stream.on('data', (c: Buffer) => {
          bytes += c.length;
          if (bytes > deps.maxOptionsBytes) fail(new TrawlError('PAYLOAD_TOO_LARGE', `The options part is larger than ${deps.maxOptionsBytes} bytes`));
          else chunks.push(c);
        });
        stream.on('end', () => {
          result.options = Buffer.concat(chunks).toString('utf8');
        });
        return;
      }
      if (!stored) {
        stream.resume();
        return;
      }
      const jobId = randomUUID();
      const filename = (info.filename ?? '').trim().slice(-255) || 'upload';
      const declared = declaredType(info.mimeType);
      const mimeType = declared && declared.length <= 256 ? declared : undefined;
      storing = deps.documentBodies.put(jobId, stream, { ttlSec, maxBytes: maxFileBytes }).then(
        (size) => {
          result.upload = { jobId, size, filename, ...(mimeType ? { mimeType } : {}) };
        },
        (err: unknown) => {
          stream.resume();
          fail(!(err instanceof TrawlError) && partError ? malformed(partError) : err);
        },
      );
    });
    bb.on('partsLimit', () => fail(new TrawlError('BAD_REQUEST', 'Too many parts: send `options` and `file`')));
    bb.on('error', (err) => fail(new TrawlError('BAD_REQUEST', `Malformed multipart body: ${(err as Error).message}`)));
    bb.on('close', () => {
      void (storing ?? Promise.resolve()).then(() => {
        if (!failed) resolve(result);
      });
    });
    req.on('aborted', () => fail(new TrawlError('BAD_REQUEST', 'The upload was interrupted')));
    req.on('error', () => fail(new TrawlError('BAD_REQUEST', 'The upload was interrupted')));
    req.pipe(bb);
  });
}

/** POST /v2/parse (behind API-key auth): a file (PDF, office, CSV, image, HTML, text) -> Document. */
export function parseRoutes(deps: ParseRoutesDeps): Router {
  const router = Router();
  router.post('/v2/parse', rateLimit(deps.limiter, 'api'), async (req, res) => {
    if (!deps.enabled) {
      throw new TrawlError('UNSUPPORTED_OPTION', 'Document parsing is not deployed on this server', { details: { option: 'file', capability: 'documents' } });
    }
    if (!req.is('multipart/form-data')) {
      throw new TrawlError('BAD_REQUEST', 'Send multipart/form-data with an `options` JSON part and a `file` part');
    }
    const team = teamOf(res);
    await deps.credits.ensureAvailable(team.id, 1);
    // Until the job's own deadline exists, the stored file lives as long as the longest timeout.
    const { options, upload } = await readUpload(req, deps, 360);
    if (!upload) throw new TrawlError('BAD_REQUEST', 'The request has no `file` part');
    let request: ScrapeRequest;
    try {
      if (upload.size === 0) throw new TrawlError('BAD_REQUEST', 'The file is empty');
      let raw: unknown = {};
      if (options !== undefined && options.trim() !== '') {
        const maxDepth = deps.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
        if (jsonTextDepthExceeds(Buffer.from(options), maxDepth)) {
          throw new TrawlError('BAD_REQUEST', `The options part is nested deeper than ${maxDepth} levels`, { details: { maxDepth } });
        }
        try {
          raw = JSON.parse(options);
        } catch {
          throw new TrawlError('BAD_REQUEST_INVALID_JSON', 'The options part is not valid JSON');
        }
      }
      const unsupported = parseUnsupportedOptions(raw);
      if (unsupported.length > 0) {
        throw new TrawlError('PARSE_UNSUPPORTED_OPTIONS', `Parse does not support these options (they need a live page): ${unsupported.join(', ')}`, { details: { options: unsupported } });
      }
      request = { ...parseOrThrow(parseRequestSchema, raw), url: uploadSourceUrl(upload.filename) };
    } catch (err) {
      await deps.documentBodies.delete(upload.jobId);
      throw err;
    }
    const clientGone = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) clientGone.abort();
    });
    let document: Awaited<ReturnType<ScrapeService['parse']>>['document'];
    try {
      ({ document } = await deps.scrape.parse(team, request, upload, { log: locals(res).log, clientGone: clientGone.signal }));
    } catch (err) {
      // A file no reader takes is the client's file type, not a page's content.
      if (err instanceof TrawlError && err.code === 'SCRAPE_UNSUPPORTED_CONTENT') {
        throw new TrawlError('UNSUPPORTED_FILE_TYPE', err.message, { details: { ...err.details, filename: upload.filename } });
      }
      throw err;
    }
    // The source of an upload is its file name.
    res.json({ success: true, data: { ...document, metadata: { ...(document.metadata as Record<string, unknown> | undefined), sourceURL: upload.filename } } });
  });
  return router;
}
