import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { waitOrGone } from './wait-or-gone.js';
import { listenOnLoopback } from './listen.js';

/** One `POST /html/` the fake received: its form fields. */
export interface FakeDuckDuckGoRequest {
  method: string;
  path: string;
  form: Record<string, string>;
}

/**
 * - `ok`: result pages (10 results each, an ad first on the first page, a "Next" form while more remain);
 * - `down`: 503; `forbidden`: 403; `rate-limited`: 429 with `Retry-After: 60`;
 * - `blocked`: the captcha ("anomaly") page, HTTP 202, as DuckDuckGo answers bursts;
 * - `html-changed`: a 200 page of results in markup without the classes the parser knows;
 * - `slow`: waits `delayMs` before answering (ends early when the client goes away).
 */
export type FakeDuckDuckGoMode = 'ok' | 'down' | 'slow' | 'blocked' | 'forbidden' | 'rate-limited' | 'html-changed';

/** Options of {@link startFakeDuckDuckGo}. */
export interface FakeDuckDuckGoOptions {
  /** Results a query has. Default 25. A query containing `nothing` has none. */
  total?: number;
  mode?: FakeDuckDuckGoMode;
  /** `slow`: ms. Default 30 000. */
  delayMs?: number;
}

/** A running fake; see {@link startFakeDuckDuckGo}. */
export interface FakeDuckDuckGoServer {
  /** `http://127.0.0.1:<port>`: the base URL to configure (the endpoint is `<base>/html/`). */
  baseUrl: string;
  requests: FakeDuckDuckGoRequest[];
  setMode(mode: FakeDuckDuckGoMode): void;
  close(): Promise<void>;
}

const PAGE = 10;
/** The `vqd` token the fake issues; later pages must send it back (the real endpoint ties pages to it). */
export const FAKE_DDG_VQD = '4-123456789012345678901234567890';

/**
 * A local server answering like `html.duckduckgo.com/html/`: result blocks `div.result` with
 * `a.result__a` (a `//duckduckgo.com/l/?uddg=` redirect link), `.result__url` and `a.result__snippet`,
 * ads as `div.result--ad`, `div.no-results`, and the "Next" form (`q`, `s`, `dc`, `vqd`, ...).
 * Result `i` (0-based) is `https://site<i>.example/page?id=<i>&q=<slug>`.
 */
