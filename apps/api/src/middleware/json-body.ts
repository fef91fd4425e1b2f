import { json, type RequestHandler } from 'express';
import { hopTimingOn, recordHop } from '@trawl/queue';

/** Default deepest nesting of a JSON request body (objects and arrays). */
export const DEFAULT_MAX_JSON_DEPTH = 64;

/** Thrown from the body parser's `verify`; the error handler answers 400 BAD_REQUEST. */
class JsonTooDeepError extends Error {
  readonly type = 'entity.too.deep';
  constructor(readonly maxDepth: number) {
    super(`JSON body nested deeper than ${maxDepth} levels`);
  }
}

/**
 * Largest nesting of `[`/`{` outside strings in JSON text: one pass over the bytes, no parse. JSON
 * text that is not valid is left to the parser to refuse.
 */
export function jsonTextDepthExceeds(buf: Uint8Array, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped byte
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** Thrown from `verify` for a request answered while its body arrived: nothing reads the error. */
class BodyNotNeededError extends Error {
  readonly type = 'entity.not.needed';
}

/**
 * The JSON body parser of every route: at most `maxBodyBytes` (413) and `maxJsonDepth` levels of
 * nesting (400), checked on the decoded bytes before parsing, so no later step (schemas,
 * serialisation into jobs) ever walks a value thousands of levels deep. The body of a request
 * answered while it arrived (refused beside it: `sideBySide`) is read but neither scanned nor parsed.
 */
export function jsonBody(opts: { maxBodyBytes: number; maxJsonDepth?: number | undefined }): RequestHandler {
  const maxDepth = opts.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
  const parse = json({
    limit: opts.maxBodyBytes,
    verify: (_req, res, buf) => {
      if (res.headersSent) throw new BodyNotNeededError('the request was answered before its body arrived');
      if (jsonTextDepthExceeds(buf, maxDepth)) throw new JsonTooDeepError(maxDepth);
    },
  });
  return (req, res, next) => {
    if (!hopTimingOn()) return parse(req, res, next);
    const t0 = performance.now();
    parse(req, res, (err?: unknown) => {
      recordHop('gateway:json-body', performance.now() - t0);
      next(err);
    });
  };
}
