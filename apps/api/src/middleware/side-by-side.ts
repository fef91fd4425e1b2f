import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** Runs `handler` to its `next`: resolves with the error it passed on (or threw, or rejected with), else null. */
function settle(handler: RequestHandler, req: Request, res: Response): Promise<unknown> {
  return new Promise<unknown>((resolve) => {
    const next: NextFunction = (err?: unknown) => resolve(err === undefined || err === 'route' || err === 'router' ? null : err);
    try {
      const ran = handler(req, res, next) as unknown;
      if (ran instanceof Promise) ran.then(undefined, (err: unknown) => resolve(err ?? new Error('handler rejected')));
    } catch (err) {
      resolve(err);
    }
  });
}

/**
 * `first` and `second` at the same time, then the next handler; an error of `first` is the one
 * answered, at once and whatever `second` finds (as when they run one after the other, `first`
 * first): the request is answered then, and `second` should stop what it can (`res.headersSent`:
 * see `jsonBody`, and {@link chain}, which runs no further handler). For
 * handlers that do not depend on each other, such as the authentication and rate limit of a request
 * (a Redis round trip) and the reading and checking of its body (CPU): the second runs while the
 * first waits. Where `together(req, res)` is false they run one after the other, `second` only when
 * `first` let the request through.
 */
export function sideBySide(first: RequestHandler, second: RequestHandler, together: (req: Request, res: Response) => boolean): RequestHandler {
  return async (req, res, next) => {
    if (!together(req, res)) {
      const err = await settle(first, req, res);
      return next(err ?? (await settle(second, req, res)) ?? undefined);
    }
    const firstDone = settle(first, req, res);
    const secondDone = settle(second, req, res);
    // A refusal is answered at once, without waiting for the second (a body still arriving, say).
    const err = await firstDone;
    next(err ?? (await secondDone) ?? undefined);
  };
}

/**
 * `handlers` one after the other, as one handler: the first error ends the chain, and so does an
 * answer already sent (a refusal answered while this chain ran beside it: see {@link sideBySide}).
 */
export function chain(...handlers: RequestHandler[]): RequestHandler {
  return async (req, res, next) => {
    for (const handler of handlers) {
      if (res.headersSent) return next();
      const err = await settle(handler, req, res);
      if (err !== null) return next(err);
    }
    next();
  };
}
