/**
 * Options the official SDKs send that this server accepts but does not act on. They are never dropped
 * silently: the answer carries a `warning` naming each one (the Document's `warning` for a scrape, the
 * response's `warning` for crawl, batch and map starts).
 *
 * `__experimental_*` keys are the SDKs' namespace for unreleased options; the strict schemas have no
 * place for a key pattern, so {@link splitExperimentalKeys} takes them out of a copy of the body first.
 */

/** Scrape-option keys accepted and ignored. */
const IGNORED_SCRAPE_KEYS = ['fastMode', 'useMock', 'domainTools', 'toolDetail'] as const;
/** Keys of a pdf parser accepted and ignored. */
const IGNORED_PDF_PARSER_KEYS = ['blocks', 'pageMarkers'] as const;
/** Keys of `threatProtection` accepted and ignored. */
const IGNORED_THREAT_KEYS = ['mode', 'failurePolicy'] as const;
/** Keys of a `json` format accepted and ignored. */
const IGNORED_JSON_FORMAT_KEYS = ['checkPromptInjection'] as const;
/** Map keys accepted and ignored (v1 SDK options). */
const IGNORED_MAP_KEYS = ['useIndex', 'ignoreCache'] as const;
/** Search keys accepted and ignored (4.x SDK options). */
const IGNORED_SEARCH_KEYS = ['highlights', 'domainTools', 'toolDetail'] as const;
/**
 * Search sources only the hosted service has (the official MCP server asks for `alexandria` by
 * default): dropped from `sources` (web stays when nothing else is left) and named in the warning.
 */
export const HOSTED_ONLY_SEARCH_SOURCES: ReadonlySet<string> = new Set(['alexandria', 'exchange']);

/** The type of a `sources` entry (`"web"` or `{type: "web"}`), or undefined. */
export function searchSourceTypeOf(entry: unknown): string | undefined {
  if (typeof entry === 'string') return entry;
  return isRecord(entry) && typeof entry.type === 'string' ? entry.type : undefined;
}

/** Where the scrape options sit in each body kind. */
const SCRAPE_OPTION_PATHS = {
  scrape: [''],
  batch: [''],
  parse: [''],
  crawl: ['scrapeOptions'],
  extract: ['scrapeOptions'],
  map: [],
  search: ['scrapeOptions'],
} as const satisfies Record<string, readonly string[]>;

/** A request body kind, for {@link ignoredOptionsOf}. */
export type IgnorableBodyKind = keyof typeof SCRAPE_OPTION_PATHS;

const EXPERIMENTAL_PREFIX = '__experimental_';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function withoutExperimental(value: Record<string, unknown>, prefix: string, found: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (key.startsWith(EXPERIMENTAL_PREFIX)) found.push(`${prefix}${key}`);
    else out[key] = v;
  }
  return out;
}

/**
 * A copy of `body` without its `__experimental_*` keys (top level and inside `scrapeOptions`), and
 * their paths. The input is not changed; anything but an object is returned as it is.
 */
export function splitExperimentalKeys(body: unknown): { body: unknown; keys: string[] } {
  if (!isRecord(body)) return { body, keys: [] };
  const keys: string[] = [];
  const out = withoutExperimental(body, '', keys);
  if (isRecord(out.scrapeOptions)) out.scrapeOptions = withoutExperimental(out.scrapeOptions, 'scrapeOptions.', keys);
  return { body: out, keys };
}

function present(obj: Record<string, unknown>, keys: readonly string[], prefix: string): string[] {
  return keys.filter((k) => obj[k] !== undefined).map((k) => `${prefix}${k}`);
}

function ignoredScrapeOptions(options: Record<string, unknown>, prefix: string): string[] {
  const out = present(options, IGNORED_SCRAPE_KEYS, prefix);
  if (Array.isArray(options.formats)) {
    options.formats.forEach((f, i) => {
      if (isRecord(f) && f.type === 'json') out.push(...present(f, IGNORED_JSON_FORMAT_KEYS, `${prefix}formats[${i}].`));
    });
  }
  if (Array.isArray(options.parsers)) {
    options.parsers.forEach((p, i) => {
      if (p === 'image' || (isRecord(p) && p.type === 'image')) out.push(`${prefix}parsers[${i}] (image)`);
      else if (isRecord(p)) out.push(...present(p, IGNORED_PDF_PARSER_KEYS, `${prefix}parsers[${i}].`));
    });
  }
  if (isRecord(options.threatProtection)) out.push(...present(options.threatProtection, IGNORED_THREAT_KEYS, `${prefix}threatProtection.`));
  return out;
}

/**
 * The accepted-but-ignored options present in a body that passed validation, as paths
 * (`fastMode`, `scrapeOptions.parsers[0].blocks`, `useIndex`).
 * @param body the body as sent (after {@link splitExperimentalKeys}); reads only, never changes it.
 */
export function ignoredOptionsOf(kind: IgnorableBodyKind, body: unknown): string[] {
  if (!isRecord(body)) return [];
  const out: string[] = [];
  for (const path of SCRAPE_OPTION_PATHS[kind] as readonly string[]) {
    const options = path === '' ? body : body[path];
    if (isRecord(options)) out.push(...ignoredScrapeOptions(options, path === '' ? '' : `${path}.`));
  }
  if (kind === 'map') out.push(...present(body, IGNORED_MAP_KEYS, ''));
  if (kind === 'search') {
    out.push(...present(body, IGNORED_SEARCH_KEYS, ''));
    if (Array.isArray(body.sources)) {
      body.sources.forEach((entry, i) => {
        const type = searchSourceTypeOf(entry);
        if (type !== undefined && HOSTED_ONLY_SEARCH_SOURCES.has(type)) out.push(`sources[${i}] (${type})`);
      });
    }
  }
  return out;
}

/** The `warning` text naming ignored options, or undefined when there are none. */
export function ignoredOptionsWarning(paths: readonly string[]): string | undefined {
  if (paths.length === 0) return undefined;
  return `These options are accepted for compatibility and ignored by this server: ${paths.join(', ')}`;
}

/** Appends a sentence to an optional warning (warnings are one string). */
export function joinWarnings(...warnings: ReadonlyArray<string | undefined>): string | undefined {
  const parts = warnings.filter((w): w is string => w !== undefined && w !== '');
  return parts.length === 0 ? undefined : parts.join('. ');
}
