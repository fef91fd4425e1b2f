export { createLogger, REDACT_PATHS, type Logger, type CreateLoggerOptions } from './logger.js';
export { createMetricsRegistry, createHttpMetrics, Registry, Histogram, Counter, Gauge, type HttpMetrics } from './metrics.js';
export { stopOnSignals } from './stop-on-signals.js';
export { throttledErrorLog } from './throttled-error-log.js';
export { registerClusterMetrics, type ClusterSnapshot } from './cluster-metrics.js';
