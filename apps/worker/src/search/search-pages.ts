import { searchRequestSchema, type SearchRequest } from '@trawl/api-schema';

/** What the extract and monitor steps need of the search runner (`SearchRunner` fits it). */
export interface WebSearch {
  run(req: { teamId: string; request: SearchRequest; signal: AbortSignal; zeroDataRetention: boolean }): Promise<{
    data: { web?: unknown[] };
    creditsUsed: number;
    warning?: string;
  }>;
}

/** One web search whose result URLs become pages to scrape. */
export interface SearchPagesQuery {
  teamId: string;
  query: string;
  /** Most results. */
  limit: number;
  tbs?: string;
  includeDomains?: readonly string[];
  excludeDomains?: readonly string[];
  signal: AbortSignal;
  zeroDataRetention: boolean;
  /** Deadline of the search, ms. */
  timeoutMs?: number;
}

export interface SearchPages {
  /** The result URLs (http and https only), in rank order, each once. */
  urls: string[];
  creditsUsed: number;
  warning?: string;
}

/**
 * Runs one web search without scraping and keeps the result URLs. The runner enforces the domain
 * filters; both lists at once (a monitor target may give both, the search request may not) pass the
 * include list and drop excluded hosts here.
 */
export async function searchPages(search: WebSearch, q: SearchPagesQuery): Promise<SearchPages> {
  const include = q.includeDomains?.length ? [...q.includeDomains] : undefined;
  const exclude = q.excludeDomains?.length ? [...q.excludeDomains] : undefined;
  const request = searchRequestSchema.parse({
    query: q.query.slice(0, 500),
    limit: Math.max(1, Math.min(100, q.limit)),
    sources: ['web'],
    ...(q.tbs !== undefined ? { tbs: q.tbs } : {}),
    ...(include ? { includeDomains: include } : exclude ? { excludeDomains: exclude } : {}),
    ...(q.timeoutMs !== undefined ? { timeout: Math.max(1_000, Math.min(300_000, q.timeoutMs)) } : {}),
    zeroDataRetention: q.zeroDataRetention,
  });
  const result = await search.run({ teamId: q.teamId, request, signal: q.signal, zeroDataRetention: q.zeroDataRetention });
  const excluded = include && exclude ? new Set(exclude.map((d) => d.toLowerCase().replace(/^www\./, ''))) : null;
  const urls: string[] = [];
  for (const item of result.data.web ?? []) {
    const raw = item !== null && typeof item === 'object' ? (item as { url?: unknown }).url : undefined;
    if (typeof raw !== 'string') continue;
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      continue;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
    if (excluded && hostMatches(url.hostname, excluded)) continue;
    if (!urls.includes(url.href)) urls.push(url.href);
    if (urls.length >= q.limit) break;
  }
  return { urls, creditsUsed: result.creditsUsed, ...(result.warning !== undefined ? { warning: result.warning } : {}) };
}

/** The host is one of the domains or below one. */
function hostMatches(hostname: string, domains: ReadonlySet<string>): boolean {
  const host = hostname.toLowerCase().replace(/^www\./, '');
  for (const d of domains) if (host === d || host.endsWith(`.${d}`)) return true;
  return false;
}

/** A monitor target's `searchWindow` as a search `tbs` (`qdr:` covers hours at the finest: minutes round up to the hour). */
export function searchWindowTbs(window: '5m' | '15m' | '1h' | '6h' | '24h' | '7d' | undefined): string | undefined {
  if (window === undefined) return undefined;
  if (window === '7d') return 'qdr:w';
  if (window === '24h' || window === '6h') return 'qdr:d';
  return 'qdr:h';
}
