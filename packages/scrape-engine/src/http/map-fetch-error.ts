import { TrawlError } from '@trawl/api-schema';

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_NODATA', 'EAI_FAIL']);
const CONNECTION_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN',
  'UND_ERR_SOCKET', 'UND_ERR_CLOSED',
]);
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const TLS_CODE = /^(?:ERR_TLS_|ERR_SSL_|EPROTO$|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|UNABLE_TO_|ERR_OSSL_)/;

/** The errors of a cause chain, outermost first (bounded: causes can loop). */
function causeChain(err: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e: unknown = err; e !== undefined && e !== null && chain.length < 8; ) {
    chain.push(e);
    e = e instanceof Error ? e.cause : undefined;
  }
  return chain;
}

function codeOf(err: unknown): string | undefined {
  for (const e of causeChain(err)) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/** Why the caller's signal fired, as the error the fetch should end with. */
export function abortError(signal: AbortSignal): TrawlError {
  const reason: unknown = signal.reason;
  if (reason instanceof TrawlError) return reason;
  // Duck-typed: AbortSignal.timeout() reasons are DOMExceptions, possibly from another realm.
  if ((reason as { name?: unknown } | null)?.name === 'TimeoutError') {
    return new TrawlError('SCRAPE_TIMEOUT', 'The scrape did not finish within its timeout.', { cause: reason });
  }
  return new TrawlError('JOB_CANCELLED', 'The scrape was aborted.', { cause: reason });
}

/**
 * Maps whatever a fetch threw to a TrawlError. The signal is checked first: once it fired, every
 * error (socket destroyed, stream aborted) is a consequence of it.
 */
export function mapFetchError(err: unknown, signal: AbortSignal): TrawlError {
  if (signal.aborted) return abortError(signal);
  const known = causeChain(err).find((e): e is TrawlError => e instanceof TrawlError);
  if (known !== undefined) return known;
  const code = codeOf(err);
  const message = err instanceof Error ? err.message : String(err);
  const details = { errorCode: code ?? null };
  if (code !== undefined && DNS_CODES.has(code)) {
    return new TrawlError('SCRAPE_DNS_RESOLUTION_ERROR', 'The target host name could not be resolved.', {
      retryable: code === 'EAI_AGAIN', details, cause: err,
    });
  }
  if (code !== undefined && CONNECTION_CODES.has(code)) {
    return new TrawlError('SCRAPE_CONNECTION_REFUSED', 'The target refused or reset the connection.', {
      retryable: true, details, cause: err,
    });
  }
  if (code !== undefined && TIMEOUT_CODES.has(code)) {
    return new TrawlError('SCRAPE_TIMEOUT', 'The target did not answer in time.', { retryable: true, details, cause: err });
  }
  if ((code !== undefined && TLS_CODE.test(code)) || /\b(?:ssl|tls|certificate)\b/i.test(message)) {
    return new TrawlError('SCRAPE_TLS_ERROR', 'The TLS handshake with the target failed.', {
      details: { ...details, reason: message }, cause: err,
    });
  }
  return new TrawlError('SCRAPE_FAILED', 'The request to the target failed.', {
    retryable: true, details: { ...details, reason: message }, cause: err,
  });
}
