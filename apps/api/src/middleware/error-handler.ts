import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { TrawlError } from '@trawl/api-schema';
import { isRedisUnavailableError } from '@trawl/queue';
import { ERROR_STATUS, SPEC_MESSAGES } from '../error-status.js';
import { locals } from '../request-context.js';

/**
 * Errors of the request itself raised before a route runs: express's body parser (they carry a
 * `type`, or only a 4xx `status` when the body's Content-Encoding does not decode), and the router's
 * path-parameter decoding (a URIError with status 400 for malformed percent-encoding).
 */
function fromBodyParser(err: unknown): TrawlError | null {
  const e = err as { type?: string; limit?: number; status?: number; expose?: boolean };
  if (err instanceof URIError && e.status === 400) {
    return new TrawlError('BAD_REQUEST', 'Malformed percent-encoding in the request path', { cause: err });
  }
  if (e?.type === 'entity.parse.failed') {
    return new TrawlError('BAD_REQUEST_INVALID_JSON', 'Bad request, malformed JSON', { cause: err });
  }
  if (e?.type === 'entity.too.deep') {
    return new TrawlError('BAD_REQUEST', (err as Error).message, { details: { maxDepth: (err as { maxDepth?: number }).maxDepth } });
  }
  if (e?.type === 'entity.too.large') {
    return new TrawlError('PAYLOAD_TOO_LARGE', `Request body larger than ${e.limit} bytes`, { details: { limitBytes: e.limit } });
  }
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') {
    return new TrawlError('BAD_REQUEST', 'Unsupported request body encoding', { cause: err });
  }
  if (e?.type === 'request.aborted' || e?.type === 'request.size.invalid') {
    return new TrawlError('BAD_REQUEST', 'The request body ended before its declared length', { cause: err });
  }
  // A body declared `Content-Encoding: gzip` (or deflate, br) that does not decode: zlib's error,
  // wrapped by the body parser as a 400.
  if (e?.expose === true && e.status === 400) {
    return new TrawlError('BAD_REQUEST', 'The request body could not be decoded (check Content-Encoding)', { cause: err });
  }
  if (isRedisUnavailableError(err)) return new TrawlError('SERVICE_UNAVAILABLE', 'Redis is unreachable; try again shortly', { retryable: true, cause: err });
  return null;
}

/**
 * The only place that chooses a status. Body: `{success: false, error, code, details?}`; unexpected
 * errors are 500 UNKNOWN_ERROR with an error id that finds the logged stack.
 */
export function errorHandler(): ErrorRequestHandler {
  return (err, _req, res, _next) => {
    const log = locals(res).log;
    let te = err instanceof TrawlError ? err : fromBodyParser(err);
    let errorId: string | undefined;
    if (!te) {
      errorId = randomUUID();
      log.error({ err, errorId }, 'unexpected error');
      te = new TrawlError('UNKNOWN_ERROR', SPEC_MESSAGES.UNKNOWN_ERROR!, { details: { errorId } });
    }
    const status = ERROR_STATUS[te.code];
    locals(res).errorCode = te.code;
    if (status >= 500 && !errorId) log.warn({ code: te.code, details: te.details }, 'request failed');
    if (res.headersSent) return;
    // Every "try again later" says when: the limiter's own figure, else one second.
    if ((status === 429 || status === 503) && !res.hasHeader('Retry-After')) {
      const after = te.details?.retryAfterSec;
      res.setHeader('Retry-After', String(typeof after === 'number' && after > 0 ? Math.ceil(after) : 1));
    }
    res.status(status).json({
      success: false,
      error: te.message,
      code: te.code,
      ...(te.details !== undefined ? { details: te.details } : {}),
    });
  };
}

/**
 * 404 ROUTE_NOT_FOUND for a method and path this server does not serve (an endpoint of the hosted
 * service only, say `/v2/agent`). The message says so, rather than looking like a wrong base URL.
 */
export function notFound(): RequestHandler {
  return (req) => {
    throw new TrawlError(
      'ROUTE_NOT_FOUND',
      `${req.method} ${req.path} is not available on this server (Trawl serves the v2 API; see GET /v2/openapi.json)`,
    );
  };
}
