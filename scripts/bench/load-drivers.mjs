// Load shapes and figures for the load benchmark: one sync scrape as a classified record, closed-loop
// clients, an open-loop schedule, a burst, and the summary of a phase. Not a benchmark itself.
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A sync scrape client. Every call resolves (never throws) to a record: `status` is the HTTP status,
 * or `overdue` when no answer came within the request's timeout + the server's grace + `marginMs`,
 * or `conn-error` when the connection failed.
 */
export function scrapeClient({ apiUrl, timeoutMs, graceMs, marginMs }) {
  return async function scrape(key, url) {
    const t0 = performance.now();
    const body = JSON.stringify({ url, formats: ['markdown'], maxAge: 0, timeout: timeoutMs });
    try {
      const res = await fetch(`${apiUrl}/v2/scrape`, {
        method: 'POST', body,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        signal: AbortSignal.timeout(timeoutMs + graceMs + marginMs),
      });
      const text = await res.text();
      const ms = performance.now() - t0;
      let json = null;
      try { json = JSON.parse(text); } catch { /* reported below as a body that is not JSON */ }
      if (res.status === 200) {
        const meta = json?.data?.metadata ?? {};
        return {
          status: 200, ms, at: t0,
          wellFormed: json?.success === true && typeof json.data?.markdown === 'string',
          limited: meta.concurrencyLimited === true,
          queueMs: typeof meta.concurrencyQueueDurationMs === 'number' ? meta.concurrencyQueueDurationMs : 0,
        };
      }
      return {
        status: res.status, ms, at: t0,
        code: json?.code, retryAfter: res.headers.get('retry-after'),
        // The documented error body: {success: false, error, code}.
        wellFormed: json?.success === false && typeof json.error === 'string' && typeof json.code === 'string',
        ...(res.status >= 500 || !json ? { body: text.slice(0, 500) } : {}),
      };
    } catch (err) {
      const ms = performance.now() - t0;
      if (err.name === 'TimeoutError') return { status: 'overdue', ms, at: t0 };
      return { status: 'conn-error', ms, at: t0, error: String(err.cause?.code ?? err.message) };
    }
  };
}

/** `clients` loops, each sending its next request when the last one answered, until time or count runs out. */
export async function closedLoop({ clients, seconds, maxRequests, send }) {
  const results = [];
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  let issued = 0;
  await Promise.all(Array.from({ length: clients }, async () => {
    while (performance.now() < end && issued < maxRequests) {
      const i = issued++;
      results.push(await send(i));
    }
  }));
  return { results, wallMs: performance.now() - t0 };
}

/** Requests at a fixed rate whatever the answers (clients that do not wait), then waits for all. */
export async function openLoop({ ratePerSec, seconds, maxRequests, send }) {
  const n = Math.min(maxRequests, Math.round(ratePerSec * seconds));
  const t0 = performance.now();
  const pending = [];
  for (let i = 0; i < n; i++) {
    const wait = t0 + (i * 1000) / ratePerSec - performance.now();
    if (wait > 0) await sleep(wait);
    pending.push(send(i));
  }
  const results = await Promise.all(pending);
  return { results, wallMs: performance.now() - t0 };
}

/** `n` requests sent at once. */
export async function burst({ n, send }) {
  const t0 = performance.now();
  const results = await Promise.all(Array.from({ length: n }, (_, i) => send(i)));
  return { results, wallMs: performance.now() - t0 };
}

/** Quantile `p` (0..1) of numbers, nearest rank; NaN when empty. */
export function quantile(values, p) {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
}

export const median = (values) => quantile(values, 0.5);

/** The figures of one phase. `baselineP50` is the direct-fetch p50 at the same client count. */
export function summarize({ results, wallMs }, { baselineP50 } = {}) {
  const statuses = {};
  for (const r of results) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
  const ok = results.filter((r) => r.status === 200);
  const rejected = results.filter((r) => r.status === 429);
  const limited = ok.filter((r) => r.limited);
  const okMs = ok.map((r) => r.ms);
  const waits = limited.map((r) => r.queueMs);
  return {
    requests: results.length,
    statuses,
    wallSec: wallMs / 1000,
    reqPerSec: results.length / (wallMs / 1000),
    okPerSec: ok.length / (wallMs / 1000),
    ok: { count: ok.length, p50: quantile(okMs, 0.5), p95: quantile(okMs, 0.95), p99: quantile(okMs, 0.99), max: Math.max(...okMs, NaN) },
    p50VsBaseline: baselineP50 ? quantile(okMs, 0.5) / baselineP50 : undefined,
    rejected: { count: rejected.length, p50: quantile(rejected.map((r) => r.ms), 0.5), p95: quantile(rejected.map((r) => r.ms), 0.95) },
    limitedShare: ok.length ? limited.length / ok.length : 0,
    queueMs: { p50: quantile(waits, 0.5), p95: quantile(waits, 0.95), mean: ok.length ? ok.reduce((a, r) => a + r.queueMs, 0) / ok.length : NaN },
    // Time from slot to answer of the limited ones: should look like an unlimited scrape's latency.
    afterSlotP50: quantile(limited.map((r) => r.ms - r.queueMs), 0.5),
    // A wait longer than the whole request as the client saw it cannot be right.
    waitLongerThanLatency: limited.filter((r) => r.queueMs > r.ms).length,
    malformed: results.filter((r) => typeof r.status === 'number' && !r.wellFormed).length,
    serverErrors: results.filter((r) => typeof r.status === 'number' && r.status >= 500).length,
    connErrors: results.filter((r) => r.status === 'conn-error').length,
    overdue: results.filter((r) => r.status === 'overdue').length,
    samples5xx: results.filter((r) => typeof r.status !== 'number' || r.status >= 500).slice(0, 5),
  };
}
