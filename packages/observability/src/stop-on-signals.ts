import type { Logger } from 'pino';

/**
 * Runs `stop` once on the first SIGTERM or SIGINT (or call of the returned trigger, e.g. when the
 * launching process is gone), then exits 0 (1 if stopping failed). A second signal while stopping is
 * ignored: the grace period of `stop` decides how long it takes.
 */
export function stopOnSignals(stop: () => Promise<void>, logger: Logger): (reason: string) => void {
  let stopping = false;
  const trigger = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => trigger(signal));
  return trigger;
}
