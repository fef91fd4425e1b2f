/**
 * A sitemap body is larger than allowed once decompressed (a decompression bomb, or simply too big).
 * Not retryable: the same URL will be as large next time; the crawl skips that sitemap.
 */
export class SitemapTooLargeError extends Error {
  /** The limit that was exceeded, in bytes. */
  readonly maxBytes: number;

  constructor(maxBytes: number, opts: { cause?: unknown } = {}) {
    super(`Sitemap is larger than ${maxBytes} bytes`, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'SitemapTooLargeError';
    this.maxBytes = maxBytes;
  }
}
