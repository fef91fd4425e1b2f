import {
  SearchProviderError,
  type ImageSearchItem, type NewsSearchItem, type SearchCategory, type SearchItems, type SearchProvider, type SearchQuery,
  type SearchSource, type WebSearchItem,
} from '../provider.js';

/** Where the SearXNG instance is and what to ask it (`TRAWL_SEARXNG_URL`, `SEARXNG_ENGINES`, `SEARXNG_CATEGORIES`). */
export interface SearxngSettings {
  baseUrl: string;
  /** Engines of a web search (comma joined into `engines`); empty: the instance's defaults. */
  engines: string[];
  /** Categories of a web search; empty: `general`. */
  categories: string[];
}

/** Options of {@link SearxngProvider}. */
export interface SearxngProviderOptions {
  /** Time one request to the instance may take, ms. */
  timeoutMs: number;
  fetch?: typeof fetch;
  /** Most pages asked for one query. Default 5. */
  maxPages?: number;
  /** Clock for custom date ranges (`cdr:`), ms since the epoch. Default `Date.now`. */
  now?: () => number;
}

/** SearXNG's relative time filter. It has no hour: `qdr:h` asks for `day`. */
export type SearxngTimeRange = 'day' | 'week' | 'month' | 'year';

const NAME = 'searxng';
const DAY_MS = 86_400_000;
const JSON_HINT = 'enable the JSON format (`search.formats: [html, json]` in settings.yml) and turn the limiter off for internal callers (`server.limiter: false`)';

/** One SearXNG query: the `q` text, its `categories`, and the label its web results get. */
interface SubQuery {
  q: string;
  categories: string;
  engines?: string;
  category?: SearchCategory;
}

/** A result as read from the answer (untrusted: every field checked). */
interface RawResult {
  url: string;
  title: string;
  content: string;
  publishedDate?: string;
  imgSrc?: string;
  thumbnailSrc?: string;
  resolution?: string;
}

/**
 * SearXNG's JSON API (`GET /search?q=&format=json&pageno=`): web (`SEARXNG_CATEGORIES`, default `general`),
 * news (`categories=news`) and images (`categories=images`). `tbs` becomes `time_range`, `lang`/`country`
 * become `language`, domains and categories become query operators (`site:`, `-site:`, `filetype:pdf`;
 * `research` asks the `science` category). Pages until `limit` results, an empty page, or `maxPages`.
 */
export class SearxngProvider implements SearchProvider {
  readonly name = NAME;
  readonly sources: readonly SearchSource[] = ['web', 'news', 'images'];
  private readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;
  private readonly maxPages: number;
  private readonly now: () => number;

  constructor(
    private readonly settings: SearxngSettings,
    private readonly opts: SearxngProviderOptions,
  ) {
    this.baseUrl = settings.baseUrl.replace(/\/+$/, '');
    this.fetchImpl = opts.fetch ?? fetch;
    this.maxPages = opts.maxPages ?? 5;
    this.now = opts.now ?? Date.now;
  }

  async search(query: SearchQuery): Promise<SearchItems> {
    const subs = this.subQueries(query);
    const common: Record<string, string> = {};
    const language = languageOf(query.lang, query.country);
    if (language) common.language = language;
    const timeRange = query.tbs ? timeRangeOf(query.tbs, this.now()) : undefined;
    if (timeRange) common.time_range = timeRange;

    const lists = await Promise.all(subs.map((sub) => this.collect(sub, common, query)));
    // Interleave the category lists so each category is represented, dropping repeated URLs.
    const seen = new Set<string>();
    const merged: Array<{ raw: RawResult; category?: SearchCategory }> = [];
    for (let i = 0; merged.length < query.limit && lists.some((l) => i < l.length); i += 1) {
      lists.forEach((list, j) => {
        const raw = list[i];
        if (!raw || merged.length >= query.limit || seen.has(raw.url)) return;
        seen.add(raw.url);
        const category = subs[j]?.category;
        merged.push(category ? { raw, category } : { raw });
      });
    }
    return this.toItems(query.source, merged);
  }

