import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from '@trawl/observability';
import { hopTimingOn, recordHop } from '@trawl/queue';

const SAFE_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** Gives every request an id (a caller's safe `X-Request-Id` is kept), echoed in the response and logs. */
export function requestId(root: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    const reqId = incoming && SAFE_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', reqId);
    res.locals.reqId = reqId;
    res.locals.receivedAt = Date.now();
    res.locals.log = root.child({ reqId });
    if (hopTimingOn()) {
      // Hop timing (benchmarks): the whole request inside the gateway, from here to the last byte handed to the socket.
      const t0 = performance.now();
      res.locals.hopT0 = t0;
      res.on('finish', () => recordHop('gateway:total', performance.now() - t0));
    }
    next();
  };
}
