import { TrawlError } from '@trawl/api-schema';

/** Failures to reach the proxy itself: through a proxy, the only socket opened is the one to the proxy. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_NODATA', 'EAI_FAIL', 'EHOSTUNREACH', 'ENETUNREACH',
  'EHOSTDOWN', 'ENETDOWN', 'ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT',
]);
/** undici's messages for a refused CONNECT and for a 407 to an absolute-form request (its errors carry no status). */
const TUNNEL_STATUS = /Proxy response \((\d{3})\) !== 200 when HTTP Tunneling/;
const AUTH_REQUIRED = /Proxy Authentication Required \(407\)/;

function chain(err: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e: unknown = err; e !== undefined && e !== null && out.length < 8; ) {
    out.push(e);
    e = e instanceof Error ? e.cause : undefined;
  }
  return out;
}

/** SCRAPE_PROXY_ERROR for a status the proxy answered instead of forwarding (407, 5xx on CONNECT...). */
export function proxyStatusError(status: number, cause?: unknown): TrawlError {
  const message = status === 407
    ? 'The upstream proxy refused the credentials (407).'
    : `The upstream proxy answered ${status} instead of connecting to the target.`;
  return new TrawlError('SCRAPE_PROXY_ERROR', message, {
    // A 5xx or 429 is the proxy's trouble of the moment; 407 and 403 are configuration and do not heal.
    retryable: status >= 500 || status === 429,
    details: { proxyStatus: status },
    cause,
  });
}

/**
 * The SCRAPE_PROXY_ERROR a failure of a proxied request stands for, or undefined when the failure is
 * not the proxy's (TLS with the target, a reset mid-response, a TrawlError of the guard): the caller
 * maps those as usual. Proxy addresses never appear in `details` (they are returned to clients).
 */
export function mapProxyError(err: unknown): TrawlError | undefined {
  const errors = chain(err);
  if (errors.some((e) => e instanceof TrawlError)) return undefined;
  for (const e of errors) {
    const message = e instanceof Error ? e.message : '';
    const status = TUNNEL_STATUS.exec(message)?.[1];
    if (status !== undefined) return proxyStatusError(Number(status), err);
    if (AUTH_REQUIRED.test(message)) return proxyStatusError(407, err);
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) {
      return new TrawlError('SCRAPE_PROXY_ERROR', 'The upstream proxy could not be reached.', {
        retryable: true,
        details: { errorCode: code },
        cause: err,
      });
    }
  }
  return undefined;
}
