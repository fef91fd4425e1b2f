import { describe, expect, it } from '@jest/globals';
import { TrawlError } from '@trawl/api-schema';
import { mapFetchError } from './map-fetch-error.js';

const live = new AbortController().signal;
const withCode = (code: string, message = code): Error => Object.assign(new Error(message), { code });

describe('mapFetchError', () => {
  it.each([
    ['ENOTFOUND', 'SCRAPE_DNS_RESOLUTION_ERROR', false],
    ['EAI_AGAIN', 'SCRAPE_DNS_RESOLUTION_ERROR', true],
    ['ECONNREFUSED', 'SCRAPE_CONNECTION_REFUSED', true],
    ['ECONNRESET', 'SCRAPE_CONNECTION_REFUSED', true],
    ['UND_ERR_SOCKET', 'SCRAPE_CONNECTION_REFUSED', true],
    ['UND_ERR_CONNECT_TIMEOUT', 'SCRAPE_TIMEOUT', true],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'SCRAPE_TLS_ERROR', false],
    ['CERT_HAS_EXPIRED', 'SCRAPE_TLS_ERROR', false],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'SCRAPE_TLS_ERROR', false],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'SCRAPE_TLS_ERROR', false],
    ['EWHATEVER', 'SCRAPE_FAILED', true],
  ])('%s -> %s', (code, expected, retryable) => {
    const mapped = mapFetchError(withCode(code), live);
    expect({ code: mapped.code, retryable: mapped.retryable }).toEqual({ code: expected, retryable });
    expect(mapped.details).toMatchObject({ errorCode: code });
  });

  it('finds codes and TrawlErrors in the cause chain', () => {
    const wrapped = new Error('fetch failed', { cause: withCode('ECONNREFUSED') });
    expect(mapFetchError(wrapped, live).code).toBe('SCRAPE_CONNECTION_REFUSED');
    const blocked = new TrawlError('SCRAPE_BLOCKED_TARGET', 'no');
    expect(mapFetchError(new Error('x', { cause: blocked }), live)).toBe(blocked);
  });

  it('blames the signal once it fired, whatever was thrown', () => {
    const timeout = new AbortController();
    timeout.abort(new DOMException('deadline', 'TimeoutError'));
    expect(mapFetchError(withCode('ECONNRESET'), timeout.signal).code).toBe('SCRAPE_TIMEOUT');
    const cancel = new AbortController();
    cancel.abort();
    expect(mapFetchError(withCode('ECONNRESET'), cancel.signal).code).toBe('JOB_CANCELLED');
    const own = new AbortController();
    const reason = new TrawlError('SERVICE_UNAVAILABLE', 'shutting down', { retryable: true });
    own.abort(reason);
    expect(mapFetchError(new Error('aborted'), own.signal)).toBe(reason);
  });
});
