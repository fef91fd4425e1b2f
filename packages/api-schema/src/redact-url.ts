/**
 * A URL safe to log or return: its password removed (`http://user:pass@host/` -> `http://user@host/`).
 * Credentials in a target URL are sent as HTTP Basic auth and must never reach logs, documents or
 * webhooks. Text that is not an absolute URL is returned unchanged when it holds no `@`, else with
 * everything between `//` and `@` replaced, so a malformed URL cannot leak a password either.
 */
export function redactUrl(url: string): string {
  if (!url.includes('@')) return url;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url.replace(/\/\/[^/?#]*@/g, '//[redacted]@');
  }
  if (parsed.password === '') return url;
  parsed.password = '';
  return parsed.href;
}
