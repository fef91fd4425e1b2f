import { loadConfig } from '@trawl/config';
import { createLogger } from '@trawl/observability';
import { apiConfigSchema } from './config.js';
import { startApi } from './start-api.js';

// Production entry point of the gateway (`node apps/api/dist/main.js`, or `trawl api`).
const config = loadConfig(apiConfigSchema, process.env);
const logger = createLogger({ role: 'api', level: config.LOG_LEVEL });
const api = await startApi(config, { logger });
let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    void api.close().then(() => process.exit(0), (err: unknown) => {
      logger.error({ err }, 'shutdown failed');
      process.exit(1);
    });
  });
}