  /** The SearXNG queries one search needs: one, or one per asked category (web only). */
  private subQueries(query: SearchQuery): SubQuery[] {
    const domains = domainOperators(query.includeDomains, query.excludeDomains);
    const q = (...extra: string[]): string => [query.query.trim(), ...extra, ...domains].filter((s) => s !== '').join(' ');
    if (query.source === 'news') return [{ q: q(), categories: 'news' }];
    if (query.source === 'images') return [{ q: q(), categories: 'images' }];
    const web = this.settings.categories.length > 0 ? this.settings.categories.join(',') : 'general';
    const engines = this.settings.engines.length > 0 ? this.settings.engines.join(',') : undefined;
    const plain: SubQuery = engines ? { q: q(), categories: web, engines } : { q: q(), categories: web };
    const categories = [...new Set(query.categories ?? [])];
    if (categories.length === 0) return [plain];
    return categories.map((category): SubQuery => {
      if (category === 'github') return { ...plain, q: q('site:github.com'), category };
      if (category === 'pdf') return { ...plain, q: q('filetype:pdf'), category };
      // research: SearXNG's science category (arXiv, Google Scholar, PubMed, Semantic Scholar... as the instance enables them).
      return { q: q(), categories: 'science', category };
    });
  }

  /** Pages one sub-query until `limit` distinct results, an empty (or all-repeated) page, or `maxPages`. */
  private async collect(sub: SubQuery, common: Record<string, string>, query: SearchQuery): Promise<RawResult[]> {
    const out: RawResult[] = [];
    const seen = new Set<string>();
    for (let pageno = 1; pageno <= this.maxPages && out.length < query.limit; pageno += 1) {
      const params = new URLSearchParams({ q: sub.q, format: 'json', pageno: String(pageno), categories: sub.categories, ...common });
      if (sub.engines) params.set('engines', sub.engines);
      const page = await this.fetchPage(params, query.signal);
      let added = 0;
      for (const r of page) {
        if (seen.has(r.url)) continue;
        seen.add(r.url);
        out.push(r);
        added += 1;
      }
      if (added === 0) break;
    }
    return out;
  }

  private async fetchPage(params: URLSearchParams, callerSignal: AbortSignal): Promise<RawResult[]> {
    if (callerSignal.aborted) throw new SearchProviderError(NAME, 'aborted', 'SearXNG search aborted', { cause: callerSignal.reason });
    const timeout = AbortSignal.timeout(this.opts.timeoutMs);
    const signal = AbortSignal.any([callerSignal, timeout]);
    const url = `${this.baseUrl}/search?${params.toString()}`;
    const failed = (err: unknown): SearchProviderError => {
      if (callerSignal.aborted) return new SearchProviderError(NAME, 'aborted', 'SearXNG search aborted', { cause: err });
      if (timeout.aborted) return new SearchProviderError(NAME, 'timeout', `SearXNG at ${this.baseUrl} did not answer within ${this.opts.timeoutMs} ms`, { cause: err });
      return new SearchProviderError(NAME, 'unavailable', `SearXNG at ${this.baseUrl} is unreachable: ${causeText(err)}`, { cause: err });
    };
    let res: Response;
    let body: string;
    try {
      res = await this.fetchImpl(url, { headers: { accept: 'application/json' }, signal, redirect: 'manual' });
      body = await res.text();
    } catch (err) {
      throw failed(err);
    }
    const status = res.status;
    if (status === 403 || status === 429) {
      throw new SearchProviderError(NAME, 'blocked', `SearXNG at ${this.baseUrl} answered ${status} (its limiter, or the JSON format is off): ${JSON_HINT}`, { status });
    }
    if (status >= 500) throw new SearchProviderError(NAME, 'unavailable', `SearXNG at ${this.baseUrl} answered ${status}`, { status });
    if (status !== 200) throw new SearchProviderError(NAME, 'refused', `SearXNG at ${this.baseUrl} answered ${status}: ${body.slice(0, 200)}`, { status });
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch (err) {
      throw new SearchProviderError(NAME, 'invalid', `SearXNG at ${this.baseUrl} answered ${res.headers.get('content-type') ?? 'no content type'}, not JSON: ${JSON_HINT}`, { status, cause: err });
    }
    const results = parsed && typeof parsed === 'object' ? (parsed as { results?: unknown }).results : undefined;
    if (!Array.isArray(results)) {
      throw new SearchProviderError(NAME, 'invalid', `SearXNG at ${this.baseUrl} answered JSON without a results list: ${JSON_HINT}`, { status });
    }
    return results.flatMap((r) => {
      const raw = this.readResult(r);
      return raw ? [raw] : [];
    });
  }

