import {
  SearchProviderError,
  type ImageSearchItem, type NewsSearchItem, type SearchItems, type SearchProvider, type SearchQuery, type SearchSource, type WebSearchItem,
} from '../provider.js';
import { htmlToText } from './html-text.js';
import { fetchWithDeadline, retryAfterPhrase } from './provider-fetch.js';
import { categoryOf, queryWithOperators, timeWindowOf } from './query-text.js';

/** Settings of {@link BraveProvider}. */
export interface BraveSettings {
  /** The subscription token (`X-Subscription-Token`); never logged nor echoed in errors. */
  apiKey: string;
  /** API base, e.g. `https://api.search.brave.com/res/v1`. */
  baseUrl: string;
}

/** Options of {@link BraveProvider}. */
export interface BraveOptions {
  /** Time one API request may take, ms. */
  timeoutMs: number;
  /** Default the global fetch. */
  fetch?: typeof fetch;
}

/** Per source: endpoint path and the largest `count` it accepts; images have no `offset` (one request). */
const ENDPOINTS: Record<SearchSource, { path: string; pageSize: number; paged: boolean }> = {
  web: { path: 'web/search', pageSize: 20, paged: true },
  news: { path: 'news/search', pageSize: 20, paged: true },
  images: { path: 'images/search', pageSize: 100, paged: false },
};
/** The API's largest `offset` (a page index, in units of `count`). */
const MAX_OFFSET = 9;

type Json = Record<string, unknown>;

/**
 * The Brave Search API (`GET {base}/web/search`, `/news/search`, `/images/search` with the
 * `X-Subscription-Token` header). Pages with `count`/`offset` until `limit`; `tbs` -> `freshness`
 * (`pd|pw|pm|py` or `YYYY-MM-DDtoYYYY-MM-DD`), `country`, `search_lang`; domain filters and categories
 * as query operators. 401/403 -> `refused` (the key), 429 -> `blocked` (the plan's rate limit), 5xx or
 * the network -> `unavailable`.
 */
export class BraveProvider implements SearchProvider {
  readonly name = 'brave';
  readonly sources: readonly SearchSource[] = ['web', 'news', 'images'];
  private readonly fetch: typeof fetch;

  constructor(private readonly settings: BraveSettings, private readonly opts: BraveOptions) {
    this.fetch = opts.fetch ?? globalThis.fetch;
  }

  async search(query: SearchQuery): Promise<SearchItems> {
    const endpoint = ENDPOINTS[query.source];
    // `offset` is a page index in units of `count`, so every page asks the same `count`.
    const count = Math.min(endpoint.pageSize, query.limit);
    const items: Json[] = [];
    for (let offset = 0; offset <= MAX_OFFSET && items.length < query.limit; offset += 1) {
      const body = await this.request(endpoint.path, this.params(query, count, offset), query.signal);
      const page = this.resultsOf(query.source, body);
      items.push(...page);
      if (!endpoint.paged || page.length < count || !moreAvailable(query.source, body)) break;
    }
    return this.mapped(query, items.slice(0, query.limit));
  }

  private params(query: SearchQuery, count: number, offset: number): URLSearchParams {
    const params = new URLSearchParams({ q: queryWithOperators(query), count: String(count) });
    if (offset > 0) params.set('offset', String(offset));
    if (query.country) params.set('country', query.country.toUpperCase());
    if (query.lang) params.set('search_lang', query.lang.toLowerCase());
    const freshness = freshnessOf(query.tbs);
    if (freshness && query.source !== 'images') params.set('freshness', freshness);
    return params;
  }

  private async request(path: string, params: URLSearchParams, signal: AbortSignal): Promise<Json> {
    const url = new URL(`${this.settings.baseUrl.replace(/\/+$/, '')}/${path}`);
    url.search = params.toString();
    const res = await fetchWithDeadline(url, {
      method: 'GET',
      headers: { accept: 'application/json', 'x-subscription-token': this.settings.apiKey },
    }, { provider: this.name, timeoutMs: this.opts.timeoutMs, signal, fetch: this.fetch });
    const status = res.status;
    if (status === 401 || status === 403) {
      throw new SearchProviderError(this.name, 'refused', `brave: the API refused the subscription token (HTTP ${status}); check TRAWL_BRAVE_API_KEY`, { status });
    }
    if (status === 429) {
      throw new SearchProviderError(this.name, 'blocked', `brave: rate limit of the API plan reached (HTTP 429)${retryAfterPhrase(res.headers)}`, { status });
    }
    if (status >= 500) throw new SearchProviderError(this.name, 'unavailable', `brave: the API answered HTTP ${status}`, { status });
    if (status >= 400) {
      throw new SearchProviderError(this.name, 'refused', `brave: the API refused the query (HTTP ${status}${this.detailOf(res.text)})`, { status });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(res.text);
    } catch (err) {
      throw new SearchProviderError(this.name, 'invalid', `brave: the answer (HTTP ${status}) is not JSON`, { status, cause: err });
    }
    if (!isObject(parsed)) throw new SearchProviderError(this.name, 'invalid', 'brave: the answer is not a JSON object', { status });
    return parsed;
  }

