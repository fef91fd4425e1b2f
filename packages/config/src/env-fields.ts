import { z } from 'zod';

/**
 * A boolean read from the environment. "false", "0", "no", "off" and "" are false; "true", "1", "yes",
 * "on" are true. Anything else is a configuration error (never silently true, as `Boolean("false")` is).
 */
export function envBoolean(defaultValue: boolean) {
  return z
    .string()
    .trim()
    .toLowerCase()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return defaultValue;
      if (['true', '1', 'yes', 'on'].includes(value)) return true;
      if (['false', '0', 'no', 'off'].includes(value)) return false;
      ctx.addIssue({ code: 'custom', message: `expected true or false, got "${value}"` });
      return z.NEVER;
    });
}

/** A non-negative integer read from the environment (ports, counts, durations in the unit the name says). */
export function envInt(defaultValue: number, opts: { min?: number; max?: number } = {}) {
  let n = z.coerce.number().int();
  if (opts.min !== undefined) n = n.min(opts.min);
  if (opts.max !== undefined) n = n.max(opts.max);
  return z.preprocess((v) => (v === undefined || v === '' ? defaultValue : v), n);
}

/** An optional string: an empty value counts as unset. */
export function envOptionalString() {
  return z.preprocess((v) => (v === '' ? undefined : v), z.string().optional());
}

/** A comma-separated list; empty means an empty list. */
export function envList() {
  return z
    .string()
    .optional()
    .transform((v) => (v ?? '').split(',').map((s) => s.trim()).filter((s) => s.length > 0));
}

/** An http(s) URL without a trailing slash, or undefined. */
export function envBaseUrl() {
  return z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .url({ protocol: /^https?$/ })
      .transform((v) => v.replace(/\/+$/, ''))
      .optional(),
  );
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Environment shared by every process: logging and the Redis connection. */
export const commonEnv = {
  /** pino level. Default `info`. */
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  /**
   * Redis for queues, teams and results (`redis://` or `rediss://`), or a Redis Cluster:
   * `redis+cluster://[user:password@]host:port,host:port` (`rediss+cluster://` for TLS; seed nodes, the
   * rest are discovered). Unset in embedded mode.
   */
  REDIS_URL: envOptionalString(),
  /** Sentinel endpoints `host:port,host:port`; with `REDIS_SENTINEL_NAME` replaces `REDIS_URL`. */
  REDIS_SENTINELS: envList(),
  /** Name of the Sentinel-monitored master. Default `mymaster`. */
  REDIS_SENTINEL_NAME: z.string().default('mymaster'),
  /** Prefix of every Redis key this deployment writes. Default `trawl`. */
  TRAWL_REDIS_PREFIX: z.string().regex(/^[A-Za-z0-9_-]+$/).default('trawl'),
  /** Refuse no target address: allow loopback, private, link-local and metadata targets. Default false. */
  TRAWL_ALLOW_PRIVATE_TARGETS: envBoolean(false),
};
