/**
 * The search back-end contract. Each provider is one file (`providers/<name>.ts`) speaking one real
 * protocol (SearXNG's JSON API, a keyed search API, the keyless default); the worker's search runner
 * depends only on {@link SearchProvider}, so tests run the production providers against local servers
 * speaking the same protocols.
 */

/** A result list a search can ask for. */
export type SearchSource = 'web' | 'news' | 'images';

/** Result categories that narrow a web search. */
export type SearchCategory = 'github' | 'research' | 'pdf';

/** One query to one provider, for one source. */
export interface SearchQuery {
  query: string;
  source: SearchSource;
  /** Results wanted (1..100); a provider pages until it has them or runs out. */
  limit: number;
  /** `qdr:h|d|w|m|y`, `cdr:1,cd_min:MM/DD/YYYY,cd_max:MM/DD/YYYY`, `sbd:1`. */
  tbs?: string;
  /** Language, e.g. `en`. */
  lang?: string;
  /** Country, ISO 3166-1 alpha-2 lower case, e.g. `us`. */
  country?: string;
  /** Free-text location, e.g. `Berlin,Germany`. */
  location?: string;
  categories?: readonly SearchCategory[];
  /** Hostnames to keep (mutually exclusive with `excludeDomains`); the runner filters results again. */
  includeDomains?: readonly string[];
  excludeDomains?: readonly string[];
  /** The search's deadline and cancellation. */
  signal: AbortSignal;
}

/** A web result. */
export interface WebSearchItem {
  url: string;
  title: string;
  description: string;
  /** `github`, `research`, `pdf` when a category asked for it. */
  category?: string;
}

/** A news result. */
export interface NewsSearchItem {
  url: string;
  title: string;
  snippet: string;
  /** As the provider gives it (ISO when known). */
  date?: string;
  imageUrl?: string;
}

/** An image result. */
export interface ImageSearchItem {
  /** The page the image is on. */
  url: string;
  title: string;
  imageUrl: string;
  imageWidth?: number;
  imageHeight?: number;
}

/** What a provider answers for one query, by its source. */
export type SearchItems =
  | { source: 'web'; items: WebSearchItem[] }
  | { source: 'news'; items: NewsSearchItem[] }
  | { source: 'images'; items: ImageSearchItem[] };

/** A search back-end. */
export interface SearchProvider {
  /** Fixed lowercase name (`searxng`, `brave`, `duckduckgo`): metrics label, error details, settings. */
  readonly name: string;
  /** Sources it can answer; the runner answers the others with an empty list and a warning. */
  readonly sources: readonly SearchSource[];
  /** Results in the provider's rank order; an empty list when there are none (never an error). */
  search(query: SearchQuery): Promise<SearchItems>;
}

/** Why a provider failed: `unavailable` (network, 5xx), `blocked` (captcha, 403/429 of a keyless endpoint), `refused` (4xx: bad key, bad query), `timeout`, `aborted` (the caller's signal), `invalid` (an answer it cannot read). */
export type SearchProviderErrorKind = 'unavailable' | 'blocked' | 'refused' | 'timeout' | 'aborted' | 'invalid';

/** A failed provider call; the message names the provider and what it answered, never a key. */
export class SearchProviderError extends Error {
  readonly provider: string;
  readonly kind: SearchProviderErrorKind;
  readonly status?: number;
  constructor(provider: string, kind: SearchProviderErrorKind, message: string, opts: { status?: number; cause?: unknown } = {}) {
    super(message, { cause: opts.cause });
    this.name = 'SearchProviderError';
    this.provider = provider;
    this.kind = kind;
    if (opts.status !== undefined) this.status = opts.status;
  }
}
