import { TrawlError, type ScrapeRequest } from '@trawl/api-schema';
import { scrapeCredits, type CachedDocumentFacts, type DocumentBodyStore, type JobDispatcher, type ScrapeJob } from '@trawl/queue';
import { detectDocumentFormat, type ParsedDocument } from '@trawl/documents';
import { decodeText, detectContentKind, type Fetcher, type FetchResult, type ProxyTier } from '@trawl/scrape-engine';
import type { HtmlConverter } from '../html-converter.js';
import type { WorkerMetrics } from '../worker-metrics.js';
import { buildDocument, convertPage } from '../scrape/build-document.js';
import type { RunResult } from '../scrape/run-result.js';
import { parserSignature } from '../cache/cache-policy.js';
import type { DocumentParser } from './document-parser.js';

/** What the document side of scraping needs from the processor's dependencies. */
export interface DocumentRunnerDeps {
  http: Fetcher;
  documents?: DocumentParser;
  documentBodies: DocumentBodyStore;
  documentParsing: boolean;
  converter: HtmlConverter;
  dispatcher: DispatcherLike;
  maxResponseBytes: number;
  /** Largest Document stored, bytes: parsed text longer than it fails at once with RESULT_TOO_LARGE. */
  maxResultBytes: number;
  metrics: Pick<WorkerMetrics, 'documentPages' | 'documentsParsed'>;
  now?: () => number;
}
type DispatcherLike = Pick<JobDispatcher, 'handoff'>;

const CSV_TYPES = new Set(['text/csv', 'application/csv', 'text/tab-separated-values', 'text/x-csv']);
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

/**
 * The document side of a scrape. `takeOver` runs on the http and browser roles right after a fetch:
 * a PDF, office file, CSV or image is parked in the DocumentBodyStore and the job moves to the
 * `documents` queue (keeping its slot and deadline). `run` executes such a job on the documents role:
 * parse on a thread -> semantic HTML -> the HTML pipeline (so every format means what it means for a
 * page) -> a Document with `numPages`/`totalPages`, billed 1 credit per PDF page.
 */
export class DocumentRunner {
  private readonly now: () => number;

