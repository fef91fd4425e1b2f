import type { Logger } from 'pino';

/**
 * Runs `stop` once on the first SIGTERM or SIGINT, then exits 0 (1 if stopping failed). A second
 * signal while stopping is ignored: the grace period of `stop` decides how long it takes.
 */
export function stopOnSignals(stop: () => Promise<void>, logger: Logger): void {
  let stopping = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
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
    });
  }
}
