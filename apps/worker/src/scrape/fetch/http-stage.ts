import type { HtmlPipelineResult } from '@trawl/html';
import { scrapeCredits, type CachedPage } from '@trawl/queue';
import { acceptLanguageFor, textHead, undecodedUtf8, type FetchResult } from '@trawl/scrape-engine';
import type { PageSource } from '../../convert/page-source.js';
import { BOT_WALL_SCAN_CHARS, isBotWall, isJavascriptShell, isSuccessStatus } from '../page-signals.js';
import type { ScrapeContext, ScrapeDeps } from '../pipeline/context.js';
import type { Handoff } from '../pipeline/handoff.js';
import { documentTakeOver } from './document-takeover.js';
import type { FetchStage, StageOutcome } from './fetch-stage.js';
import { proxyFor } from './proxy.js';

/**
 * The page as the cache keeps it: text kinds only (documents are kept by the documents role). A page
 * not decoded yet keeps its `body` so: it is the page's text, read when read (the cache stores
 * `bodyUtf8`, the same bytes, and does not read it).
 */
export function cacheablePage(page: FetchResult, facts: Pick<CachedPage, 'engine' | 'proxyUsed' | 'cachedAt' | 'timezone' | 'screenshot'>): CachedPage | undefined {
  if (!['html', 'xhtml', 'text', 'json', 'xml'].includes(page.kind)) return undefined;
  const undecoded = undecodedUtf8(page) !== undefined;
  if (!undecoded && page.text === undefined) return undefined;
  const fields = {
    kind: 'page' as const, url: page.url, statusCode: page.statusCode, contentType: page.contentType, contentKind: page.kind,
    ...(page.charset ? { charset: page.charset } : {}), ...(page.utf8 ? { bodyUtf8: page.utf8 } : {}), ...facts,
  };
  if (!undecoded) return { ...fields, body: page.text! };
  // The accessor added last: a data property turned into one would leave the object in V8's slow
  // (dictionary) mode, and every such object would have a hidden class of its own.
  bodySources.set(fields, page);
  return Object.defineProperty(fields, 'body', BODY_ACCESSOR) as CachedPage;
}

/** Where the body of each cacheable page not decoded yet comes from: its fetched page's text. */
const bodySources = new WeakMap<object, Pick<FetchResult, 'text'>>();

/** One accessor for all of them (functions, not closures: one hidden class for every such object). */
const BODY_ACCESSOR: PropertyDescriptor = {
  get(this: CachedPage): string {
    return bodySources.get(this)?.text ?? '';
  },
  set(this: CachedPage, value: string) {
    bodySources.set(this, { text: value });
  },
  enumerable: true,
  configurable: true,
};

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
    if (this.deps.browserFallback && request.proxy === 'auto' && isBotWall(page.statusCode, isHtml(page) ? textHead(page, BOT_WALL_SCAN_CHARS) ?? '' : undefined)) {
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
    const { page } = source;
    // A non-2xx answer is final here: a site's 404 page often looks like a shell, and rendering it
    // would only find the same error (the `auto` proxy's bot-wall rule in `fetch` is the exception).
    if (source.engine !== 'http' || !this.deps.browserFallback || !isHtml(page) || !isSuccessStatus(page.statusCode)) return undefined;
    // The page's text is read only when its markdown leaves the question open (see isJavascriptShell).
    if (!isJavascriptShell(() => page.text ?? '', converted.markdown ?? '')) return undefined;
    ctx.log.info('page is a JavaScript shell, moving to the browser');
    return { queue: 'browser', reason: 'js-shell' };
  }
}

function isHtml(page: FetchResult): boolean {
  return page.kind === 'html' || page.kind === 'xhtml';
}
