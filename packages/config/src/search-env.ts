import { z } from 'zod';
import { envBaseUrl, envInt, envList, envOptionalString } from './env-fields.js';

/** The search back-ends; `none` turns search off (400 UNSUPPORTED_OPTION). */
export const SEARCH_PROVIDERS = ['searxng', 'brave', 'duckduckgo', 'none'] as const;
export type SearchProviderName = (typeof SEARCH_PROVIDERS)[number];

/**
 * Search settings, read by the API (is search served?) and the workers (who query the provider). The
 * other self-hosted system's names are read as aliases: `SEARXNG_ENDPOINT`, `SEARXNG_ENGINES`,
 * `SEARXNG_CATEGORIES`, `BRAVE_API_KEY`.
 */
export const searchEnv = {
  /** `searxng`, `brave`, `duckduckgo` or `none`. Unset: SearXNG when its URL is set, else Brave when its key is, else the keyless default (`duckduckgo`). */
  TRAWL_SEARCH_PROVIDER: z.preprocess((v) => (v === '' ? undefined : v), z.enum(SEARCH_PROVIDERS).optional()),
  /** Base URL of a SearXNG instance (its JSON format on), e.g. `http://searxng:8080`. */
  TRAWL_SEARXNG_URL: envBaseUrl(),
  SEARXNG_ENDPOINT: envBaseUrl(),
  /** SearXNG engines to ask (comma separated); default the instance's. */
  SEARXNG_ENGINES: envList(),
  /** SearXNG categories of a web search (comma separated); default `general`. */
  SEARXNG_CATEGORIES: envList(),
  /** Brave Search API subscription token. */
  TRAWL_BRAVE_API_KEY: envOptionalString(),
  BRAVE_API_KEY: envOptionalString(),
  /** Base URL of the Brave Search API (tests point it at a local server). Default `https://api.search.brave.com/res/v1`. */
  TRAWL_BRAVE_BASE_URL: envBaseUrl(),
  /** Base URL of the keyless endpoint (tests point it at a local server). Default `https://html.duckduckgo.com`. */
  TRAWL_DUCKDUCKGO_BASE_URL: envBaseUrl(),
  /** Time one provider request may take, ms. Default 10000. */
  TRAWL_SEARCH_PROVIDER_TIMEOUT_MS: envInt(10_000, { min: 100 }),
  /** Queries per minute this process sends the keyless endpoint (it blocks bursts). Default 20. */
  TRAWL_SEARCH_KEYLESS_RATE_PER_MIN: envInt(20, { min: 1 }),
};

/** Resolved search settings. */
export interface SearchEnvSettings {
  provider: Exclude<SearchProviderName, 'none'> | 'none';
  searxng?: { baseUrl: string; engines: string[]; categories: string[] };
  brave?: { apiKey: string; baseUrl: string };
  duckduckgo: { baseUrl: string; ratePerMin: number };
  timeoutMs: number;
}

type SearchEnv = z.output<ReturnType<typeof z.object<typeof searchEnv>>>;

/**
 * Resolves which provider serves search and its settings.
 * @throws Error when the named provider lacks its setting (searxng without a URL, brave without a key).
 */
export function searchSettingsOf(env: SearchEnv): SearchEnvSettings {
  const searxngUrl = env.TRAWL_SEARXNG_URL ?? env.SEARXNG_ENDPOINT;
  const braveKey = env.TRAWL_BRAVE_API_KEY ?? env.BRAVE_API_KEY;
  const provider = env.TRAWL_SEARCH_PROVIDER ?? (searxngUrl ? 'searxng' : braveKey ? 'brave' : 'duckduckgo');
  if (provider === 'searxng' && !searxngUrl) throw new Error('TRAWL_SEARXNG_URL: TRAWL_SEARCH_PROVIDER=searxng needs the URL of a SearXNG instance');
  if (provider === 'brave' && !braveKey) throw new Error('TRAWL_BRAVE_API_KEY: TRAWL_SEARCH_PROVIDER=brave needs a Brave Search API key');
  return {
    provider,
    ...(searxngUrl ? { searxng: { baseUrl: searxngUrl, engines: env.SEARXNG_ENGINES, categories: env.SEARXNG_CATEGORIES } } : {}),
    ...(braveKey ? { brave: { apiKey: braveKey, baseUrl: env.TRAWL_BRAVE_BASE_URL ?? 'https://api.search.brave.com/res/v1' } } : {}),
    duckduckgo: { baseUrl: env.TRAWL_DUCKDUCKGO_BASE_URL ?? 'https://html.duckduckgo.com', ratePerMin: env.TRAWL_SEARCH_KEYLESS_RATE_PER_MIN },
    timeoutMs: env.TRAWL_SEARCH_PROVIDER_TIMEOUT_MS,
  };
}
