/** Keys never taken from a `<meta>` tag: object internals (prototype pollution) and fields set elsewhere. */
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

/** Metadata fields computed from dedicated sources (or by the scraper); `<meta>` tags cannot overwrite them. */
export const RESERVED_KEYS: ReadonlySet<string> = new Set([
  'title', 'description', 'keywords', 'language', 'favicon', 'ogLocaleAlternate', 'sourceURL', 'url',
  'statusCode', 'contentType', 'error', 'scrapeId', 'proxyUsed', 'cacheState', 'cachedAt', 'creditsUsed',
  'timezone', 'numPages', 'totalPages', 'concurrencyLimited', 'concurrencyQueueDurationMs',
]);

/** Firecrawl's named fields for article:* properties (also kept under their raw names). */
const ARTICLE_ALIASES: Readonly<Record<string, string>> = {
  'article:published_time': 'publishedTime',
  'article:modified_time': 'modifiedTime',
  'article:tag': 'articleTag',
  'article:section': 'articleSection',
};

function camel(prefix: string, rest: string): string {
  const parts = rest.split(/[:._-]+/).filter((p) => p !== '');
  return prefix + parts.map((p) => p.charAt(0).toUpperCase() + p.slice(1).toLowerCase()).join('');
}

/**
 * Output keys for a `<meta>` name/property/itemprop, Firecrawl style:
 * - Open Graph `og:*` becomes camelCase only: `og:title` -> `ogTitle`, `og:site_name` -> `ogSiteName`,
 *   `og:image:width` -> `ogImageWidth`, `og:locale:alternate` -> `ogLocaleAlternate`.
 * - Dublin Core `dc.*` / `dcterms.*` (any case) becomes camelCase only: `DC.date.created` -> `dcDateCreated`,
 *   `dcterms.created` -> `dcTermsCreated`.
 * - `article:published_time`/`modified_time`/`tag`/`section` are kept as given and also reported as
 *   Firecrawl's `publishedTime`/`modifiedTime`/`articleTag`/`articleSection`.
 * - Anything else (`twitter:card`, `viewport`, `author`, `robots`, ...) is kept exactly as given.
 * Returns [] for keys that must be ignored (prototype internals, reserved fields, empty names).
 */
export function metaKeys(rawName: string): string[] {
  const name = rawName.trim();
  if (name === '' || FORBIDDEN.has(name)) return [];
  const lower = name.toLowerCase();
  let keys: string[];
  if (lower.startsWith('og:')) keys = [camel('og', name.slice(3))];
  else if (lower.startsWith('dcterms.')) keys = [camel('dcTerms', name.slice(8))];
  else if (lower.startsWith('dc.')) keys = [camel('dc', name.slice(3))];
  else {
    const alias = ARTICLE_ALIASES[lower];
    keys = alias === undefined ? [name] : [name, alias];
  }
  return keys.filter((k) => !FORBIDDEN.has(k) && (!RESERVED_KEYS.has(k) || k === 'ogLocaleAlternate'));
}
