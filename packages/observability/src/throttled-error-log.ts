import type { Logger } from 'pino';

/**
 * A logger for errors that repeat while a dependency is down (one per reconnection attempt): the
 * first is logged, then at most one line per `intervalMs` carrying how many were left out. Default
 * interval 30 s.
 */
export function throttledErrorLog(
  logger: Logger,
  msg: string,
  opts: { intervalMs?: number; fields?: Record<string, unknown> } = {},
): (err: unknown) => void {
  const intervalMs = opts.intervalMs ?? 30_000;
  let last = -Infinity;
  let suppressed = 0;
  return (err) => {
    const now = Date.now();
    if (now - last < intervalMs) {
      suppressed += 1;
      return;
    }
    last = now;
    logger.error({ ...opts.fields, err, ...(suppressed > 0 ? { suppressed } : {}) }, msg);
    suppressed = 0;
  };
}
