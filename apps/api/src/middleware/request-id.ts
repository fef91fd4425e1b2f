import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from '@trawl/observability';

const SAFE_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** Gives every request an id (a caller's safe `X-Request-Id` is kept), echoed in the response and logs. */
export function requestId(root: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    const reqId = incoming && SAFE_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', reqId);
    res.locals.reqId = reqId;
    res.locals.log = root.child({ reqId });
    next();
  };
}
