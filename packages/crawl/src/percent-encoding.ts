/** Characters RFC 3986 calls unreserved: percent-encoding them changes nothing, so they are decoded. */
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;
const ESCAPE = /%([0-9A-Fa-f]{2})/g;

/**
 * Normalises percent-encoding as RFC 3986 section 6.2.2.2 allows without changing what a URL means:
 * escapes of unreserved characters are decoded (`%7E` -> `~`, `%41` -> `A`) and every other escape gets
 * uppercase hex digits (`%c3%a9` -> `%C3%A9`). A `%` not followed by two hex digits is left alone, and
 * reserved characters (`%2F`, `%3F`, `%2B`...) stay encoded: decoding them would change the path or query.
 */
export function normalizePercentEncoding(text: string): string {
  if (!text.includes('%')) return text;
  return text.replace(ESCAPE, (_match, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
  });
}

/** Characters that never appear raw in a URL as the WHATWG parser serialises a path or query. */
const UNSAFE = /[^\x21-\x7E]|["<>`{}]/u;

/**
 * Percent-encodes (UTF-8, uppercase hex) every character outside printable ASCII and the few printable
 * ones a parsed URL never carries raw, then applies {@link normalizePercentEncoding}. Used on robots.txt
 * patterns and on the paths they are compared with, so `/café`, `/caf%c3%a9` and `/caf%C3%A9` agree.
 */
export function encodeForComparison(text: string): string {
  let out = '';
  for (const char of text) {
    if (!UNSAFE.test(char)) {
      out += char;
      continue;
    }
    try {
      out += encodeURIComponent(char);
    } catch {
      // A lone surrogate cannot be UTF-8 encoded; the WHATWG parser writes U+FFFD in its place.
      out += '%EF%BF%BD';
    }
  }
  return normalizePercentEncoding(out);
}
