export { startApi, type ApiHandle } from './start-api.js';
export { apiConfigSchema, type ApiConfig } from './config.js';
export { createApp, type AppDeps } from './app.js';
export { ERROR_STATUS } from './error-status.js';
