import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './listen.js';
import { waitOrGone } from './wait-or-gone.js';

/** One request the fake received, in arrival order. */
export interface FakeBraveRequest {
  /** `web`, `news` or `images` (from `/res/v1/<source>/search`), or the path when unknown. */
  source: string;
  /** Query parameters as sent. */
  params: Record<string, string>;
  /** The `X-Subscription-Token` header, when sent. */
  token?: string;
}

/**
 * - `ok`: answers from the generated result set; a wrong token gets 401;
 * - `down`: 503; `blocked`: 429 with `Retry-After: 7` (the plan's rate limit);
 * - `slow`: waits `delayMs` before answering (ends early when the client goes away).
 */
export type FakeBraveMode = 'ok' | 'down' | 'slow' | 'blocked';

/** Options of {@link startFakeBrave}. */
export interface FakeBraveOptions {
  /** The token it accepts. Default `test-brave-key`. */
  apiKey?: string;
  /** Results a query has, per source. Default 45. A query containing `nothing` has none. */
  total?: number;
  mode?: FakeBraveMode;
  /** `slow`: ms. Default 30 000. */
  delayMs?: number;
}

/** A running fake; see {@link startFakeBrave}. */
export interface FakeBraveServer {
  /** `http://127.0.0.1:<port>/res/v1`: the base URL to configure. */
  baseUrl: string;
  requests: FakeBraveRequest[];
  setMode(mode: FakeBraveMode): void;
  close(): Promise<void>;
}

/**
 * A local server speaking the Brave Search API's shapes (`GET /res/v1/web/search`, `/news/search`,
 * `/images/search`; `count`/`offset` paging where `offset` is a page index; Brave's error body).
 * Result `i` (0-based) of query `q` is `https://site<i>.example/<slug of q>/<i>`; web titles carry Brave's
 * `<strong>` marks and entities.
 */
export async function startFakeBrave(opts: FakeBraveOptions = {}): Promise<FakeBraveServer> {
  let mode: FakeBraveMode = opts.mode ?? 'ok';
  const apiKey = opts.apiKey ?? 'test-brave-key';
  const requests: FakeBraveRequest[] = [];

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const m = /^\/res\/v1\/(web|news|images)\/search$/.exec(url.pathname);
    const token = req.headers['x-subscription-token'];
    const request: FakeBraveRequest = { source: m?.[1] ?? url.pathname, params: Object.fromEntries(url.searchParams) };
    if (typeof token === 'string') request.token = token;
    requests.push(request);
    if (mode === 'down') return sendJson(res, 503, { type: 'ErrorResponse', error: { status: 503, code: 'UNAVAILABLE', detail: 'Service unavailable' } });
    if (mode === 'blocked') {
      return sendJson(res, 429, { type: 'ErrorResponse', error: { status: 429, code: 'RATE_LIMITED', detail: 'Request rate limit exceeded for plan.' } }, { 'retry-after': '7' });
    }
    if (mode === 'slow' && (await waitOrGone(res, opts.delayMs ?? 30_000))) return;
    if (!m) return sendJson(res, 404, { type: 'ErrorResponse', error: { status: 404, code: 'NOT_FOUND', detail: 'Not found' } });
    if (token !== apiKey) {
      return sendJson(res, 401, { type: 'ErrorResponse', error: { status: 401, code: 'SUBSCRIPTION_TOKEN_INVALID', detail: `The provided subscription token ${String(token)} is invalid.` } });
    }
    const q = url.searchParams.get('q') ?? '';
    if (q.trim() === '') return sendJson(res, 422, { type: 'ErrorResponse', error: { status: 422, code: 'VALIDATION', detail: 'Unable to validate request parameter(s)' } });
    const source = m[1]!;
    const count = Number(url.searchParams.get('count') ?? (source === 'images' ? 50 : 20));
    const offset = Number(url.searchParams.get('offset') ?? 0);
    const total = q.includes('nothing') ? 0 : (opts.total ?? 45);
    const from = source === 'images' ? 0 : offset * count;
    const indexes = Array.from({ length: Math.max(0, Math.min(count, total - from)) }, (_, k) => from + k);
    const slug = encodeURIComponent(q.split(' ')[0] ?? 'q');
    const link = (i: number): string => `https://site${i}.example/${slug}/${i}`;
    if (source === 'web') {
      return sendJson(res, 200, {
        type: 'search',
        query: { original: q, more_results_available: from + count < total },
        web: {
          type: 'search',
          results: indexes.map((i) => ({ type: 'search_result', url: link(i), title: `Result <strong>${i}</strong> &amp; more`, description: `About <strong>${q}</strong>, number ${i}.`, age: '2 days ago' })),
        },
      });
    }
    if (source === 'news') {
      return sendJson(res, 200, {
        type: 'news',
        query: { original: q },
        results: indexes.map((i) => ({
          type: 'news_result', url: link(i), title: `News ${i}`, description: `Story ${i} about ${q}`, age: '3 hours ago',
          page_age: `2025-01-0${(i % 9) + 1}T10:00:00`, thumbnail: { src: `https://imgs.example/thumb/${i}.jpg` },
        })),
      });
    }
    return sendJson(res, 200, {
      type: 'images',
      query: { original: q },
      results: indexes.map((i) => ({
        type: 'image_result', url: link(i), title: `Image ${i}`, source: `site${i}.example`,
        thumbnail: { src: `https://imgs.example/thumb/${i}.jpg` },
        properties: { url: `https://site${i}.example/img/${i}.png`, placeholder: 'https://imgs.example/p.jpg', width: 640 + i, height: 480 },
      })),
    });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  const port = await listenOnLoopback(server);
  return {
    baseUrl: `http://127.0.0.1:${port}/res/v1`,
    requests,
    setMode(next: FakeBraveMode) {
      mode = next;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function sendJson(res: ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(payload);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}
