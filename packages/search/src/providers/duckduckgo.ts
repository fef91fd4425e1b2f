import { SearchProviderError, type SearchItems, type SearchProvider, type SearchQuery, type SearchSource, type WebSearchItem } from '../provider.js';
import { parseDuckDuckGoPage } from './duckduckgo-html.js';
import { fetchWithDeadline, retryAfterPhrase } from './provider-fetch.js';
import { categoryOf, queryWithOperators, timeWindowOf } from './query-text.js';
import { TokenBucket } from './token-bucket.js';

/** Settings of {@link DuckDuckGoProvider}. */
export interface DuckDuckGoSettings {
  /** Base of the HTML endpoint, e.g. `https://html.duckduckgo.com`. */
  baseUrl: string;
  /** Requests per minute this instance sends (each result page is one). */
  ratePerMin: number;
}

/** Options of {@link DuckDuckGoProvider}. */
export interface DuckDuckGoOptions {
  /** Time one page request may take, ms. */
  timeoutMs: number;
  /** Default the global fetch. */
  fetch?: typeof fetch;
  /** Clock of the rate limiter, ms. Default `Date.now`. */
  now?: () => number;
}

/** Result pages one search reads at most (about 10 results each). */
const MAX_PAGES = 3;
/** Requests the limiter lets through back to back before spacing them at `ratePerMin`: one search's pages. */
const BURST = MAX_PAGES;

const BLOCKED_HINT = 'the keyless search is best effort; for dependable search configure SearXNG (TRAWL_SEARXNG_URL) or a Brave API key (TRAWL_BRAVE_API_KEY)';

/**
 * The keyless default: DuckDuckGo's HTML endpoint (`POST {base}/html/` with `q`, `kl`, `df`), read
 * without a DOM library and paged with its "Next" form. Best effort: DuckDuckGo answers bursts with a
 * captcha page (-> `blocked`, saying how to configure a dependable provider), so requests go through a
 * per-instance token bucket (`ratePerMin`) that delays rather than fails. Web results only.
 */
export class DuckDuckGoProvider implements SearchProvider {
  readonly name = 'duckduckgo';
  readonly sources: readonly SearchSource[] = ['web'];
  private readonly fetch: typeof fetch;
  private readonly bucket: TokenBucket;

  constructor(private readonly settings: DuckDuckGoSettings, private readonly opts: DuckDuckGoOptions) {
    this.fetch = opts.fetch ?? globalThis.fetch;
    this.bucket = new TokenBucket({
      ratePerMin: settings.ratePerMin,
      capacity: Math.min(BURST, settings.ratePerMin),
      ...(opts.now ? { now: opts.now } : {}),
    });
  }

  async search(query: SearchQuery): Promise<SearchItems> {
    if (query.source !== 'web') return { source: query.source, items: [] };
    const items: WebSearchItem[] = [];
    const seen = new Set<string>();
    let form: Record<string, string> | undefined = this.firstForm(query);
    for (let page = 0; page < MAX_PAGES && form && items.length < query.limit; page += 1) {
      const parsed = await this.page(form, query.signal);
      if (parsed.kind === 'empty') break;
      for (const item of parsed.items) {
        if (seen.has(item.url)) continue;
        seen.add(item.url);
        const category = categoryOf(item.url, query.categories);
        items.push(category ? { ...item, category } : item);
      }
      // The next form repeats `q`; our region and time window go with every page.
      form = parsed.next ? { ...parsed.next, ...pick(form, ['kl', 'df']) } : undefined;
    }
    return { source: 'web', items: items.slice(0, query.limit) };
  }

  private firstForm(query: SearchQuery): Record<string, string> {
    const form: Record<string, string> = { q: queryWithOperators(query), b: '' };
    const kl = regionOf(query.country, query.lang);
    if (kl) form.kl = kl;
    const df = dateFilterOf(query.tbs);
    if (df) form.df = df;
    return form;
  }

