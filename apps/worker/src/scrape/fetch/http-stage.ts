import type { HtmlPipelineResult } from '@trawl/html';
import { scrapeCredits, type CachedPage } from '@trawl/queue';
import { acceptLanguageFor, type FetchResult } from '@trawl/scrape-engine';
import type { PageSource } from '../../convert/page-source.js';
import { isBotWall, isJavascriptShell, isSuccessStatus } from '../page-signals.js';
import type { ScrapeContext, ScrapeDeps } from '../pipeline/context.js';
import type { Handoff } from '../pipeline/handoff.js';
import { documentTakeOver } from './document-takeover.js';
import type { FetchStage, StageOutcome } from './fetch-stage.js';
import { proxyFor } from './proxy.js';

/** The page as the cache keeps it: text kinds only (documents are kept by the documents role). */
export function cacheablePage(page: FetchResult, facts: Pick<CachedPage, 'engine' | 'proxyUsed' | 'cachedAt' | 'timezone' | 'screenshot'>): CachedPage | undefined {
  if (page.text === undefined || !['html', 'xhtml', 'text', 'json', 'xml'].includes(page.kind)) return undefined;
  return {
    kind: 'page', url: page.url, statusCode: page.statusCode, contentType: page.contentType, contentKind: page.kind,
    ...(page.charset ? { charset: page.charset } : {}), body: page.text, ...(page.utf8 ? { bodyUtf8: page.utf8 } : {}), ...facts,
  };
}

type HttpStageDeps = Pick<ScrapeDeps, 'http' | 'proxies' | 'maxResponseBytes' | 'browserFallback' | 'documentParsing'> & { now: () => number };

/**
 * The fetch stage of the `scrape` queue: one plain HTTP request on the basic tier. Hands the job to
 * the documents queue (a document), or to the browser queue (`proxy: auto` blocked; after conversion,
 * a JavaScript shell answered with a 2xx status) when the browser fallback is on.
 */
export class HttpStage implements FetchStage {
  constructor(private readonly deps: HttpStageDeps) {}

  async fetch(ctx: ScrapeContext): Promise<StageOutcome> {
    const { request } = ctx;
    const { signal } = ctx.signals.next();
    const page = await this.deps.http.fetch({
      url: request.url,
      headers: request.headers ?? {},
      skipTlsVerification: request.skipTlsVerification,
      signal,
      maxBytes: this.deps.maxResponseBytes,
      ...proxyFor(this.deps.proxies, 'basic', request),
      ...(request.location?.languages?.length ? { acceptLanguage: acceptLanguageFor(request.location.languages) } : {}),
    });
    const toDocuments = documentTakeOver(request, page, 'basic', this.deps.documentParsing);
    if (toDocuments) return toDocuments;
    if (this.deps.browserFallback && request.proxy === 'auto' && isBotWall(page.statusCode, htmlOf(page))) {
      ctx.log.info({ statusCode: page.statusCode }, 'blocked on the basic tier, retrying with the enhanced tier');
      return { kind: 'handoff', handoff: { queue: 'browser', reason: 'blocked' } };
    }
    const cacheable = cacheablePage(page, { engine: 'http', proxyUsed: 'basic', cachedAt: this.deps.now() });
    return {
      kind: 'page',
      source: { engine: 'http', page, proxyUsed: 'basic', creditsUsed: scrapeCredits({ proxyUsed: 'basic' }), ...(cacheable ? { cacheable } : {}) },
    };
  }

  review(ctx: ScrapeContext, source: PageSource, converted: Partial<HtmlPipelineResult>): Handoff | undefined {
    const html = htmlOf(source.page);
    // A non-2xx answer is final here: a site's 404 page often looks like a shell, and rendering it
    // would only find the same error (the `auto` proxy's bot-wall rule in `fetch` is the exception).
    if (source.engine !== 'http' || !this.deps.browserFallback || html === undefined || !isSuccessStatus(source.page.statusCode)) return undefined;
    if (!isJavascriptShell(html, converted.markdown ?? '')) return undefined;
    ctx.log.info('page is a JavaScript shell, moving to the browser');
    return { queue: 'browser', reason: 'js-shell' };
  }
}

function htmlOf(page: FetchResult): string | undefined {
  return page.kind === 'html' || page.kind === 'xhtml' ? page.text ?? '' : undefined;
}
