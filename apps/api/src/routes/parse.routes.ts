import { Router, type Request } from 'express';
import busboy from 'busboy';
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  MAX_PARSE_FILE_BYTES, TrawlError, ignoredOptionsOf, ignoredOptionsWarning, joinWarnings, parseRequestSchema, parseUnsupportedOptions,
  parseUploadRequestSchema, parseUploadUrlRequestSchema, splitExperimentalKeys, uploadSourceUrl, type ScrapeRequest,
} from '@trawl/api-schema';
import type { CreditLedger, DocumentBodyStore, ParseUploadStore, RateLimiter, Team } from '@trawl/queue';
import { DEFAULT_MAX_JSON_DEPTH, jsonBody, jsonTextDepthExceeds } from '../middleware/json-body.js';
import { parseBodyOrThrow, parseOrThrow } from '../middleware/validate.js';
import { rateLimit } from '../middleware/rate-limit.js';
import { locals, teamOf } from '../request-context.js';
import type { ScrapeService, StoredUpload } from '../services/scrape.service.js';
import { publicBase } from './crawl.routes.js';
import { UPLOAD_RECORD_GRACE_MS, newUploadToken, uploadKeepSec, type ParseUploadTiming } from './parse-upload.routes.js';

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
  /** Upload URLs of the large-file flow (`POST /v2/parse/upload-url`, then `POST /v2/parse {uploadRef}`). */
  uploads: ParseUploadStore;
  uploadTiming: ParseUploadTiming;
  /** Base of absolute URLs in responses; else the request's scheme and host. */
  publicUrl?: string;
}

/** Seconds a file waits in the DocumentBodyStore for its parse job (until the job's own deadline exists, the longest timeout). */
const PARSE_BODY_TTL_SEC = 360;

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

/** Refuses options a parse cannot honour, by name (before the schema, so the client learns which to drop). */
function assertParseOptions(raw: unknown): void {
  const unsupported = parseUnsupportedOptions(raw);
  if (unsupported.length > 0) {
    throw new TrawlError('PARSE_UNSUPPORTED_OPTIONS', `Parse does not support these options (they need a live page): ${unsupported.join(', ')}`, { details: { options: unsupported } });
  }
}

/** What a parse request names: the options, the stored file, the warning naming accepted-but-ignored options. */
interface ParseInput {
  request: ScrapeRequest;
  upload: StoredUpload;
  warning: string | undefined;
}

/** A multipart parse: the file streamed into the store, the options checked (the file is dropped if they fail). */
async function fromMultipart(req: Request, deps: ParseRoutesDeps): Promise<ParseInput> {
  const { options, upload } = await readUpload(req, deps, PARSE_BODY_TTL_SEC);
  if (!upload) throw new TrawlError('BAD_REQUEST', 'The request has no `file` part');
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
    assertParseOptions(raw);
    const parsed = parseBodyOrThrow(parseRequestSchema, 'parse', raw);
    return { request: { ...parsed.data, url: uploadSourceUrl(upload.filename) }, upload, warning: parsed.warning };
  } catch (err) {
    await deps.documentBodies.delete(upload.jobId);
    throw err;
  }
}

/**
 * A JSON parse `{uploadRef, options?}` of a file PUT to an upload URL: the options are checked first
 * (a mistake there keeps the upload), then the upload is taken, once, by its own team only.
 */
