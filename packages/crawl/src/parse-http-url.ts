/**
 * Longest URL accepted (characters), before and after canonicalisation. Browsers and servers commonly
 * stop at 8 KB; longer "links" are data: blobs or crawler traps, and capping them bounds the work of every
 * regex a user pattern runs on a URL.
 */
export const MAX_URL_LENGTH = 8192;

/** Result of {@link parseHttpUrl}. */
export type ParsedHttpUrl = { ok: true; url: URL } | { ok: false; reason: 'invalid' | 'scheme' };

/**
 * Parses an absolute URL and keeps it only when it is http(s). `invalid`: empty, longer than
 * {@link MAX_URL_LENGTH}, relative or unparsable; `scheme`: parsed fine but `mailto:`, `javascript:`,
 * `ftp:`, `data:`... The WHATWG parser lowercases the scheme and host, punycodes IDN hosts, drops default
 * ports, resolves dot segments and percent-encodes what must be.
 */
export function parseHttpUrl(input: string): ParsedHttpUrl {
  if (typeof input !== 'string' || input.length === 0 || input.length > MAX_URL_LENGTH) {
    return { ok: false, reason: 'invalid' };
  }
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return { ok: false, reason: 'invalid' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: 'scheme' };
  if (url.hostname === '') return { ok: false, reason: 'invalid' };
  return { ok: true, url };
}
