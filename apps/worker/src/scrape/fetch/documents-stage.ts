import { TrawlError, type ScrapeRequest } from '@trawl/api-schema';
import { detectDocumentFormat, type ParsedDocument } from '@trawl/documents';
import { scrapeCredits, type CachedDocumentFacts, type ScrapeJob } from '@trawl/queue';
import { decodeText, detectContentKind, type FetchResult } from '@trawl/scrape-engine';
import { parserSignature } from '../../cache/cache-policy.js';
import { documentHtmlSource } from '../../convert/page-source.js';
import type { ScrapeContext, ScrapeDeps } from '../pipeline/context.js';
import { rawPdfSource } from './document-takeover.js';
import type { FetchStage, StageOutcome } from './fetch-stage.js';

const MIME_OF_FORMAT: Record<ParsedDocument['format'], string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  odp: 'application/vnd.oasis.opendocument.presentation',
  rtf: 'application/rtf',
  csv: 'text/csv',
  image: 'application/octet-stream',
};

/** The last path segment of a URL, decoded: the file name a download would get. */
function fileNameOf(url: string): string | undefined {
  try {
    const name = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
    return name || undefined;
  } catch {
    return undefined;
  }
}

type DocumentsStageDeps = Pick<ScrapeDeps, 'http' | 'documents' | 'documentBodies' | 'maxResponseBytes' | 'maxResultBytes' | 'metrics'> & { now: () => number };

/**
 * The fetch stage of the `documents` queue: the file parked by the stage that handed it over (or
 * uploaded) is parsed on a thread into semantic HTML, converted like a page (so every format means
 * what it means for a page) without main-content extraction, billed 1 credit per PDF page. It
 * fetches only when the parked bytes expired.
 */
export class DocumentsStage implements FetchStage {
  constructor(private readonly deps: DocumentsStageDeps) {}

  async fetch(ctx: ScrapeContext): Promise<StageOutcome> {
    const { job, request } = ctx;
    const parser = this.deps.documents;
    if (!parser) throw new TrawlError('SCRAPE_FAILED', 'a documents job reached a process without the documents role');
    const facts = job.document;
    if (!facts) throw new TrawlError('SCRAPE_FAILED', 'a documents job without its file facts');
    const { signal } = ctx.signals.next();
    const bytes = await this.bytesOf(job, request, signal);
    const proxyUsed = facts.proxyUsed ?? 'basic';
    const url = facts.url ?? request.url;
    const input = {
      bytes,
      ...(facts.mimeType ? { mimeType: facts.mimeType } : {}),
      ...(facts.filename ?? fileNameOf(url) ? { filename: facts.filename ?? fileNameOf(url) } : {}),
    };
    const format = detectDocumentFormat(input);
    const page: FetchResult = {
      requestedUrl: request.url, url, statusCode: facts.statusCode ?? 200, headers: {}, redirects: [],
      contentType: facts.mimeType ?? 'application/octet-stream', kind: 'binary', timings: { ttfbMs: 0, totalMs: 0 },
    };
    if (format === undefined) {
      // An upload that is a page after all (HTML, text, JSON): the page pipeline, as a scrape would.
      const detected = detectContentKind({ ...(facts.mimeType ? { mimeType: facts.mimeType } : {}), bytes });
      // Decoded as a browser would (BOM, <meta charset>, XML declaration), as fetched pages are.
      const { text, charset } = decodeText({ bytes, kind: detected.kind });
      const textual: FetchResult = { ...page, kind: detected.kind, contentType: detected.mimeType, text, charset: charset.encoding };
      return { kind: 'page', source: { engine: 'document', page: textual, proxyUsed, creditsUsed: scrapeCredits({ proxyUsed }) } };
    }
    if (format === 'pdf' && request.parsers.length === 0) {
      return { kind: 'page', source: rawPdfSource(request, { ...page, contentType: 'application/pdf' }, bytes, proxyUsed) };
    }
    const pdfParser = request.parsers[0];
    let parsed: ParsedDocument;
    try {
      parsed = await parser.parse({
        input,
        pdfMode: pdfParser?.mode ?? 'auto',
        ...(pdfParser?.maxPages !== undefined ? { maxPages: pdfParser.maxPages } : {}),
        ...(pdfParser?.pages === true ? { perPage: true } : {}),
        deadline: job.deadline,
      }, signal);
    } catch (err) {
      this.deps.metrics.documentsParsed.inc({ format: format === 'legacy-office' ? 'legacy' : format, outcome: TrawlError.from(err).code });
      throw err;
    }
    // Checked before the HTML pipeline copies it into markdown and html formats.
    if (parsed.html.length > this.deps.maxResultBytes) {
      throw new TrawlError('RESULT_TOO_LARGE', `The parsed document is larger than the ${this.deps.maxResultBytes} bytes this server stores`, {
        details: { limitBytes: this.deps.maxResultBytes },
      });
    }
    this.deps.metrics.documentsParsed.inc({ format: parsed.format, outcome: 'success' });
    this.deps.metrics.documentPages.inc({ format: parsed.format, method: 'text' }, parsed.numPages - parsed.ocrPages);
    if (parsed.ocrPages > 0) this.deps.metrics.documentPages.inc({ format: parsed.format, method: 'ocr' }, parsed.ocrPages);
    const read: CachedDocumentFacts = {
      format: parsed.format, parser: parserSignature(request), numPages: parsed.numPages,
      ...(parsed.totalPages !== undefined ? { totalPages: parsed.totalPages } : {}),
      metadata: parsed.metadata, ...(parsed.title ? { title: parsed.title } : {}), warnings: parsed.warnings,
    };
    const contentType = facts.mimeType && facts.mimeType !== 'application/octet-stream' ? facts.mimeType : MIME_OF_FORMAT[parsed.format];
    const source = documentHtmlSource(request, { page: { ...page, contentType }, html: parsed.html, facts: read }, {
      proxyUsed, creditsUsed: scrapeCredits({ proxyUsed, ...(read.format === 'pdf' ? { pdfPages: read.numPages } : {}) }),
    });
    // The cache keeps the whole document's HTML only: a read with pages is not stored (its signature never matches).
    if (parsed.pages !== undefined) return { kind: 'page', source: { ...source, pdfPages: parsed.pages } };
    return {
      kind: 'page',
      source: {
        ...source,
        cacheable: {
          kind: 'document', url, statusCode: page.statusCode, contentType, contentKind: 'html', cachedAt: this.deps.now(), engine: 'document',
          proxyUsed, body: parsed.html, document: read,
        },
      },
    };
  }

  /** The parked bytes; a download whose bytes expired is fetched again, an upload cannot be. */
  private async bytesOf(job: ScrapeJob, request: ScrapeRequest, signal: AbortSignal): Promise<Buffer> {
    const stored = await this.deps.documentBodies.get(job.jobId);
    if (stored) return stored;
    if (job.document?.source === 'upload') {
      throw new TrawlError('SCRAPE_FAILED', 'The uploaded file is no longer available; upload it again');
    }
    const page = await this.deps.http.fetch({
      url: request.url, headers: request.headers ?? {}, skipTlsVerification: request.skipTlsVerification, signal,
      maxBytes: this.deps.maxResponseBytes,
    });
    return page.body ?? Buffer.from(page.text ?? '', 'utf8');
  }
}
