import type { ScrapeRequest } from '@trawl/api-schema';
import type { HtmlPipelineResult } from '@trawl/html';
import type { CachedDocumentFacts, CachedPage } from '@trawl/queue';
import type { FetchResult, ProxyTier } from '@trawl/scrape-engine';

/** What produced a page: an engine, the documents role, or the cache (labels of `trawl_job_duration_seconds`). */
export type PageEngine = 'http' | 'browser' | 'browser-stealth' | 'document' | 'cache';

/** Document fields that point at stored binaries: `screenshot` and `actions` (the spec's order). */
export interface BinaryUrls {
  screenshot?: string;
  actions?: {
    screenshots: string[];
    scrapes: Array<{ url: string; html: string }>;
    javascriptReturns: Array<{ type: string; value: unknown }>;
    pdfs: string[];
  };
}

/**
 * A page ready to be converted: what a fetch stage, the cache or the documents role produced. The
 * convert step turns it into the formats (unless `converted` already holds them) and the Document's
 * metadata; transformers then fill the requested formats.
 */
export interface PageSource {
  engine: PageEngine;
  /** The page; for a parsed document, its generated HTML (kind `html`). */
  page: FetchResult;
  proxyUsed: ProxyTier;
  /** Cost of obtaining the page (`scrapeCredits`); transformers add theirs. */
  creditsUsed: number;
  /** Formats produced without the converter (a raw PDF, base64): conversion is skipped. */
  converted?: Partial<HtmlPipelineResult>;
  /** Overrides the request's `onlyMainContent` (a document's HTML is all content). */
  onlyMainContent?: boolean;
  /** Emulated time zone of a browser scrape. */
  timezone?: string;
  /** Signed URLs of the screenshot and action binaries. */
  binaries?: BinaryUrls;
  /** A parsed document's facts: its own title and properties, page counts, the reader's warnings. */
  file?: CachedDocumentFacts;
  /** A PDF read with `parsers[].pages`: each page's HTML (the `pages` transformer converts them). */
  pdfPages?: Array<{ pageNumber: number; html: string }>;
  /** Set on a cache hit: when the stored copy was taken, ms since epoch. */
  cachedAt?: number;
  /** The page as the cache keeps it (fresh results only; stored when the request allows). */
  cacheable?: CachedPage;
}

/** The HTML a parsed document became, as a page: converted without main-content extraction. */
export function documentHtmlSource(
  request: ScrapeRequest, input: { page: FetchResult; html: string; facts: CachedDocumentFacts },
  opts: { proxyUsed: ProxyTier; creditsUsed: number },
): PageSource {
  return {
    engine: 'document', page: { ...input.page, kind: 'html', text: input.html }, proxyUsed: opts.proxyUsed,
    creditsUsed: opts.creditsUsed, onlyMainContent: false, file: input.facts,
  };
}
