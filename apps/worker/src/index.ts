export { startWorker, type WorkerHandle, type StartWorkerOptions } from './start-worker.js';
export { workerConfigSchema, WORKER_ROLES, type WorkerConfig, type WorkerRole } from './config.js';
