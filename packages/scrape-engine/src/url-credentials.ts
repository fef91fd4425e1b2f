/** A target URL split into the URL to request and the credentials its userinfo held. */
export interface UrlCredentials {
  /** The URL without userinfo: what is requested, navigated to and reported. */
  url: URL;
  /** Decoded `user:password` of the URL, when it had any; valid for `url.origin` only. */
  credentials?: { username: string; password: string };
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/**
 * Splits `http://user:pass@host/` as a browser reads it: the credentials authenticate to that origin
 * (HTTP Basic), and the request line and every reported URL carry no userinfo.
 */
export function splitUrlCredentials(url: URL): UrlCredentials {
  if (url.username === '' && url.password === '') return { url };
  const bare = new URL(url.href);
  bare.username = '';
  bare.password = '';
  return { url: bare, credentials: { username: decode(url.username), password: decode(url.password) } };
}

/** The `Authorization` header value of HTTP Basic auth for these credentials (UTF-8, RFC 7617). */
export function basicAuthorization(credentials: { username: string; password: string }): string {
  return `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`, 'utf8').toString('base64')}`;
}