  constructor(private readonly deps: DocumentRunnerDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** Whether a fetched response is a document; CSV is one (it becomes a table). */
  static isDocument(page: FetchResult): boolean {
    if (page.kind === 'pdf' || page.kind === 'document') return true;
    if (page.kind === 'text' && CSV_TYPES.has(page.contentType)) return true;
    return page.kind === 'binary' && page.body !== undefined && detectDocumentFormat({ bytes: page.body, mimeType: page.contentType }) === 'image';
  }

  /** After a fetch: answers a raw PDF at once, hands a document to the documents queue, or returns undefined for a page. */
  async takeOver(job: ScrapeJob, request: ScrapeRequest, page: FetchResult, proxyUsed: ProxyTier): Promise<RunResult | undefined> {
    if (!DocumentRunner.isDocument(page)) return undefined;
    const bytes = page.body ?? Buffer.from(page.text ?? '', 'utf8');
    if (page.kind === 'pdf' && request.parsers.length === 0) return this.rawPdf(job, request, page, bytes, proxyUsed);
    if (!this.deps.documentParsing) {
      throw new TrawlError('SCRAPE_UNSUPPORTED_CONTENT', `The target is a document (${page.contentType}); document parsing is turned off on this server`, {
        details: { contentType: page.contentType },
      });
    }
    const ttlSec = Math.ceil(Math.max(0, job.deadline - this.now()) / 1000) + 60;
    const size = await this.deps.documentBodies.put(job.jobId, bytes, { ttlSec, maxBytes: Number.MAX_SAFE_INTEGER });
    // The documents role fetches nothing: the host slot of this attempt is spent.
    const { hostSlotAt: _slot, hostSlotAttempt: _attempt, ...rest } = job;
    await this.deps.dispatcher.handoff(job.teamId, job.jobId, 'documents', {
      ...rest,
      document: {
        source: 'fetch', size, url: page.url, statusCode: page.statusCode, proxyUsed,
        ...(page.contentType.length <= 256 ? { mimeType: page.contentType } : {}),
      },
    });
    return { kind: 'handed-off' };
  }

  /** `parsers: []`: the PDF itself, base64-encoded in `markdown` and `html`, for a flat credit. */
  private rawPdf(job: ScrapeJob, request: ScrapeRequest, page: FetchResult, bytes: Uint8Array, proxyUsed: ProxyTier): RunResult {
    const base64 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
    const has = (t: string) => request.formats.some((f) => f.type === t);
    const converted = { ...(has('markdown') ? { markdown: base64 } : {}), ...(has('html') ? { html: base64 } : {}) };
    const creditsUsed = scrapeCredits({ proxyUsed, pdfPages: 0, rawDocument: true });
    const document = buildDocument(request, page, converted, { jobId: job.jobId, admission: job.admission, creditsUsed, proxyUsed });
    return { kind: 'document', engine: 'document', document, finalUrl: page.url };
  }

  /** On the documents role: parse the parked file and build its Document. */
  async run(job: ScrapeJob, request: ScrapeRequest, signal: AbortSignal, wantsLinks: boolean): Promise<RunResult> {
    const parser = this.deps.documents;
    if (!parser) throw new TrawlError('SCRAPE_FAILED', 'a documents job reached a process without the documents role');
    const facts = job.document;
    if (!facts) throw new TrawlError('SCRAPE_FAILED', 'a documents job without its file facts');
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
      const converted = await convertPage(this.deps.converter, request, textual, signal, { links: wantsLinks });
      const creditsUsed = scrapeCredits({ proxyUsed });
      const document = buildDocument(request, textual, converted, { jobId: job.jobId, admission: job.admission, creditsUsed, proxyUsed });
      return { kind: 'document', engine: 'document', document, finalUrl: url, ...(converted.links ? { links: converted.links } : {}) };
    }
    if (format === 'pdf' && request.parsers.length === 0) return this.rawPdf(job, request, { ...page, contentType: 'application/pdf' }, bytes, proxyUsed);
    const pdfParser = request.parsers[0];
    let parsed: ParsedDocument;
    try {
      parsed = await parser.parse({
        input,
        pdfMode: pdfParser?.mode ?? 'auto',
        ...(pdfParser?.maxPages !== undefined ? { maxPages: pdfParser.maxPages } : {}),
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
    const built = await documentFromHtml(this.deps.converter, request, { page: { ...page, contentType }, html: parsed.html, facts: read }, {
      jobId: job.jobId, admission: job.admission, proxyUsed, signal, wantsLinks,
    });
    return {
      ...built,
      cacheable: {
        kind: 'document', url, statusCode: page.statusCode, contentType, contentKind: 'html', cachedAt: this.now(), engine: 'document',
        proxyUsed, body: parsed.html, document: read,
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

/**
 * The Document of a document already turned into HTML (just parsed, or from the cache): the HTML
 * pipeline without main-content extraction (a document is all content), the file's own title and
 * properties, page counts, the reader's warnings, and 1 credit per PDF page.
 */
export async function documentFromHtml(
  converter: HtmlConverter, request: ScrapeRequest,
  input: { page: FetchResult; html: string; facts: CachedDocumentFacts },
  job: { jobId: string; admission: ScrapeJob['admission']; proxyUsed: ProxyTier; signal: AbortSignal; wantsLinks: boolean; creditsUsed?: number },
): Promise<Extract<RunResult, { kind: 'document' }>> {
  const { facts } = input;
  const docPage: FetchResult = { ...input.page, kind: 'html', text: input.html };
  const converted = await convertPage(converter, request, docPage, job.signal, { links: job.wantsLinks, onlyMainContent: false });
  const creditsUsed = job.creditsUsed ?? scrapeCredits({ proxyUsed: job.proxyUsed, ...(facts.format === 'pdf' ? { pdfPages: facts.numPages } : {}) });
  const document = buildDocument(request, docPage, converted, { jobId: job.jobId, admission: job.admission, creditsUsed, proxyUsed: job.proxyUsed });
  document.metadata = documentMetadata(document.metadata as Record<string, unknown>, facts);
  // Pages left unread (OCR off or failed, a table given up on) are the caller's business.
  if (facts.warnings.length > 0) document.warning = [document.warning, ...facts.warnings].filter(Boolean).join('; ');
  return { kind: 'document', engine: 'document', document, finalUrl: docPage.url, ...(converted.links ? { links: converted.links } : {}) };
}

/** The file's own title and facts over what the generated HTML gave, plus the page counts. */
function documentMetadata(metadata: Record<string, unknown>, parsed: Pick<CachedDocumentFacts, 'metadata' | 'title' | 'numPages' | 'totalPages'>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...metadata };
  for (const [k, v] of Object.entries(parsed.metadata)) if (v && out[k] === undefined) out[k] = v;
  if (parsed.title) out.title = parsed.title;
  out.numPages = parsed.numPages;
  if (parsed.totalPages !== undefined) out.totalPages = parsed.totalPages;
  return out;
}
