import type { RequestHandler } from 'express';
import type { HttpMetrics } from '@trawl/observability';

/** Observes each request's duration under its route template (never the raw URL: bounded labels). */
export function httpMetrics(metrics: HttpMetrics): RequestHandler {
  return (req, res, next) => {
    const end = metrics.requestDuration.startTimer();
    res.on('finish', () => {
      const route = req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched';
      end({ method: req.method, route, status: String(res.statusCode) });
    });
    next();
  };
}