  /** Checks one untrusted result; undefined when it has no usable http(s) URL. */
  private readResult(r: unknown): RawResult | undefined {
    if (!r || typeof r !== 'object') return undefined;
    const o = r as Record<string, unknown>;
    const url = absoluteHttpUrl(o.url, this.baseUrl);
    if (!url) return undefined;
    const raw: RawResult = { url, title: str(o.title) ?? '', content: str(o.content) ?? '' };
    const publishedDate = str(o.publishedDate) ?? str(o.pubdate);
    if (publishedDate) raw.publishedDate = publishedDate;
    const imgSrc = absoluteHttpUrl(o.img_src, this.baseUrl);
    if (imgSrc) raw.imgSrc = imgSrc;
    const thumbnailSrc = absoluteHttpUrl(o.thumbnail_src ?? o.thumbnail, this.baseUrl);
    if (thumbnailSrc) raw.thumbnailSrc = thumbnailSrc;
    const resolution = str(o.resolution);
    if (resolution) raw.resolution = resolution;
    return raw;
  }

  private toItems(source: SearchSource, merged: Array<{ raw: RawResult; category?: SearchCategory }>): SearchItems {
    if (source === 'news') {
      return {
        source,
        items: merged.map(({ raw }) => {
          const item: NewsSearchItem = { url: raw.url, title: raw.title, snippet: raw.content };
          const date = raw.publishedDate ? isoDate(raw.publishedDate) : undefined;
          if (date) item.date = date;
          const image = raw.imgSrc ?? raw.thumbnailSrc;
          if (image) item.imageUrl = image;
          return item;
        }),
      };
    }
    if (source === 'images') {
      return {
        source,
        items: merged.flatMap(({ raw }) => {
          const imageUrl = raw.imgSrc ?? raw.thumbnailSrc;
          if (!imageUrl) return [];
          const item: ImageSearchItem = { url: raw.url, title: raw.title, imageUrl };
          const size = raw.resolution ? resolutionOf(raw.resolution) : undefined;
          if (size) {
            item.imageWidth = size.width;
            item.imageHeight = size.height;
          }
          return [item];
        }),
      };
    }
    return {
      source,
      items: merged.map(({ raw, category }) => {
        const item: WebSearchItem = { url: raw.url, title: raw.title, description: raw.content };
        if (category) item.category = category;
        return item;
      }),
    };
  }
}

/**
 * `tbs` -> SearXNG `time_range`: `qdr:h` and `qdr:d` -> `day` (SearXNG has no hour), `qdr:w` -> `week`,
 * `qdr:m` -> `month`, `qdr:y` -> `year`; a count (`qdr:d3`) and a custom range (`cdr:1,cd_min:MM/DD/YYYY,...`)
 * get the smallest range reaching back to its start (none beyond a year, no error). `sbd:1` has no equivalent.
 */
export function timeRangeOf(tbs: string, nowMs: number): SearxngTimeRange | undefined {
  const parts = tbs.split(',').map((p) => p.trim());
  for (const part of parts) {
    const m = /^qdr:([hdwmy])(\d*)$/.exec(part);
    if (!m) continue;
    const unitDays = { h: 1 / 24, d: 1, w: 7, m: 31, y: 366 }[m[1] as 'h' | 'd' | 'w' | 'm' | 'y'];
    const count = m[2] ? Math.max(1, Number(m[2])) : 1;
    return rangeCovering(unitDays * count);
  }
  if (parts.includes('cdr:1')) {
    const min = parts.find((p) => p.startsWith('cd_min:'))?.slice('cd_min:'.length);
    const start = min ? usDate(min) : undefined;
    if (start === undefined) return undefined;
    return rangeCovering(Math.max(0, nowMs - start) / DAY_MS);
  }
  return undefined;
}