  /** `error.detail` of Brave's error body, without the key should it be quoted back. */
  private detailOf(text: string): string {
    try {
      const body: unknown = JSON.parse(text);
      const detail = isObject(body) && isObject(body.error) ? body.error.detail : undefined;
      if (typeof detail !== 'string' || detail === '') return '';
      return `: ${detail.split(this.settings.apiKey).join('[key]').slice(0, 300)}`;
    } catch {
      return '';
    }
  }

  /** The result objects of one page; a missing list is no results, a list of another type is an unreadable answer. */
  private resultsOf(source: SearchSource, body: Json): Json[] {
    const holder = source === 'web' ? body.web : body;
    if (holder === undefined && source === 'web') return [];
    const results = isObject(holder) ? holder.results : undefined;
    if (results === undefined) return [];
    if (!Array.isArray(results)) throw new SearchProviderError(this.name, 'invalid', `brave: ${source} results are not a list`);
    return results.filter(isObject);
  }

  private mapped(query: SearchQuery, results: Json[]): SearchItems {
    if (query.source === 'web') {
      const items: WebSearchItem[] = [];
      for (const r of results) {
        const url = httpUrl(r.url);
        if (!url) continue;
        const item: WebSearchItem = { url, title: text(r.title), description: text(r.description) };
        const category = categoryOf(url, query.categories);
        if (category) item.category = category;
        items.push(item);
      }
      return { source: 'web', items };
    }
    if (query.source === 'news') {
      const items: NewsSearchItem[] = [];
      for (const r of results) {
        const url = httpUrl(r.url);
        if (!url) continue;
        const item: NewsSearchItem = { url, title: text(r.title), snippet: text(r.description) };
        const date = typeof r.page_age === 'string' && r.page_age ? r.page_age : typeof r.age === 'string' && r.age ? r.age : undefined;
        if (date) item.date = date;
        const image = isObject(r.thumbnail) ? httpUrl(r.thumbnail.src) : undefined;
        if (image) item.imageUrl = image;
        items.push(item);
      }
      return { source: 'news', items };
    }
    const items: ImageSearchItem[] = [];
    for (const r of results) {
      const url = httpUrl(r.url);
      const props = isObject(r.properties) ? r.properties : {};
      const imageUrl = httpUrl(props.url) ?? (isObject(r.thumbnail) ? httpUrl(r.thumbnail.src) : undefined);
      if (!url || !imageUrl) continue;
      const item: ImageSearchItem = { url, title: text(r.title), imageUrl };
      const width = dimension(props.width);
      const height = dimension(props.height);
      if (width !== undefined) item.imageWidth = width;
      if (height !== undefined) item.imageHeight = height;
      items.push(item);
    }
    return { source: 'images', items };
  }
}

/** `tbs` -> Brave's `freshness`; Brave has no past hour, so `qdr:h` asks for the past day. */
export function freshnessOf(tbs: string | undefined): string | undefined {
  const window = timeWindowOf(tbs);
  if (!window) return undefined;
  if (window.kind === 'range') return `${window.from}to${window.to}`;
  return { h: 'pd', d: 'pd', w: 'pw', m: 'pm', y: 'py' }[window.unit];
}

function moreAvailable(source: SearchSource, body: Json): boolean {
  // Only web answers say whether more pages exist; for news a short page is the end.
  if (source !== 'web' || !isObject(body.query)) return true;
  return body.query.more_results_available !== false;
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Brave marks query terms with `<strong>` and escapes entities in titles and descriptions. */
function text(v: unknown): string {
  return typeof v === 'string' ? htmlToText(v) : '';
}

function httpUrl(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : undefined;
  } catch {
    return undefined;
  }
}

function dimension(v: unknown): number | undefined {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : undefined;
}
