import {
  TrawlError, normalizeDomain, searchResultCredits, searchSourceType, type ErrorData, type ScrapeRequest, type SearchRequest,
} from '@trawl/api-schema';
import { urlKey } from '@trawl/crawl';
import type { Logger } from '@trawl/observability';
import { SearchProviderError, type SearchItems, type SearchProvider, type SearchQuery } from '@trawl/search';

/** One search to run. */
export interface SearchRunRequest {
  teamId: string;
  /** The parsed search request (api-schema's `searchRequestSchema` output). */
  request: SearchRequest;
  /** The caller's cancellation (client gone, shutdown); the search's own `timeout` is added here. */
  signal: AbortSignal;
  /** Scrapes of the results run in zero-data-retention mode; nothing about them is logged. */
  zeroDataRetention: boolean;
}

/** What a search found, the credits it cost (results and scrapes) and what it could not do. */
export interface SearchRunResult {
  data: { web?: unknown[]; news?: unknown[]; images?: unknown[] };
  creditsUsed: number;
  warning?: string;
}

/** How one result page was scraped. */
export type SearchScrapeOutcome = { ok: true; document: Record<string, unknown> } | { ok: false; error: ErrorData };

/**
 * Scrapes one result page through the team's concurrency group (like a batch page) and waits for it
 * until `deadline`; never throws for the page's own failure (that is an outcome).
 */
export interface SearchPageScraper {
  scrape(teamId: string, request: ScrapeRequest, opts: { deadline: number; signal: AbortSignal }): Promise<SearchScrapeOutcome>;
}

/** Refuses result URLs the scrapers may not reach (`TargetGuard.resolveChecked`). */
export interface SearchTargetCheck {
  resolveChecked(hostname: string): Promise<unknown>;
}

/** Counts provider queries by outcome (`trawl_search_requests_total{provider,outcome}`). */
export interface SearchRequestCounter {
  inc(labels: { provider: string; outcome: string }): void;
}

export interface SearchRunnerDeps {
  /** The configured provider; undefined when search is off (`TRAWL_SEARCH_PROVIDER=none`). */
  provider: SearchProvider | undefined;
  scraper: SearchPageScraper;
  guard: SearchTargetCheck;
  /** The search's result credits are charged here (each scrape charges its own). */
  credits: { charge(teamId: string, credits: number): Promise<unknown> };
  requests?: SearchRequestCounter;
  logger: Logger;
  now?: () => number;
}

/** A result item on its way out: the provider's fields, then `position` and Document fields. */
type Item = Record<string, unknown> & { url: string };

/** Share of the search's timeout kept for answering after the scrapes' deadline, bounded. */
const RESERVE_SHARE = 0.1;
const MAX_RESERVE_MS = 3_000;

/**
 * Runs a search: one provider query per source (all at once), results cleaned (invalid URLs, duplicates
 * by canonical URL, domain filters enforced whatever the provider did), trimmed to `limit`, then, with
 * `scrapeOptions.formats`, every web and news result scraped in parallel through the team's
 * concurrency group, all within the search's `timeout`. A page that fails (or is a blocked target)
 * keeps its item, with the error in `metadata`.
 */
export class SearchRunner {
  private readonly now: () => number;

  constructor(private readonly deps: SearchRunnerDeps) {
    this.now = deps.now ?? Date.now;
  }

  async run(req: SearchRunRequest): Promise<SearchRunResult> {
    const { request } = req;
    const provider = this.deps.provider;
    if (!provider) {
      throw new TrawlError('UNSUPPORTED_OPTION', 'Search is turned off on this deployment (TRAWL_SEARCH_PROVIDER=none)', { details: { option: 'search' } });
    }
    const deadline = this.now() + request.timeout;
    const timeout = AbortSignal.timeout(request.timeout);
    const signal = AbortSignal.any([req.signal, timeout]);
    const warnings: string[] = [];
    const sources = request.sources.map((s) => ({ type: searchSourceType(s), overrides: typeof s === 'object' && s.type === 'web' ? s : undefined }));
    const lists = await Promise.all(sources.map(async ({ type, overrides }) => {
      if (!provider.sources.includes(type)) {
        warnings.push(`The search provider ${provider.name} does not serve ${type} results; data.${type} is empty.`);
        return { type, items: [] as Item[] };
      }
      const query: SearchQuery = {
        query: request.query, source: type, limit: request.limit, signal,
        ...defined({
          tbs: overrides?.tbs ?? request.tbs, lang: overrides?.lang ?? request.lang, country: overrides?.country ?? request.country,
          location: overrides?.location ?? request.location, includeDomains: request.includeDomains, excludeDomains: request.excludeDomains,
          categories: type === 'web' ? request.categories?.map((c) => (typeof c === 'string' ? c : c.type)) : undefined,
        }),
      };
      const answer = await this.query(provider, query, { timeout, caller: req.signal });
      return { type, items: this.clean(answer, request, warnings) };
    }));
    const data: SearchRunResult['data'] = {};
    for (const { type, items } of lists) data[type] = items;
    const resultCredits = searchResultCredits(lists.map((l) => l.items.length));
    if (resultCredits > 0) await this.deps.credits.charge(req.teamId, resultCredits);
    let scrapeCredits = 0;
    const formats = request.scrapeOptions?.formats ?? [];
    if (formats.length > 0) {
      const reserve = Math.min(MAX_RESERVE_MS, request.timeout * RESERVE_SHARE);
      const scrapeDeadline = deadline - reserve;
      const toScrape = lists.filter((l) => l.type === 'web' || l.type === 'news').flatMap((l) => l.items);
      const outcomes = await Promise.all(toScrape.map((item) => this.scrapeItem(req, item, { deadline: scrapeDeadline, signal: req.signal })));
      scrapeCredits = outcomes.reduce((sum, c) => sum + c, 0);
    }
    if (req.signal.aborted) throw req.signal.reason;
    return { data, creditsUsed: resultCredits + scrapeCredits, ...(warnings.length > 0 ? { warning: warnings.join(' ') } : {}) };
  }