export async function startFakeDuckDuckGo(opts: FakeDuckDuckGoOptions = {}): Promise<FakeDuckDuckGoServer> {
  let mode: FakeDuckDuckGoMode = opts.mode ?? 'ok';
  const requests: FakeDuckDuckGoRequest[] = [];

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const raw = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://fake');
    const form = Object.fromEntries(new URLSearchParams(req.method === 'POST' ? raw : url.search));
    requests.push({ method: req.method ?? '', path: url.pathname, form });
    if (mode === 'down') return sendHtml(res, 503, '<html><body>Service Unavailable</body></html>');
    if (mode === 'forbidden') return sendHtml(res, 403, '<html><body>Forbidden</body></html>');
    if (mode === 'rate-limited') return sendHtml(res, 429, '<html><body>Too Many Requests</body></html>', { 'retry-after': '60' });
    if (mode === 'blocked') return sendHtml(res, 202, anomalyPage(form.q ?? ''));
    if (mode === 'slow' && (await waitOrGone(res, opts.delayMs ?? 30_000))) return;
    if (url.pathname !== '/html/' && url.pathname !== '/html') return sendHtml(res, 404, 'Not found');
    const q = form.q ?? '';
    const start = Number(form.s ?? 0) || 0;
    if (start > 0 && form.vqd !== FAKE_DDG_VQD) return sendHtml(res, 400, '<html><body>Bad request</body></html>');
    const total = q.includes('nothing') ? 0 : (opts.total ?? 25);
    const indexes = Array.from({ length: Math.max(0, Math.min(PAGE, total - start)) }, (_, k) => start + k);
    if (mode === 'html-changed') return sendHtml(res, 200, changedPage(q, indexes));
    return sendHtml(res, 200, resultsPage(q, form.kl ?? 'wt-wt', start, indexes, start + PAGE < total));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  const port = await listenOnLoopback(server);
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    setMode(next: FakeDuckDuckGoMode) {
      mode = next;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const targetOf = (i: number, q: string): string => `https://site${i}.example/page?id=${i}&q=${encodeURIComponent(q.split(' ')[0] ?? '')}`;
const redirect = (target: string): string => `//duckduckgo.com/l/?uddg=${encodeURIComponent(target)}&rut=f00d${target.length}`;

function head(q: string): string {
  return `<!DOCTYPE html>
<html lang="en-US">
<head><meta http-equiv="content-type" content="text/html; charset=UTF-8"><title>${esc(q)} at DuckDuckGo</title>
<link rel="stylesheet" href="/dist/h.css" type="text/css"></head>
<body>
<div id="header"><form name="x" class="header__form" action="/html/" method="post"><input name="q" autocomplete="off" class="search__input" id="search_form_input_homepage" type="text" value="${esc(q)}" /><input name="b" id="search_button_homepage" class="search__button search__button--html" value="" title="Search" alt="Search" type="submit" /></form></div>
<div>
<div class="serp__results">
<div id="links" class="results">
`;
}

function resultBlock(i: number, q: string): string {
  const target = targetOf(i, q);
  const link = esc(redirect(target));
  return `
            <div class="result results_links results_links_deep web-result ">
          <div class="links_main links_deep result__body"> <!-- This is the visible part -->
          <h2 class="result__title">
            <a rel="nofollow" class="result__a" href="${link}">Site ${i} &amp; <b>${esc(q)}</b></a>
          </h2>
            <div class="result__extras">
              <div class="result__extras__url">
                <span class="result__icon"><a rel="nofollow" href="${link}"><img class="result__icon__img" width="16" height="16" alt="" src="//external-content.duckduckgo.com/ip3/site${i}.example.ico" name="i15" /></a></span>
                <a class="result__url" href="${link}">site${i}.example/page</a>
              </div>
            </div>
                  <a class="result__snippet" href="${link}">Snippet ${i} about <b>${esc(q)}</b> &#x27;quoted&#x27;.</a>
            <div class="clear"></div>
          </div>
        </div>
`;
}

function adBlock(q: string): string {
  return `
            <div class="result results_links results_links_deep result--ad  result--ad--small">
          <div class="links_main links_deep result__body">
          <h2 class="result__title"><a rel="nofollow" class="result__a" href="https://duckduckgo.com/y.js?ad_domain=ads.example&amp;ad_provider=bingv7aa&amp;u3=x">Sponsored ${esc(q)}</a></h2>
          <div class="result__extras"><div class="result__extras__url"><a class="result__url" href="https://duckduckgo.com/y.js?ad_domain=ads.example">ads.example</a></div></div>
          <a class="result__snippet" href="https://duckduckgo.com/y.js?ad_domain=ads.example">Buy now.</a>
          </div>
        </div>
`;
}

function resultsPage(q: string, kl: string, start: number, indexes: number[], more: boolean): string {
  const blocks = indexes.length === 0
    ? `<div class="result results_links results_links_deep result--no-result"><div class="links_main links_deep result__body"><div class="no-results">No  results.</div></div></div>`
    : (start === 0 ? adBlock(q) : '') + indexes.map((i) => resultBlock(i, q)).join('');
  const prev = start > 0
    ? `<div class="nav-link"><form action="/html/" method="post"><input type="submit" class='btn btn--alt' value="&lt; Previous" /><input type="hidden" name="q" value="${esc(q)}" /><input type="hidden" name="s" value="${Math.max(0, start - PAGE)}" /><input type="hidden" name="vqd" value="${FAKE_DDG_VQD}" /></form></div>`
    : '';
  const next = more
    ? `<div class="nav-link">
        <form action="/html/" method="post">
          <input type="submit" class='btn btn--alt' value="Next" />
          <input type="hidden" name="q" value="${esc(q)}" />
          <input type="hidden" name="s" value="${start + PAGE}" />
          <input type="hidden" name="nextParams" value="" />
          <input type="hidden" name="v" value="l" />
          <input type="hidden" name="o" value="json" />
          <input type="hidden" name="dc" value="${start + PAGE + 1}" />
          <input type="hidden" name="api" value="d.js" />
          <input type="hidden" name="vqd" value="${FAKE_DDG_VQD}" />
          <input name="kl" value="${esc(kl)}" type="hidden" />
        </form>
      </div>`
    : '';
  return `${head(q)}${blocks}
${prev}${next}
<div class=" feedback-btn"><a rel="nofollow" href="//duckduckgo.com/feedback.html" target="_new">Feedback</a></div>
</div></div></div>
</body></html>`;
}

/** The same results in markup of another design: no `result`/`result__a` classes anywhere. */
function changedPage(q: string, indexes: number[]): string {
  const items = indexes.map((i) => `<article data-testid="result"><h2><a data-testid="result-title-a" href="${esc(targetOf(i, q))}">Site ${i}</a></h2><div data-result="snippet">Snippet ${i}</div></article>`).join('\n');
  return `<!DOCTYPE html><html><head><title>${esc(q)} at DuckDuckGo</title></head><body><main><ol class="react-results--main">${items}</ol></main></body></html>`;
}

function anomalyPage(q: string): string {
  return `<!DOCTYPE html><html><head><title>${esc(q)} at DuckDuckGo</title></head><body>
<div class="anomaly-modal__mask"><div class="anomaly-modal__modal" data-testid="anomaly-modal">
<div class="anomaly-modal__title">Unfortunately, bots use DuckDuckGo too.</div>
<div class="anomaly-modal__description">Please complete the following challenge to confirm this search was made by a human.</div>
<form id="challenge-form" action="//duckduckgo.com/anomaly.js?sv=html&amp;cc=botnet" method="POST"><div class="anomaly-modal__instructions">Select all squares containing a duck:</div></form>
</div></div></body></html>`;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendHtml(res: ServerResponse, status: number, html: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=UTF-8', 'content-length': Buffer.byteLength(html), ...headers });
  res.end(html);
}
