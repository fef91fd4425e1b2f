import type { Request, Response } from 'express';
import type { TrawlError } from '@trawl/api-schema';
import { errorHandler } from './error-handler.js';

const answerError = errorHandler();

/**
 * Answers the request with `error()` at `at` (a `Date.now()` time) unless it has been answered by
 * then: a sync request's time bound that holds whatever its handler still waits for (a Redis that
 * restarts under its rate limit or admission, say), rendered as every error is. A handler answering
 * later must see `res.headersSent` and write nothing (the scrape routes check it after each wait).
 */
export function answerErrorAt(req: Request, res: Response, at: number, error: () => TrawlError): void {
  const timer = setTimeout(() => {
    if (!res.headersSent) answerError(error(), req, res, () => undefined);
  }, Math.max(0, at - Date.now()));
  res.once('close', () => clearTimeout(timer));
}