  /** One provider query; its failures become SEARCH_TIMEOUT or SEARCH_PROVIDER_ERROR naming the provider. */
  private async query(provider: SearchProvider, query: SearchQuery, s: { timeout: AbortSignal; caller: AbortSignal }): Promise<SearchItems> {
    try {
      const answer = await provider.search(query);
      this.deps.requests?.inc({ provider: provider.name, outcome: answer.items.length > 0 ? 'ok' : 'empty' });
      return answer;
    } catch (err) {
      if (s.caller.aborted) throw s.caller.reason;
      const kind = err instanceof SearchProviderError ? err.kind : s.timeout.aborted ? 'timeout' : 'unavailable';
      const timedOut = kind === 'timeout' || s.timeout.aborted;
      this.deps.requests?.inc({ provider: provider.name, outcome: timedOut ? 'timeout' : kind });
      if (timedOut) {
        throw new TrawlError('SEARCH_TIMEOUT', `The search provider ${provider.name} did not answer in time`, { details: { provider: provider.name }, cause: err });
      }
      const message = err instanceof Error ? err.message : String(err);
      throw new TrawlError('SEARCH_PROVIDER_ERROR', `The search provider ${provider.name} failed: ${message}`, {
        details: { provider: provider.name, kind, ...(err instanceof SearchProviderError && err.status !== undefined ? { status: err.status } : {}) },
        cause: err,
      });
    }
  }

  /** Invalid URLs out, duplicates (canonical URL) out, domain filters enforced, trimmed to `limit`, ranked. */
  private clean(answer: SearchItems, request: SearchRequest, warnings: string[]): Item[] {
    const seen = new Set<string>();
    const out: Item[] = [];
    let invalid = 0;
    for (const raw of answer.items as ReadonlyArray<{ url: string }>) {
      if (out.length >= request.limit) break;
      const key = urlKey(raw.url, { ignoreQueryParameters: false, deduplicateSimilarURLs: true });
      if (key === null) {
        invalid += 1;
        continue;
      }
      if (seen.has(key)) continue;
      const host = normalizeDomain(new URL(raw.url).hostname);
      if (request.includeDomains?.length && !request.includeDomains.some((d) => host === d || host.endsWith(`.${d}`))) continue;
      if (request.excludeDomains?.some((d) => host === d || host.endsWith(`.${d}`))) continue;
      seen.add(key);
      out.push({ ...stripUndefined({ ...raw }), position: out.length + 1 });
    }
    if (invalid > 0) warnings.push(`${invalid} ${answer.source} result${invalid === 1 ? ' was' : 's were'} dropped: not a valid http(s) URL.`);
    return out;
  }

  /** Scrapes one result into its item (Document fields merged); returns the credits it cost. */
  private async scrapeItem(req: SearchRunRequest, item: Item, s: { deadline: number; signal: AbortSignal }): Promise<number> {
    const options = req.request.scrapeOptions!;
    const fail = (error: ErrorData) => {
      item.metadata = { sourceURL: item.url, url: item.url, statusCode: 0, error: error.message, errorCode: error.code };
      return 0;
    };
    try {
      await this.deps.guard.resolveChecked(new URL(item.url).hostname);
    } catch (err) {
      return fail(TrawlError.from(err).toData());
    }
    const remaining = s.deadline - this.now();
    if (remaining < 1_000) return fail(new TrawlError('SCRAPE_TIMEOUT', 'No time was left in the search\'s timeout to scrape this result').toData());
    const { origin: _origin, integration: _integration, ...scrapeOptions } = options;
    const request: ScrapeRequest = {
      ...scrapeOptions,
      url: item.url,
      timeout: Math.min(options.timeout, Math.floor(remaining)),
      zeroDataRetention: req.zeroDataRetention,
      storeInCache: req.zeroDataRetention ? false : options.storeInCache,
    };
    const outcome = await this.deps.scraper.scrape(req.teamId, request, { deadline: Math.min(s.deadline, this.now() + options.timeout), signal: s.signal });
    if (!outcome.ok) return fail(outcome.error);
    const { url: _url, ...document } = outcome.document;
    Object.assign(item, document, { url: item.url });
    const metadata = document.metadata as { creditsUsed?: unknown } | undefined;
    return typeof metadata?.creditsUsed === 'number' ? metadata.creditsUsed : 0;
  }
}

/** The object without its undefined members. */
function defined<T extends Record<string, unknown>>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}

function stripUndefined(item: Record<string, unknown>): Item {
  return defined(item) as Item;
}
