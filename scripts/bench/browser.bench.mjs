#!/usr/bin/env node
// Browser scrape benchmark on the TodoMVC SPAs of ../shared/corpora/spa-todomvc (served on loopback):
//   bare      a bare Playwright loop: new context, goto (waitUntil networkidle), page.content(), close
//   trawl     the browser engine as workers run it (pool, egress proxy with target guard, ad blocking,
//             cookie-banner handling, smart wait, shadow DOM capture) plus the HTML -> markdown pipeline
// Both use the same Chromium, the same pages, interleaved page by page in one run; the ratio is the cost
// of the pool and the pipeline. Latency: one page at a time (p50/p95); throughput: 4 pages in flight,
// measured twice per side in the order bare, trawl, trawl, bare.
// Also checks that each app's rendered content (the "todos" header, a todo added by no one: none) reached
// the output. Run `pnpm exec turbo run build` first (npm run bench does).
//   node scripts/bench/browser.bench.mjs [--rounds N]
import { createServer } from 'node:http';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';

const ROOT = resolve(fileURLToPath(import.meta.url), '../../..');
const SITE = resolve(ROOT, '../shared/corpora/spa-todomvc/site');
const args = process.argv.slice(2);
const ROUNDS = Number(args[args.indexOf('--rounds') + 1] || 0) || 3;
const APPS = ['react', 'vue', 'svelte', 'preact', 'lit', 'web-components', 'jquery', 'backbone'];

const engine = await import(pathToFileURL(join(ROOT, 'packages/scrape-engine/dist/index.js')).href);
const browser = await import(pathToFileURL(join(ROOT, 'packages/browser/dist/index.js')).href);
const netGuard = await import(pathToFileURL(join(ROOT, 'packages/net-guard/dist/index.js')).href);
const html = await import(pathToFileURL(join(ROOT, 'packages/html/dist/index.js')).href);
const requireEngine = createRequire(join(ROOT, 'packages/browser/package.json'));
const { chromium } = requireEngine('playwright-core');

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png', '.map': 'application/json' };
const server = createServer((req, res) => {
  let path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  let file = resolve(SITE, '.' + path);
  if (!file.startsWith(SITE + sep) && file !== SITE) { res.writeHead(403); res.end(); return; }
  try {
    if (statSync(file).isDirectory()) {
      if (!path.endsWith('/')) { res.writeHead(301, { location: path + '/' }); res.end(); return; }
      file = join(file, 'index.html');
    }
    const body = readFileSync(file);
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    res.end(body);
  } catch {
    res.writeHead(404); res.end('not found');
  }
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const origin = `http://127.0.0.1:${server.address().port}`;
const urls = APPS.map((app) => ({ app, url: `${origin}/examples/${app}/dist/` }));

const ARGS = [...browser.CHROMIUM_ARGS];
// The binary Trawl's standard browser runs: Chromium's headless shell when installed (what Playwright
// itself runs for headless Chromium), else the full browser.
const CHROMIUM = existsSync(browser.HEADLESS_SHELL_PATH) ? browser.HEADLESS_SHELL_PATH : '/usr/bin/chromium';
const bareBrowser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
async function bare(url) {
  const context = await bareBrowser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'networkidle', timeout: 30_000 });
    return await page.content();
  } finally {
    await context.close();
  }
}

const pool = new browser.BrowserPool({});
const egress = new engine.EgressProxy({ guard: new netGuard.TargetGuard({ allowPrivateTargets: true }) });
await egress.start();
const blocker = await browser.AdBlocker.load();
const consent = await browser.loadConsentAssets();
const fetcher = new browser.BrowserFetcher({ pool, egress, plugins: [browser.cookieConsentPlugin(consent), browser.adBlockPlugin(blocker)] });
async function trawl(url) {
  const page = await fetcher.fetch({ url, signal: AbortSignal.timeout(30_000), timeoutMs: 30_000, maxBytes: 20e6 });
  const out = html.runHtmlPipeline(page.text, { url: page.url, formats: { markdown: true }, onlyMainContent: true });
  return out.markdown;
}

const rendered = (text) => /todos/i.test(text ?? '');
const quantile = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))]; };
const timed = async (fn, url) => { const t = performance.now(); const out = await fn(url); return { ms: performance.now() - t, out }; };

// Warm-up: both browsers started, caches of the static server warm.
await bare(urls[0].url);
await trawl(urls[0].url);

const lat = { bare: [], trawl: [] };
const ok = { bare: 0, trawl: 0 };
const perApp = {};
for (let round = 0; round < ROUNDS; round++) {
  for (const { app, url } of urls) {
    const order = round % 2 === 0 ? ['bare', 'trawl'] : ['trawl', 'bare'];
    for (const who of order) {
      const r = await timed(who === 'bare' ? bare : trawl, url);
      lat[who].push(r.ms);
      if (round === 0) { perApp[app] ??= {}; perApp[app][who] = rendered(r.out); }
      if (rendered(r.out)) ok[who] += 1;
    }
  }
}

async function throughput(fn, inFlight) {
  const jobs = [];
  for (let round = 0; round < ROUNDS; round++) for (const { url } of urls) jobs.push(url);
  const t = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: inFlight }, async () => { while (next < jobs.length) await fn(jobs[next++]); }));
  return jobs.length / ((performance.now() - t) / 1000);
}
// In the order bare, trawl, trawl, bare (each figure the mean of its two runs): on a shared machine whose
// load drifts during the run, measuring one side after the other favoured whichever ran in the quieter half.
const tpRuns = { bare: [], trawl: [] };
for (const who of ['bare', 'trawl', 'trawl', 'bare']) tpRuns[who].push(await throughput(who === 'bare' ? bare : trawl, 4));
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const tp = { bare: mean(tpRuns.bare), trawl: mean(tpRuns.trawl) };

await bareBrowser.close();
await pool.close();
await egress.close();
server.close();

const rows = [
  ['latency p50 (ms)', quantile(lat.bare, 0.5), quantile(lat.trawl, 0.5)],
  ['latency p95 (ms)', quantile(lat.bare, 0.95), quantile(lat.trawl, 0.95)],
  ['throughput, 4 in flight (pages/s)', tp.bare, tp.trawl],
];
console.log(`\nBrowser scrape, ${APPS.length} TodoMVC apps x ${ROUNDS} rounds (same Chromium, same run)\n`);
console.log('| measure | bare Playwright loop | trawl engine + pipeline | ratio |');
console.log('|---|---|---|---|');
for (const [name, b, t] of rows) console.log(`| ${name} | ${b.toFixed(name.startsWith('throughput') ? 2 : 0)} | ${t.toFixed(name.startsWith('throughput') ? 2 : 0)} | ${(t / b).toFixed(2)}x |`);
console.log(`| rendered content found | ${ok.bare}/${lat.bare.length} | ${ok.trawl}/${lat.trawl.length} | |`);
console.log('\nper app (round 1, rendered content found): ' + Object.entries(perApp).map(([a, v]) => `${a} ${v.bare ? 'y' : 'n'}/${v.trawl ? 'y' : 'n'}`).join(', '));
mkdirSync(join(ROOT, '.bench'), { recursive: true });
writeFileSync(join(ROOT, '.bench/browser.json'), JSON.stringify({ rounds: ROUNDS, apps: APPS, lat, tp, tpRuns, ok, perApp }, null, 2));
