import { parse as parseHost } from 'tldts';
import { z } from 'zod';
import { checkScrapeOptions, finalizeScrapeOptions, scrapeOptionsObjectSchema } from './scrape-options.js';

/** The `error` (and issue message) of a URL whose host is neither a public domain nor an IP. */
export const URL_HOST_MESSAGE = 'URL must have a valid top-level domain or be an IP address';

/**
 * The host of an absolute URL is an IP address, a name under a public suffix (the Public Suffix
 * List, ICANN and private sections: `example.com`, `user.github.io`; not a bare suffix like `com`),
 * a loopback name (`localhost`, `*.localhost`) or a name under another special-use TLD of RFC 6761
 * (`*.test`, `*.example`, `*.invalid`). Loopback names and addresses pass here; whether a
 * private or loopback target may be fetched is the target guard's decision
 * (`TRAWL_ALLOW_PRIVATE_TARGETS`: 403 SCRAPE_BLOCKED_TARGET when not), so the schema needs no setting.
 */
export function hasPublicOrIpHost(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase().replace(/\.$/, '');
  } catch {
    return false;
  }
  if (host === 'localhost') return true;
  // The special-use names of RFC 6761 (`*.test`, `*.example`, `*.invalid`, `*.localhost`): test
  // setups name hosts under them; `.invalid` ends in a DNS error, like any name that does not resolve.
  if (/^[^.]+(\.[^.]+)*\.(test|example|invalid|localhost)$/.test(host)) return true;
  const parsed = parseHost(host, { allowPrivateDomains: true });
  return parsed.isIp === true || (parsed.domain !== null && (parsed.isIcann === true || parsed.isPrivate === true));
}

/**
 * An absolute http(s) URL. A URL given without a scheme (`example.com/page`) gets `http://`, as
 * clients of this API expect; other schemes are rejected, and so is a host that is neither a public
 * domain nor an IP address ({@link hasPublicOrIpHost}: `not-a-valid-url`, `http://foo`).
 */
export const httpUrlSchema = z.preprocess(
  (v) => (typeof v === 'string' && v.length > 0 && !/^[a-z][a-z0-9+.-]*:/i.test(v.trim()) ? `http://${v.trim()}` : v),
  z
    .url({ protocol: /^https?$/, error: 'Must be an absolute http or https URL' })
    .max(8192)
    .refine((u) => !URL.canParse(u) || hasPublicOrIpHost(u), { error: URL_HOST_MESSAGE })
    .meta({ format: 'uri' }),
);

/** `origin` and `integration`: accepted on every POST body and recorded (the JS SDK sends `js-sdk@<version>`). */
export const clientTagFields = {
  /** Caller identification, e.g. `js-sdk@4.3.0`. */
  origin: z.string().max(256).optional(),
  /** Integration name (n8n, zapier...). */
  integration: z.string().max(256).optional(),
};

/**
 * `POST /v2/scrape` body. After parsing: every default applied, `formats`/`parsers` are objects,
 * `maxAge` is set, `zeroDataRetention` is true when `lockdown` is (lockdown runs in ZDR mode), and
 * `storeInCache` is false with actions, headers or zero data retention.
 */
export const scrapeRequestSchema = scrapeOptionsObjectSchema
  .extend({
    /** URL to scrape (http or https). */
    url: httpUrlSchema,
    /** Full zero data retention for this scrape. Default false. */
    zeroDataRetention: z.boolean().default(false),
    ...clientTagFields,
  })
  .superRefine((body, ctx) => {
    checkScrapeOptions(body, ctx);
    checkCleanContentRetention(body, ctx);
    checkChangeTrackingRetention(body, ctx);
  })
  .transform((body) => {
    const finalized = finalizeScrapeOptions(body);
    const zeroDataRetention = body.zeroDataRetention || body.lockdown;
    return { ...finalized, zeroDataRetention, storeInCache: zeroDataRetention ? false : finalized.storeInCache };
  })
  .meta({ id: 'ScrapeRequest' });

/**
 * `onlyCleanContent` sends the page to the LLM, which the spec does not allow with zero data retention
 * (or lockdown, which implies it). Every body that carries scrape options checks it.
 * @param path where the scrape options sit in the body (`['scrapeOptions']` for a crawl).
 */
export function checkCleanContentRetention(
  body: { onlyCleanContent?: boolean | undefined; zeroDataRetention?: boolean | undefined; lockdown?: boolean | undefined },
  ctx: z.RefinementCtx,
  path: Array<string | number> = [],
): void {
  if (body.onlyCleanContent === true && (body.zeroDataRetention === true || body.lockdown === true)) {
    ctx.addIssue({
      code: 'custom',
      path: [...path, 'onlyCleanContent'],
      message: 'onlyCleanContent is not supported with zero data retention (lockdown implies it): it sends the page to an LLM',
    });
  }
}

/**
 * Change tracking keeps the page's markdown to compare with next time, which zero data retention
 * (and lockdown, which implies it) forbids.
 */
export function checkChangeTrackingRetention(
  body: { formats?: ReadonlyArray<{ type: string }> | undefined; zeroDataRetention?: boolean | undefined; lockdown?: boolean | undefined },
  ctx: z.RefinementCtx,
  path: Array<string | number> = [],
): void {
  const index = body.formats?.findIndex((f) => f.type === 'changeTracking') ?? -1;
  if (index >= 0 && (body.zeroDataRetention === true || body.lockdown === true)) {
    ctx.addIssue({
      code: 'custom',
      path: [...path, 'formats', index],
      message: 'changeTracking keeps the page to compare with later scrapes, which zero data retention (and lockdown) forbids',
    });
  }
}

/** The scrape body as sent by the client. */
export type ScrapeRequestInput = z.input<typeof scrapeRequestSchema>;
/** The scrape body after parsing (defaults and derived values applied). */
export type ScrapeRequest = z.output<typeof scrapeRequestSchema>;
