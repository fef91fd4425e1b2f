import { loadConfig } from '@trawl/config';
import { createLogger, stopOnSignals } from '@trawl/observability';
import { workerConfigSchema } from './config.js';
import { startWorker } from './start-worker.js';

// Production entry point of a worker (`node apps/worker/dist/main.js`, or `trawl worker --role http`).
const config = loadConfig(workerConfigSchema, process.env);
const logger = createLogger({ role: 'worker', level: config.LOG_LEVEL });
const worker = await startWorker(config, { logger });
stopOnSignals(() => worker.close(), logger);
