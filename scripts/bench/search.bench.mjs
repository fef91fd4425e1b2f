// Search with scraping through the whole cluster: `POST /v2/search` of 10 web results with
// `scrapeOptions: {formats: ['markdown']}`, against a local SearXNG-shaped provider and a local site whose
// pages answer after different delays (0 .. ~450 ms), compared in the same run with the slowest single
// `POST /v2/scrape` of those pages. The results are scraped in parallel, so the search should cost
// about its slowest page plus the provider query: the target is a ratio <= 1.5x.
// Usage: node scripts/bench/search.bench.mjs [--rounds 10] [--results 10]
import { createServer } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, arg, startBenchCluster } from './bench-cluster.mjs';

const ROUNDS = arg('rounds', 10);
const RESULTS = arg('results', 10);
const delayOf = (i) => 50 * i;

const listen = async (handler) => {
  const server = createServer(handler);
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { server, origin: `http://127.0.0.1:${server.address().port}` };
};

// The site: /p/<i> answers after delayOf(i) ms, a short article each.
const site = await listen((req, res) => {
  const i = Number(/\/p\/(\d+)/.exec(req.url ?? '')?.[1] ?? 0);
  setTimeout(() => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><head><title>Page ${i}</title></head><body><main><article><h1>Page ${i}</h1>`
      + `<p>${'Words of the benchmark page, long enough to be main content. '.repeat(40)}</p></article></main></body></html>`);
  }, delayOf(i));
});
// The provider: SearXNG's JSON API (`/search?q=...&format=json`), RESULTS results on the site (the query in the path, so every round's URLs differ from the cache).
let round = 0;
const searxng = await listen((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  const q = url.searchParams.get('q') ?? '';
  const page = Number(url.searchParams.get('pageno') ?? 1);
  const results = page > 1 ? [] : Array.from({ length: RESULTS }, (_, i) => ({
    url: `${site.origin}/p/${i}?q=${encodeURIComponent(q)}`, title: `Page ${i}`, content: `Result ${i} of ${q}`, engine: 'bench', category: 'general',
  }));
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ query: q, number_of_results: results.length, results, answers: [], suggestions: [], unresponsive_engines: [] }));
});

const cluster = await startBenchCluster({ TRAWL_SEARCH_PROVIDER: 'searxng', TRAWL_SEARXNG_URL: searxng.origin });
const headers = { authorization: `Bearer ${cluster.key}`, 'content-type': 'application/json' };
async function post(path, body) {
  const s = performance.now();
  const res = await fetch(`${cluster.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const json = await res.json();
  if (!json.success) throw new Error(`${path}: ${JSON.stringify(json).slice(0, 500)}`);
  return { ms: performance.now() - s, json };
}
const search = async (q) => {
  const r = await post('/v2/search', { query: q, limit: RESULTS, scrapeOptions: { formats: ['markdown'], maxAge: 0 } });
  const web = r.json.data.web ?? [];
  const scraped = web.filter((w) => typeof w.markdown === 'string' && w.markdown.length > 0).length;
  if (web.length !== RESULTS || scraped !== RESULTS) throw new Error(`search ${q}: ${web.length} results, ${scraped} scraped`);
  return r.ms;
};
const scrape = async (q, i) => (await post('/v2/scrape', { url: `${site.origin}/p/${i}?q=${encodeURIComponent(q)}`, formats: ['markdown'], maxAge: 0 })).ms;

// Warm-up (JIT, pools).
await search('warm-up');
for (let i = 0; i < RESULTS; i++) await scrape('warm-up', i);

const rows = [];
for (; round < ROUNDS; round++) {
  // The single scrapes one after the other (the slowest of them is the bar), then the search.
  const singles = [];
  for (let i = 0; i < RESULTS; i++) singles.push(await scrape(`single-${round}`, i));
  const searchMs = await search(`search-${round}`);
  rows.push({ round, searchMs, slowestScrapeMs: Math.max(...singles), sumScrapesMs: singles.reduce((a, b) => a + b, 0) });
}

const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const searchP50 = med(rows.map((r) => r.searchMs));
const slowestP50 = med(rows.map((r) => r.slowestScrapeMs));
const sumP50 = med(rows.map((r) => r.sumScrapesMs));
const ratio = searchP50 / slowestP50;
const f = (x) => x.toFixed(1);
console.log(`\n## Search with scrapeOptions: ${RESULTS} results, page delays 0..${delayOf(RESULTS - 1)} ms (${ROUNDS} rounds)\n`);
console.log('| search p50 ms | slowest single scrape p50 ms | sum of single scrapes p50 ms | search / slowest scrape | target |');
console.log('|---|---|---|---|---|');
console.log(`| ${f(searchP50)} | ${f(slowestP50)} | ${f(sumP50)} | ${ratio.toFixed(2)}x | <= 1.5x ${ratio <= 1.5 ? '(met)' : '(NOT met)'} |`);
mkdirSync(join(ROOT, '.bench'), { recursive: true });
writeFileSync(join(ROOT, '.bench/search.json'), JSON.stringify({ rounds: ROUNDS, results: RESULTS, searchP50, slowestP50, sumP50, ratio, rows }, null, 2));

await cluster.close();
site.server.close();
searxng.server.close();