  private async page(form: Record<string, string>, signal: AbortSignal): Promise<Exclude<ReturnType<typeof parseDuckDuckGoPage>, { kind: 'blocked' | 'unknown' }>> {
    try {
      await this.bucket.take(signal);
    } catch (err) {
      throw new SearchProviderError(this.name, 'aborted', 'duckduckgo: the search was cancelled while waiting for the keyless rate limit', { cause: err });
    }
    const url = new URL(`${this.settings.baseUrl.replace(/\/+$/, '')}/html/`);
    const res = await fetchWithDeadline(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: new URLSearchParams(form).toString(),
    }, { provider: this.name, timeoutMs: this.opts.timeoutMs, signal, fetch: this.fetch });
    const status = res.status;
    if (status === 403 || status === 429) {
      throw new SearchProviderError(this.name, 'blocked', `duckduckgo: the keyless endpoint blocked the request (HTTP ${status})${retryAfterPhrase(res.headers)}; ${BLOCKED_HINT}`, { status });
    }
    if (status >= 500) throw new SearchProviderError(this.name, 'unavailable', `duckduckgo: the endpoint answered HTTP ${status}`, { status });
    if (status >= 400) throw new SearchProviderError(this.name, 'refused', `duckduckgo: the endpoint refused the query (HTTP ${status})`, { status });
    const parsed = parseDuckDuckGoPage(res.text);
    if (parsed.kind === 'blocked') {
      throw new SearchProviderError(this.name, 'blocked', `duckduckgo: the keyless endpoint answered a captcha (anomaly) page; ${BLOCKED_HINT}`, { status });
    }
    if (parsed.kind === 'unknown') {
      throw new SearchProviderError(this.name, 'invalid', `duckduckgo: the page layout changed (HTTP ${status}, no result blocks this parser knows); ${BLOCKED_HINT}`, { status });
    }
    return parsed;
  }
}

function pick(form: Record<string, string>, keys: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of keys) if (form[k] !== undefined) out[k] = form[k];
  return out;
}

/** `tbs` -> `df`: `d|w|m|y` (no past hour: a day), or a date range `YYYY-MM-DD..YYYY-MM-DD`. */
export function dateFilterOf(tbs: string | undefined): string | undefined {
  const window = timeWindowOf(tbs);
  if (!window) return undefined;
  if (window.kind === 'range') return `${window.from}..${window.to}`;
  return window.unit === 'h' ? 'd' : window.unit;
}

/** DuckDuckGo's region codes (`kl`): `<country>-<language>` in its own spelling (`uk-en`, `jp-jp`, `wt-wt`). */
const REGIONS = [
  'ar-es', 'au-en', 'at-de', 'be-fr', 'be-nl', 'br-pt', 'bg-bg', 'ca-en', 'ca-fr', 'ct-ca', 'cl-es', 'cn-zh', 'co-es',
  'hr-hr', 'cz-cs', 'dk-da', 'ee-et', 'fi-fi', 'fr-fr', 'de-de', 'gr-el', 'hk-tzh', 'hu-hu', 'in-en', 'id-id', 'id-en',
  'ie-en', 'il-he', 'it-it', 'jp-jp', 'kr-kr', 'lv-lv', 'lt-lt', 'my-ms', 'my-en', 'mx-es', 'nl-nl', 'nz-en', 'no-no',
  'pe-es', 'ph-en', 'ph-tl', 'pl-pl', 'pt-pt', 'ro-ro', 'ru-ru', 'sg-en', 'sk-sk', 'sl-sl', 'za-en', 'es-es', 'se-sv',
  'ch-de', 'ch-fr', 'ch-it', 'tw-tzh', 'th-th', 'tr-tr', 'ua-uk', 'uk-en', 'us-en', 'ue-es', 've-es', 'vn-vi',
];
/** ISO country codes DuckDuckGo spells its own way. */
const COUNTRY_ALIASES: Record<string, string> = { gb: 'uk', si: 'sl' };

/** `country` (+ `lang`) -> `kl`: the region with that language when DuckDuckGo has it, else the country's first region; unknown -> none. */
export function regionOf(country: string | undefined, lang: string | undefined): string | undefined {
  if (!country) return undefined;
  const cc = country.toLowerCase();
  const ddg = COUNTRY_ALIASES[cc] ?? cc;
  const language = lang?.toLowerCase().split(/[-_]/)[0];
  if (language && REGIONS.includes(`${ddg}-${language}`)) return `${ddg}-${language}`;
  return REGIONS.find((r) => r.startsWith(`${ddg}-`));
}
