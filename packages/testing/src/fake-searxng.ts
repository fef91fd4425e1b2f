import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './listen.js';
import { waitOrGone } from './wait-or-gone.js';

/** One result as SearXNG's JSON format gives it (`GET /search?format=json`), the fields Trawl reads. */
export interface SearxngResult {
  url: string;
  title: string;
  content?: string;
  engine?: string;
  category?: string;
  /** ISO-like date (`2024-05-01T10:00:00`) or null. */
  publishedDate?: string | null;
  img_src?: string;
  thumbnail_src?: string;
  /** `WxH`, e.g. `1920x1080`. */
  resolution?: string;
}

/** One `GET /search` the fake received, in arrival order. */
export interface FakeSearxngRequest {
  /** The `q` parameter. */
  q: string;
  format?: string;
  /** `pageno` as a number (1 when absent). */
  pageno: number;
  language?: string;
  time_range?: string;
  categories?: string;
  engines?: string;
  /** Every query parameter as sent. */
  params: Record<string, string>;
}

/**
 * How the fake behaves:
 * - `ok`: answers the JSON format like SearXNG (403 when `format` is not `json`, as an instance without it in `search.formats` does);
 * - `down`: 502 (a reverse proxy in front of a dead SearXNG);
 * - `slow`: waits `delayMs` before answering (the wait ends early when the client goes away);
 * - `html`: 200 with the HTML results page (a proxy or an instance ignoring `format`);
 * - `forbidden`: 403 `Forbidden` (JSON format off);
 * - `limited`: 429 `Too Many Requests` (SearXNG's limiter).
 */
export type FakeSearxngMode = 'ok' | 'down' | 'slow' | 'html' | 'forbidden' | 'limited';

/** Options of {@link startFakeSearxng}. */
export interface FakeSearxngOptions {
  /** Every result of a query, best first; the fake pages them (`pageSize` a page). Default: 25 generated results, shaped by `categories`. */
  results?: (request: FakeSearxngRequest) => SearxngResult[];
  mode?: FakeSearxngMode;
  /** Results a page. Default 10. */
  pageSize?: number;
  /** `slow`: wait before answering, ms. Default 30 000. */
  delayMs?: number;
}

/** A running fake; see {@link startFakeSearxng}. */
export interface FakeSearxngServer {
  /** `http://127.0.0.1:<port>`: the instance URL to configure (`TRAWL_SEARXNG_URL`). */
  baseUrl: string;
  /** Every `GET /search` received, in order (recorded on arrival, before any delay). */
  requests: FakeSearxngRequest[];
  setMode(mode: FakeSearxngMode): void;
  close(): Promise<void>;
}

/**
 * A local server speaking SearXNG's search API (`GET /search?q=&format=json&pageno=&language=&time_range=&categories=&engines=`),
 * so tests run the production provider against the real wire format. Results are paged by `pageno`; a page past
 * the end answers an empty `results` list, as SearXNG does.
 */
export async function startFakeSearxng(opts: FakeSearxngOptions = {}): Promise<FakeSearxngServer> {
  let mode: FakeSearxngMode = opts.mode ?? 'ok';
  const pageSize = opts.pageSize ?? 10;
  const results = opts.results ?? defaultResults;
  const requests: FakeSearxngRequest[] = [];

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://fake-searxng');
    if (url.pathname !== '/search' && url.pathname !== '/') {
      if (url.pathname === '/healthz') return sendText(res, 200, 'text/plain', 'OK');
      return sendText(res, 404, 'text/html', '<h1>Not Found</h1>');
    }
    const params = Object.fromEntries(url.searchParams.entries());
    const request: FakeSearxngRequest = { q: params.q ?? '', pageno: Number(params.pageno ?? '1') || 1, params };
    for (const k of ['format', 'language', 'time_range', 'categories', 'engines'] as const) {
      if (params[k] !== undefined) request[k] = params[k];
    }
    requests.push(request);
    if (mode === 'down') return sendText(res, 502, 'text/html', '<html><body><h1>502 Bad Gateway</h1></body></html>');
    if (mode === 'forbidden') return sendText(res, 403, 'text/html', '<!doctype html><title>403 Forbidden</title><h1>Forbidden</h1>');
    if (mode === 'limited') return sendText(res, 429, 'text/plain', 'Too Many Requests');
    if (mode === 'slow') {
      const gone = await waitOrGone(res, opts.delayMs ?? 30_000);
      if (gone) return;
    }
    if (mode === 'html') {
      return sendText(res, 200, 'text/html; charset=utf-8', `<!DOCTYPE html><html><head><title>${escapeHtml(request.q)} - SearXNG</title></head><body><div id="results"></div></body></html>`);
    }
    if (request.format !== 'json') return sendText(res, 403, 'text/html', '<!doctype html><title>403 Forbidden</title><h1>Forbidden</h1>');
    const all = await results(request);
    const page = all.slice((request.pageno - 1) * pageSize, request.pageno * pageSize);
    sendJson(res, 200, {
      query: request.q,
      number_of_results: 0,
      results: page.map((r) => ({ engine: 'fake', engines: ['fake'], score: 1, category: 'general', ...r })),
      answers: [],
      corrections: [],
      infoboxes: [],
      suggestions: [],
      unresponsive_engines: [],
    });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendText(res, 500, 'text/plain', `fake server failure: ${String(err)}`);
      else res.destroy();
    });
  });
  const port = await listenOnLoopback(server);
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    setMode(next: FakeSearxngMode) {
      mode = next;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** 25 results for any query, with news dates or image fields when the categories ask for them. */
function defaultResults(request: FakeSearxngRequest): SearxngResult[] {
  const slug = encodeURIComponent(request.q.replace(/\s+/g, '-').slice(0, 40));
  const categories = (request.categories ?? 'general').split(',');
  return Array.from({ length: 25 }, (_, i) => {
    const n = i + 1;
    const base: SearxngResult = { url: `https://example.com/${slug}/${n}`, title: `Result ${n} for ${request.q}`, content: `Snippet ${n} about ${request.q}` };
    if (categories.includes('news')) return { ...base, category: 'news', publishedDate: new Date(Date.UTC(2024, 0, n)).toISOString().slice(0, 19) };
    if (categories.includes('images')) {
      return { ...base, category: 'images', img_src: `https://images.example.com/${n}.jpg`, thumbnail_src: `https://images.example.com/${n}.thumb.jpg`, resolution: `${800 + n}x${600 + n}` };
    }
    return base;
  });
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);
}

function sendJson(res: ServerResponse, status: number, payload: unknown): void {
  sendText(res, status, 'application/json', JSON.stringify(payload));
}

function sendText(res: ServerResponse, status: number, contentType: string, text: string): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