function rangeCovering(days: number): SearxngTimeRange | undefined {
  if (days <= 1) return 'day';
  if (days <= 7) return 'week';
  if (days <= 31) return 'month';
  if (days <= 366) return 'year';
  return undefined;
}

/** `MM/DD/YYYY` (Google's `cd_min`) -> ms since the epoch, UTC midnight. */
function usDate(s: string): number | undefined {
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(s);
  if (!m) return undefined;
  const t = Date.UTC(Number(m[3]), Number(m[1]) - 1, Number(m[2]));
  return Number.isNaN(t) ? undefined : t;
}

/** `lang` (+ `country`) -> SearXNG `language`: `en`, `en-US`. */
function languageOf(lang: string | undefined, country: string | undefined): string | undefined {
  const l = lang?.trim().toLowerCase();
  if (!l || !/^[a-z]{2,3}(-[a-z]{2})?$/.test(l)) return undefined;
  if (l.includes('-')) return `${l.slice(0, l.indexOf('-'))}-${l.slice(l.indexOf('-') + 1).toUpperCase()}`;
  const c = country?.trim();
  return c && /^[a-z]{2}$/i.test(c) ? `${l}-${c.toUpperCase()}` : l;
}

/** `includeDomains` -> `site:a OR site:b`, `excludeDomains` -> `-site:x -site:y`. */
function domainOperators(include: readonly string[] | undefined, exclude: readonly string[] | undefined): string[] {
  const clean = (d: string): string => d.trim().toLowerCase().replace(/^[a-z]+:\/\//, '').replace(/\/.*$/, '').replace(/^\*\./, '');
  const inc = (include ?? []).map(clean).filter((d) => d !== '');
  const exc = (exclude ?? []).map(clean).filter((d) => d !== '');
  const out: string[] = [];
  if (inc.length > 0) out.push(inc.map((d) => `site:${d}`).join(' OR '));
  for (const d of exc) out.push(`-site:${d}`);
  return out;
}

/** `1920x1080`, `1920 x 1080`, `1920×1080` -> width and height. */
function resolutionOf(s: string): { width: number; height: number } | undefined {
  const m = /^\s*(\d+)\s*[x×X]\s*(\d+)\s*$/.exec(s);
  if (!m) return undefined;
  const width = Number(m[1]);
  const height = Number(m[2]);
  return width > 0 && height > 0 ? { width, height } : undefined;
}

/** A date SearXNG gives (`2024-05-01T10:00:00`, often without a zone: UTC) -> ISO; as given when unreadable. */
function isoDate(s: string): string {
  const zoned = /[zZ]|[+-]\d{2}:?\d{2}$/.test(s) || !/^\d{4}-\d{2}-\d{2}T/.test(s) ? s : `${s}Z`;
  const t = Date.parse(zoned);
  return Number.isNaN(t) ? s : new Date(t).toISOString();
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

/** An http(s) URL, relative ones (SearXNG's image proxy) resolved against the instance. */
function absoluteHttpUrl(v: unknown, base: string): string | undefined {
  const s = str(v);
  if (!s) return undefined;
  try {
    const u = new URL(s.startsWith('//') ? `https:${s}` : s, `${base}/`);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : undefined;
  } catch {
    return undefined;
  }
}

/** `ECONNREFUSED`, `ENOTFOUND`, ... from fetch's `TypeError: fetch failed` and its cause. */
function causeText(err: unknown): string {
  // Duck-typed: fetch's errors may come from another realm (`instanceof Error` is false there).
  const e = (err && typeof err === 'object' ? err : {}) as { message?: unknown; cause?: unknown };
  const cause = (e.cause && typeof e.cause === 'object' ? e.cause : {}) as { code?: unknown; message?: unknown };
  if (typeof cause.code === 'string') return cause.code;
  if (typeof cause.message === 'string') return cause.message;
  return typeof e.message === 'string' ? e.message : String(err);
}