async function fromUploadRef(body: unknown, team: Team, deps: ParseRoutesDeps): Promise<ParseInput> {
  const rawOptions = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as { options?: unknown }).options : undefined;
  assertParseOptions(rawOptions);
  // The options as the multipart path takes them: `__experimental_*` keys set aside and named in the warning.
  const split = splitExperimentalKeys(rawOptions);
  const envelope = rawOptions === undefined ? body : { ...(body as object), options: split.body };
  const { uploadRef, options } = parseOrThrow(parseUploadRequestSchema, envelope);
  const warning = ignoredOptionsWarning([...split.keys, ...ignoredOptionsOf('parse', split.body)].map((p) => `options.${p}`));
  const taken = await deps.uploads.consume(uploadRef, team.id);
  if (taken.status === 'not-uploaded') {
    throw new TrawlError('CONFLICT', taken.state === 'uploading' ? 'The upload to this uploadRef is still in progress' : 'Nothing was uploaded to this uploadRef\'s URL yet');
  }
  // A parsed ref is gone: used twice reads like unknown, as does another team's ref.
  if (taken.status === 'missing') throw new TrawlError('NOT_FOUND', 'No upload with this uploadRef (unknown, expired, or parsed already)');
  const { jobId, filename, mimeType, size } = taken.upload;
  // The bytes now live until the job's deadline; they may have expired just before the record did.
  if (!(await deps.documentBodies.touch(jobId, PARSE_BODY_TTL_SEC))) throw new TrawlError('NOT_FOUND', 'The uploaded file expired');
  const upload: StoredUpload = { jobId, size: size ?? 0, filename, ...(mimeType ? { mimeType } : {}) };
  return { request: { ...(options ?? parseRequestSchema.parse({})), url: uploadSourceUrl(filename) }, upload, warning };
}

function assertEnabled(deps: ParseRoutesDeps): void {
  if (!deps.enabled) {
    throw new TrawlError('UNSUPPORTED_OPTION', 'Document parsing is not deployed on this server', { details: { option: 'file', capability: 'documents' } });
  }
}

/**
 * POST /v2/parse (behind API-key auth): a file (PDF, office, CSV, image, HTML, text) -> Document, sent
 * as multipart, or uploaded before through `POST /v2/parse/upload-url` and named by its `uploadRef`.
 */
export function parseRoutes(deps: ParseRoutesDeps): Router {
  const router = Router();
  const json = jsonBody({ maxBodyBytes: deps.maxOptionsBytes, maxJsonDepth: deps.maxJsonDepth });
  router.post('/v2/parse/upload-url', rateLimit(deps.limiter, 'api'), json, async (req, res) => {
    assertEnabled(deps);
    const { filename, contentType } = parseOrThrow(parseUploadUrlRequestSchema, req.body);
    const team = teamOf(res);
    await deps.credits.ensureAvailable(team.id, 1);
    const { token, tokenHash } = newUploadToken();
    const mimeType = contentType?.split(';')[0]?.trim().toLowerCase();
    const record = await deps.uploads.create({
      teamId: team.id, tokenHash, filename,
      ...(mimeType && mimeType !== 'application/octet-stream' ? { mimeType } : {}),
      expiresAt: Date.now() + deps.uploadTiming.urlTtlSec * 1000,
      graceMs: Math.max(UPLOAD_RECORD_GRACE_MS, uploadKeepSec(deps.uploadTiming) * 1000),
    });
    res.json({
      success: true,
      uploadUrl: `${publicBase(req, deps.publicUrl)}/v2/parse/uploads/${record.ref}?token=${token}`,
      uploadRef: record.ref,
      expiresAt: new Date(record.expiresAt).toISOString(),
    });
  });
  router.post('/v2/parse', rateLimit(deps.limiter, 'api'), json, async (req, res) => {
    assertEnabled(deps);
    const multipart = req.is('multipart/form-data');
    if (!multipart && !req.is('application/json')) {
      throw new TrawlError('BAD_REQUEST', 'Send multipart/form-data with an `options` JSON part and a `file` part, or JSON `{uploadRef, options}`');
    }
    const team = teamOf(res);
    await deps.credits.ensureAvailable(team.id, 1);
    const { request, upload, warning: ignoredWarning } = multipart ? await fromMultipart(req, deps) : await fromUploadRef(req.body, team, deps);
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
    const warning = joinWarnings(typeof document.warning === 'string' ? document.warning : undefined, ignoredWarning);
    res.json({
      success: true,
      data: { ...document, ...(warning !== undefined ? { warning } : {}), metadata: { ...(document.metadata as Record<string, unknown> | undefined), sourceURL: upload.filename } },
    });
  });
  return router;
}
