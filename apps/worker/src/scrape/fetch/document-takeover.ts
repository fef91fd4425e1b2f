import { TrawlError, type ScrapeRequest } from '@trawl/api-schema';
import { detectDocumentFormat } from '@trawl/documents';
import { scrapeCredits } from '@trawl/queue';
import type { FetchResult, ProxyTier } from '@trawl/scrape-engine';
import type { PageSource } from '../../convert/page-source.js';
import type { StageOutcome } from './fetch-stage.js';

const CSV_TYPES = new Set(['text/csv', 'application/csv', 'text/tab-separated-values', 'text/x-csv']);

/** Whether a fetched response is a document; CSV is one (it becomes a table). */
export function isDocument(page: FetchResult): boolean {
  if (page.kind === 'pdf' || page.kind === 'document') return true;
  if (page.kind === 'text' && CSV_TYPES.has(page.contentType)) return true;
  return page.kind === 'binary' && page.body !== undefined && detectDocumentFormat({ bytes: page.body, mimeType: page.contentType }) === 'image';
}

/**
 * Right after a fetch on the http and browser roles: a PDF, office file, CSV or image is handed to
 * the `documents` queue (its bytes parked for the documents role); a PDF with `parsers: []` is
 * answered at once; a page returns undefined.
 * @throws TrawlError SCRAPE_UNSUPPORTED_CONTENT when document parsing is off
 */
export function documentTakeOver(request: ScrapeRequest, page: FetchResult, proxyUsed: ProxyTier, documentParsing: boolean): StageOutcome | undefined {
  if (!isDocument(page)) return undefined;
  const bytes = page.body ?? Buffer.from(page.text ?? '', 'utf8');
  if (page.kind === 'pdf' && request.parsers.length === 0) return { kind: 'page', source: rawPdfSource(request, page, bytes, proxyUsed) };
  if (!documentParsing) {
    throw new TrawlError('SCRAPE_UNSUPPORTED_CONTENT', `The target is a document (${page.contentType}); document parsing is turned off on this server`, {
      details: { contentType: page.contentType },
    });
  }
  return {
    kind: 'handoff',
    handoff: {
      queue: 'documents', reason: 'document', bytes,
      facts: {
        source: 'fetch', url: page.url, statusCode: page.statusCode, proxyUsed,
        ...(page.contentType.length <= 256 ? { mimeType: page.contentType } : {}),
      },
    },
  };
}

/** `parsers: []`: the PDF itself, base64-encoded in `markdown` and `html`, for a flat credit. */
export function rawPdfSource(request: ScrapeRequest, page: FetchResult, bytes: Uint8Array, proxyUsed: ProxyTier): PageSource {
  const base64 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  const has = (t: string) => request.formats.some((f) => f.type === t);
  return {
    engine: 'document', page, proxyUsed, creditsUsed: scrapeCredits({ proxyUsed, pdfPages: 0, rawDocument: true }),
    converted: { ...(has('markdown') ? { markdown: base64 } : {}), ...(has('html') ? { html: base64 } : {}) },
  };
}
