import { STATUS_CODES } from 'node:http';
import { TrawlError, redactUrl, type Document, type DocumentMetadata, type ScrapeRequest } from '@trawl/api-schema';
import type { HtmlPipelineFormats, HtmlPipelineResult } from '@trawl/html';
import type { CachedDocumentFacts } from '@trawl/queue';
import { undecodedUtf8, type FetchResult } from '@trawl/scrape-engine';
import type { ConversionPriority, HtmlConverter, HtmlInput } from './html-converter.js';
import type { PageSource } from './page-source.js';

function escapeHtml(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

/** Formats of a textual non-HTML response (plain text, JSON, XML): the text itself, HTML-escaped for `html`. */
export function textFormats(f: HtmlPipelineFormats, page: FetchResult): Partial<HtmlPipelineResult> {
  const text = page.text ?? '';
  const out: Partial<HtmlPipelineResult> = {};
  if (f.markdown) out.markdown = page.kind === 'json' ? '```json\n' + text.trim() + '\n```' : text;
  if (f.html) out.html = `<pre>${escapeHtml(text)}</pre>`;
  if (f.rawHtml) out.rawHtml = text;
  if (f.links) out.links = [];
  if (f.images) out.images = [];
  return out;
}

/** A fetched page's HTML for a converter: its bytes while its text is not decoded (see {@link HtmlInput}). */
export function htmlInputOf(page: FetchResult): HtmlInput {
  const utf8 = undecodedUtf8(page);
  return utf8 ? { utf8, text: () => page.text ?? '' } : page.text ?? '';
}

/**
 * The formats of a fetched page: HTML through the pipeline, text kinds as they are. `formats` are
 * what the request's transformers read (plus `links` for crawl discovery); `onlyMainContent`
 * overrides the request's (a document's HTML is all content).
 */
export function convertPage(
  converter: HtmlConverter, request: ScrapeRequest, page: FetchResult, signal: AbortSignal,
  formats: HtmlPipelineFormats, opts: { onlyMainContent?: boolean; priority?: ConversionPriority } = {},
): Promise<Partial<HtmlPipelineResult>> {
  switch (page.kind) {
    case 'html':
    case 'xhtml': {
      return converter.convert(htmlInputOf(page), {
        url: page.url,
        formats,
        onlyMainContent: opts.onlyMainContent ?? request.onlyMainContent,
        ...(request.includeTags ? { includeTags: request.includeTags } : {}),
        ...(request.excludeTags ? { excludeTags: request.excludeTags } : {}),
        removeBase64Images: request.removeBase64Images,
      }, signal, opts.priority);
    }
    case 'text':
    case 'json':
    case 'xml':
      return Promise.resolve(textFormats(formats, page));
    default:
      // rawBase64 (always alone) returns the bytes as they are: any content type, nothing to convert.
      if (request.formats.every((f) => f.type === 'rawBase64')) return Promise.resolve({});
      return Promise.reject(new TrawlError('SCRAPE_UNSUPPORTED_CONTENT', `Cannot convert content of type ${page.contentType}`, {
        details: { contentType: page.contentType },
      }));
  }
}

/** Facts of the job that end up in `metadata`. */
export interface JobFacts {
  jobId: string;
  admission?: { limited: boolean; waitMs: number } | undefined;
}

/**
 * The response Document without its formats (the transformers add those): metadata from the page,
 * the fetch and the job (scrapeId, concurrency wait, credits), the action results, the conversion's
 * warnings; a parsed document's own facts and page counts; a cache hit's `cacheState`. Page-derived
 * metadata never overrides ours.
 */
export function buildDocument(request: ScrapeRequest, source: PageSource, converted: Partial<HtmlPipelineResult>, job: JobFacts): Document {
  const { page } = source;
  const metadata: DocumentMetadata = {
    ...(converted.metadata ?? {}),
    // Credentials of the URL were sent as Basic auth; the Document shows the URL without the password.
    sourceURL: redactUrl(request.url),
    url: redactUrl(page.url),
    statusCode: page.statusCode,
    contentType: page.contentType,
    scrapeId: job.jobId,
    proxyUsed: source.proxyUsed,
    creditsUsed: source.creditsUsed,
  } as DocumentMetadata;
  if (source.timezone !== undefined) metadata.timezone = source.timezone;
  if (page.statusCode >= 400) metadata.error = STATUS_CODES[page.statusCode] ?? `HTTP ${page.statusCode}`;
  if (job.admission?.limited) {
    metadata.concurrencyLimited = true;
    metadata.concurrencyQueueDurationMs = job.admission.waitMs;
  }
  const doc: Document = { metadata };
  if (source.binaries?.actions !== undefined) doc.actions = source.binaries.actions;
  const warnings = [...(converted.warnings ?? []), ...(source.file?.warnings ?? [])];
  // Pages left unread (OCR off or failed, a table given up on) are the caller's business.
  if (warnings.length > 0) doc.warning = warnings.join('; ');
  if (source.file) doc.metadata = documentMetadata(metadata, source.file);
  if (source.cachedAt !== undefined) {
    doc.metadata.cacheState = 'hit';
    doc.metadata.cachedAt = new Date(source.cachedAt).toISOString();
  }
  return doc;
}

/** The file's own title and facts over what the generated HTML gave, plus the page counts. */
function documentMetadata(metadata: DocumentMetadata, parsed: Pick<CachedDocumentFacts, 'metadata' | 'title' | 'numPages' | 'totalPages'>): DocumentMetadata {
  const out: DocumentMetadata = { ...metadata };
  for (const [k, v] of Object.entries(parsed.metadata)) if (v && out[k] === undefined) out[k] = v;
  if (parsed.title) out.title = parsed.title;
  out.numPages = parsed.numPages;
  if (parsed.totalPages !== undefined) out.totalPages = parsed.totalPages;
  return out;
}
