/**
 * Resolves `href` against `base` to an absolute URL string.
 *
 * Returns the trimmed input unchanged when there is no base or it cannot be resolved (so a broken base
 * never drops a link), and `null` for an empty href. Already absolute http(s) URLs skip the (comparatively
 * slow) WHATWG parser.
 */
export function resolveUrl(href: string, base: URL | null): string | null {
  const trimmed = href.trim();
  if (trimmed === '') return null;
  if (base === null) return trimmed;
  if (/^https?:\/\/[^\s]*$/i.test(trimmed) && !trimmed.includes('\\')) return trimmed;
  try {
    return new URL(trimmed, base).href;
  } catch {
    return trimmed;
  }
}

/** Parses a base URL, returning `null` when it is absent or invalid. */
export function parseBaseUrl(base: string | undefined | null, fallback?: URL | null): URL | null {
  if (base === undefined || base === null || base.trim() === '') return fallback ?? null;
  try {
    return fallback ? new URL(base.trim(), fallback) : new URL(base.trim());
  } catch {
    return fallback ?? null;
  }
}
