import type { RequestHandler } from 'express';
import type { HttpMetrics } from '@trawl/observability';
import { TARGET_FAILURE_CODES } from '../error-status.js';
import { locals } from '../request-context.js';

/**
 * Observes each request's duration under its route template (never the raw URL: bounded labels), and
 * whether it failed because the target site did (`fault="target"`).
 */
export function httpMetrics(metrics: HttpMetrics): RequestHandler {
  return (req, res, next) => {
    const end = metrics.requestDuration.startTimer();
    res.on('finish', () => {
      const route = req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched';
      const code = locals(res).errorCode;
      end({ method: req.method, route, status: String(res.statusCode), fault: code && TARGET_FAILURE_CODES.has(code) ? 'target' : 'none' });
    });
    next();
  };
}
