import { describe, expect, it } from '@jest/globals';
import { ERROR_CODE_LIST } from './error-codes.js';
import { ERROR_RETRY, retryClassOf } from './error-retry.js';
import { TrawlError } from './trawl-error.js';

describe('ERROR_RETRY', () => {
  it('gives every code a class', () => {
    expect(Object.keys(ERROR_RETRY).sort()).toEqual([...ERROR_CODE_LIST].sort());
  });

  it('retries transient faults with backoff, delays rate limits, and never retries what would fail again', () => {
    expect(retryClassOf('SCRAPE_CONNECTION_REFUSED')).toBe('backoff');
    expect(retryClassOf('SCRAPE_BROWSER_CRASHED')).toBe('backoff');
    expect(retryClassOf('SCRAPE_PROXY_ERROR')).toBe('backoff');
    expect(retryClassOf('BLOB_STORE_FAILED')).toBe('backoff');
    expect(retryClassOf('SERVICE_UNAVAILABLE')).toBe('backoff');
    expect(retryClassOf('RATE_LIMITED')).toBe('delay');
    expect(retryClassOf('CONCURRENCY_BACKLOG_FULL')).toBe('delay');
    for (const code of ['BAD_REQUEST', 'SCRAPE_BLOCKED_TARGET', 'SCRAPE_TLS_ERROR', 'SCRAPE_PAGE_CRASHED', 'DOCUMENT_CORRUPT',
      'SCRAPE_TIMEOUT', 'SCRAPE_DNS_RESOLUTION_ERROR', 'JOB_CANCELLED', 'UNKNOWN_ERROR', 'SCRAPE_FAILED'] as const) {
      expect([code, retryClassOf(code)]).toEqual([code, 'never']);
    }
  });

  it('is the default of TrawlError.retryable; a site may still say otherwise for its cause', () => {
    expect(new TrawlError('SERVICE_UNAVAILABLE', 'shutting down').retryable).toBe(true);
    expect(new TrawlError('BLOB_STORE_FAILED', 'disk').retryable).toBe(true);
    expect(new TrawlError('SCRAPE_BLOCKED_TARGET', 'private').retryable).toBe(false);
    expect(TrawlError.from(new Error('boom')).retryable).toBe(false);
    const eaiAgain = new TrawlError('SCRAPE_DNS_RESOLUTION_ERROR', 'try again', { retryable: true });
    expect(retryClassOf(eaiAgain)).toBe('backoff');
    expect(retryClassOf(new TrawlError('SCRAPE_PROXY_ERROR', '407', { retryable: false }))).toBe('never');
    expect(retryClassOf(new TrawlError('RATE_LIMITED', 'slow down'))).toBe('delay');
    // Data from the queue keeps the producer's decision.
    expect(TrawlError.fromData({ code: 'SERVICE_UNAVAILABLE', message: 'x', retryable: false }).retryable).toBe(false);
  });
});
