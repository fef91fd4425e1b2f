import { STATUS_CODES } from 'node:http';
import { TrawlError, redactUrl, type ScrapeRequest } from '@trawl/api-schema';
import type { HtmlPipelineResult } from '@trawl/html';
import type { FetchResult } from '@trawl/scrape-engine';
import type { HtmlConverter } from '../html-converter.js';

/** The formats of a request the HTML pipeline produces; change tracking compares markdown. */
export function pipelineFormats(request: ScrapeRequest) {
  const has = (t: string) => request.formats.some((f) => f.type === t);
  return { markdown: has('markdown') || has('changeTracking'), html: has('html'), rawHtml: has('rawHtml'), links: has('links'), images: has('images') };
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

/** Formats of a textual non-HTML response (plain text, JSON, XML): the text itself, HTML-escaped for `html`. */
export function textFormats(request: ScrapeRequest, page: FetchResult): Partial<HtmlPipelineResult> {
  const f = pipelineFormats(request);
  const text = page.text ?? '';
  const out: Partial<HtmlPipelineResult> = {};
  if (f.markdown) out.markdown = page.kind === 'json' ? '```json\n' + text.trim() + '\n```' : text;
  if (f.html) out.html = `<pre>${escapeHtml(text)}</pre>`;
  if (f.rawHtml) out.rawHtml = text;
  if (f.links) out.links = [];
  if (f.images) out.images = [];
  return out;
}

/**
 * The formats of a fetched page: HTML through the pipeline, text kinds as they are. `links` asks for
 * the page's links even when the request did not (crawl discovery); `onlyMainContent` overrides the
 * request's (a document's HTML is all content).
 */
export function convertPage(
  converter: HtmlConverter, request: ScrapeRequest, page: FetchResult, signal: AbortSignal,
  opts: { links?: boolean; onlyMainContent?: boolean } = {},
): Promise<Partial<HtmlPipelineResult>> {
  switch (page.kind) {
    case 'html':
    case 'xhtml': {
      const formats = pipelineFormats(request);
      return converter.convert(page.text ?? '', {
        url: page.url,
        formats: opts.links ? { ...formats, links: true } : formats,
        onlyMainContent: opts.onlyMainContent ?? request.onlyMainContent,
        ...(request.includeTags ? { includeTags: request.includeTags } : {}),
        ...(request.excludeTags ? { excludeTags: request.excludeTags } : {}),
        removeBase64Images: request.removeBase64Images,
      }, signal);
    }
    case 'text':
    case 'json':
    case 'xml':
      return Promise.resolve(textFormats(request, page));
    default:
      return Promise.reject(new TrawlError('SCRAPE_UNSUPPORTED_CONTENT', `Cannot convert content of type ${page.contentType}`, {
        details: { contentType: page.contentType },
      }));
  }
}

/** Facts of the job that end up in `metadata`. */
export interface JobFacts {
  jobId: string;
  admission?: { limited: boolean; waitMs: number } | undefined;
  creditsUsed: number;
  /** Proxy tier the result was obtained with. */
  proxyUsed: 'basic' | 'enhanced';
  /** Emulated time zone of a browser scrape. */
  timezone?: string;
  /** Signed URL of the `screenshot` format. */
  screenshot?: string;
  /** `data.actions` with the binaries' URLs. */
  actions?: Record<string, unknown>;
}

/**
 * Assembles the response Document: only requested formats, then metadata from the page, the fetch
 * and the job (scrapeId, concurrency wait, credits). Page-derived metadata never overrides ours.
 */
export function buildDocument(request: ScrapeRequest, page: FetchResult, converted: Partial<HtmlPipelineResult>, job: JobFacts) {
  const doc: Record<string, unknown> = {};
  for (const key of ['markdown', 'html', 'rawHtml', 'links', 'images'] as const) {
    if (converted[key] !== undefined) doc[key] = converted[key];
  }
  if (job.screenshot !== undefined) doc.screenshot = job.screenshot;
  if (job.actions !== undefined) doc.actions = job.actions;
  if (converted.warnings && converted.warnings.length > 0) doc.warning = converted.warnings.join('; ');
  const metadata: Record<string, unknown> = { ...(converted.metadata ?? {}) };
  Object.assign(metadata, {
    // Credentials of the URL were sent as Basic auth; the Document shows the URL without the password.
    sourceURL: redactUrl(request.url),
    url: redactUrl(page.url),
    statusCode: page.statusCode,
    contentType: page.contentType,
    scrapeId: job.jobId,
    proxyUsed: job.proxyUsed,
    creditsUsed: job.creditsUsed,
  });
  if (job.timezone !== undefined) metadata.timezone = job.timezone;
  if (page.statusCode >= 400) metadata.error = STATUS_CODES[page.statusCode] ?? `HTTP ${page.statusCode}`;
  if (job.admission?.limited) {
    metadata.concurrencyLimited = true;
    metadata.concurrencyQueueDurationMs = job.admission.waitMs;
  }
  doc.metadata = metadata;
  return doc;
}
