import { redactUrl } from '@trawl/api-schema';
import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger } from 'pino';

/** Options of the one root logger a process creates in its `main.ts`. */
export interface CreateLoggerOptions {
  /** pino level. Default `info`. */
  level?: string;
  /** Process role (`api`, `worker`, `cli`), a field on every line. */
  role: string;
  /** Where lines go; default stdout. Tests pass a stream to read lines back. */
  destination?: NodeJS.WritableStream;
}

/** Fields holding target URLs: logged with the password of their userinfo removed ({@link redactUrl}). */
const URL_FIELDS = ['url', 'sourceURL', 'seedUrl', 'finalUrl', 'requestedUrl'];
const URL_FIELD_SET = new Set(URL_FIELDS);

/**
 * Paths never written to logs: credentials, cookies and page content. Jobs of zero-data-retention
 * requests additionally log no URL (their child loggers are built with `redactJobLogger`).
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.Authorization',
  'headers.cookie',
  'headers.Cookie',
  '*.apiKey',
  '*.key',
  'key',
  'apiKey',
  'markdown',
  'html',
  'rawHtml',
  '*.markdown',
  '*.html',
  '*.rawHtml',
  ...URL_FIELDS.flatMap((f) => [f, `*.${f}`]),
];

/** `[redacted]`, except for URL fields, which keep everything but a password (a backstop: callers redact too). */
function censor(value: unknown, path: string[]): unknown {
  if (URL_FIELD_SET.has(path[path.length - 1] ?? '')) return typeof value === 'string' ? redactUrl(value) : value;
  return '[redacted]';
}

/** The root logger: JSON lines, constant messages, data in camelCase fields. */
export function createLogger(opts: CreateLoggerOptions): Logger {
  const options: LoggerOptions = {
    level: opts.level ?? 'info',
    base: { role: opts.role, pid: process.pid },
    redact: { paths: REDACT_PATHS, censor },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
  return opts.destination ? pino(options, opts.destination) : pino(options);
}
