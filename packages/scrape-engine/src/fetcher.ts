import type { ProxyEndpoint } from './proxy/proxy-pool.js';

/**
 * What an engine produced, by family: textual kinds carry `text`, the others carry `body`.
 * `pdf` and `document` (Word, Excel, PowerPoint, OpenDocument, RTF) go to the document pipeline.
 */
export type ContentKind = 'html' | 'xhtml' | 'text' | 'json' | 'xml' | 'pdf' | 'document' | 'binary';

/** One fetch of one URL, as every engine receives it. */
export interface FetchRequest {
  /** Absolute http(s) URL requested by the client. Other schemes fail with SCRAPE_INVALID_URL. */
  url: string;
  /** Extra request headers (any case). Cookie and Authorization are only resent on same-site redirects. */
  headers?: Readonly<Record<string, string>>;
  /** Accept invalid, expired or self-signed TLS certificates. Default false. */
  skipTlsVerification?: boolean;
  /**
   * The job's deadline and cancellation. The fetch aborts promptly when it fires: a `TimeoutError`
   * reason gives SCRAPE_TIMEOUT, a TrawlError reason is rethrown, any other reason gives JOB_CANCELLED.
   */
  signal: AbortSignal;
  /** Cap on the response body after decompression, in bytes; exceeding it fails with SCRAPE_TOO_LARGE. */
  maxBytes: number;
  /** User-Agent to send unless `headers` has one. Default: the engine's default (a desktop Chrome). */
  userAgent?: string;
  /** Accept-Language to send unless `headers` has one. Default `en-US,en;q=0.9`. */
  acceptLanguage?: string;
  /**
   * Upstream forward proxy to fetch through (see `ProxyPools.pick`); absent means a direct connection.
   * The target guard still checks the target's resolved addresses before anything is sent; proxy
   * failures (refused, 407, 5xx on CONNECT) end with SCRAPE_PROXY_ERROR.
   */
  proxy?: ProxyEndpoint;
}

/** Durations of one fetch, in milliseconds since the fetch started. */
export interface FetchTimings {
  /** Time spent resolving the host name, when the engine can tell (absent on reused connections). */
  dnsMs?: number;
  /** Time until the final response's headers arrived (redirect hops included). */
  ttfbMs: number;
  /** Time until the body was fully read and decoded. */
  totalMs: number;
}

/** The outcome of a fetch that got an answer. A 4xx or 5xx page is a result, not an error. */
export interface FetchResult {
  /** The URL as requested (`sourceURL` in the API). */
  requestedUrl: string;
  /** The URL after redirects (`metadata.url` in the API). */
  url: string;
  /** HTTP status of the final response. */
  statusCode: number;
  /** Final response headers, names lower-cased; repeated headers joined with `, ` (set-cookie with `\n`). */
  headers: Record<string, string>;
  /** MIME type without parameters, lower-cased: as declared, or as sniffed when the server sent none. */
  contentType: string;
  /** WHATWG name of the encoding used to decode `text` (e.g. `shift_jis`); absent for binary kinds. */
  charset?: string;
  kind: ContentKind;
  /**
   * Decoded body for html, xhtml, text, json and xml. The HTTP engine decodes a valid UTF-8 body when
   * this is first read (see `undecodedUtf8`, for whoever can use the bytes instead).
   */
  text?: string;
  /**
   * `text` encoded as UTF-8, when those are the body's own bytes (a valid UTF-8 body, without its
   * BOM): kept so that the page cache does not encode a large page again (about 0.3-0.4 ms of the
   * event loop for a 300 KB article). Never serialized; the scrape pipeline drops it once the page
   * cache has copied it (CacheStep.prepare).
   */
  utf8?: Buffer | undefined;
  /** Raw (decompressed) body for pdf, document and binary. */
  body?: Buffer;
  /** Every URL redirected to, in order (the final URL last); empty without redirects. */
  redirects: string[];
  timings: FetchTimings;
}

/** An engine: http now, browser and documents later. Implementations throw TrawlError on failure. */
export interface Fetcher {
  /** Short stable name for logs and metric labels (`http`, `browser`). */
  readonly name: string;
  fetch(req: FetchRequest): Promise<FetchResult>;
}
