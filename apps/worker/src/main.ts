import { loadConfig } from '@trawl/config';
import { createLogger } from '@trawl/observability';
import { workerConfigSchema } from './config.js';
import { startWorker } from './start-worker.js';

// Production entry point of a worker (`node apps/worker/dist/main.js`, or `trawl worker --role http`).
const config = loadConfig(workerConfigSchema, process.env);
const logger = createLogger({ role: 'worker', level: config.LOG_LEVEL });
const worker = await startWorker(config, { logger });
let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    void worker.close().then(() => process.exit(0), (err: unknown) => {
      logger.error({ err }, 'shutdown failed');
      process.exit(1);
    });
  });
}
