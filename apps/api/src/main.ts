import { loadConfig } from '@trawl/config';
import { createLogger, stopOnSignals } from '@trawl/observability';
import { apiConfigSchema } from './config.js';
import { startApi } from './start-api.js';

// Production entry point of the gateway (`node apps/api/dist/main.js`, or `trawl api`).
const config = loadConfig(apiConfigSchema, process.env);
const logger = createLogger({ role: 'api', level: config.LOG_LEVEL });
const api = await startApi(config, { logger });
stopOnSignals(() => api.close(), logger);
