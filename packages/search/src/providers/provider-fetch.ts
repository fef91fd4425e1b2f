import { SearchProviderError } from '../provider.js';

/** Options of {@link fetchWithDeadline}. */
export interface FetchWithDeadlineOptions {
  /** Provider name, for errors. */
  provider: string;
  /** Time the request (headers and body) may take, ms. */
  timeoutMs: number;
  /** The caller's deadline and cancellation. */
  signal: AbortSignal;
  /** The fetch to use (tests and proxies swap it). */
  fetch: typeof fetch;
}

/** An answer read whole within the deadline. */
export interface FetchedText {
  status: number;
  headers: Headers;
  text: string;
}

/**
 * One provider request, answer read whole, under both the caller's signal and the provider timeout.
 * Failures become {@link SearchProviderError}: the caller's signal -> `aborted`, the timeout -> `timeout`,
 * anything the network throws -> `unavailable`. HTTP statuses are the caller's to judge.
 */
export async function fetchWithDeadline(url: URL, init: RequestInit, opts: FetchWithDeadlineOptions): Promise<FetchedText> {
  const { provider, signal } = opts;
  const timer = new AbortController();
  // A timer we clear ourselves (not AbortSignal.timeout) so a finished request leaves nothing armed.
  const handle = setTimeout(() => timer.abort(new Error('provider timeout')), opts.timeoutMs);
  const combined = AbortSignal.any([signal, timer.signal]);
  try {
    if (signal.aborted) throw signal.reason;
    const res = await opts.fetch(url, { ...init, signal: combined });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text };
  } catch (err) {
    if (signal.aborted) throw new SearchProviderError(provider, 'aborted', `${provider}: the search was cancelled`, { cause: err });
    if (timer.signal.aborted) {
      throw new SearchProviderError(provider, 'timeout', `${provider}: no answer within ${opts.timeoutMs} ms`, { cause: err });
    }
    throw new SearchProviderError(provider, 'unavailable', `${provider}: request failed (${networkReason(err)})`, { cause: err });
  } finally {
    clearTimeout(handle);
  }
}

/** The most telling part of a fetch failure (undici puts the socket error in `cause`). */
function networkReason(err: unknown): string {
  const cause = err instanceof Error ? err.cause : undefined;
  const code = cause && typeof cause === 'object' && 'code' in cause ? String((cause as { code: unknown }).code) : undefined;
  const message = err instanceof Error ? err.message : String(err);
  return code ? `${message}: ${code}` : message;
}

/** `Retry-After` as a phrase for an error message (`retry after 30 s`), or '' when absent. */
export function retryAfterPhrase(headers: Headers): string {
  const value = headers.get('retry-after')?.trim();
  if (!value) return '';
  return /^\d+$/.test(value) ? `; retry after ${value} s` : `; retry after ${value}`;
}
