#!/usr/bin/env node
// Browser crawl throughput and memory: the Apache Jena mirror of ../shared/corpora/site-jena (256 pages),
// served by ../shared/corpora/serve_static.mjs (--rewrite https://jena.apache.org) in a child process,
// crawled in one run by
//   trawl    `npm start`'s embedded mode (API + workers + a redis-server child) in a child process: POST
//            /v2/crawl with scrapeOptions { formats: ['markdown'], waitFor: 1, maxAge: 0 } (waitFor sends
//            every page to the browser engine, which then runs as it does for any browser scrape: egress
//            proxy, ad blocking, cookie banners, smart wait), sitemap skipped; the bootstrap team at
//            concurrency TRAWL_BROWSER_CONCURRENCY (default 4), every other setting a default.
//   crawlee  Crawlee's PlaywrightCrawler with its defaults (autoscaled concurrency, same-hostname
//            enqueueLinks), in-memory storage, in a child process; its handler reads the title and the
//            page's HTML.
// Both use the same Chromium binary (the headless shell when installed) with the project's Chromium flags. The memory of each child's whole process
// tree (the process and all its descendants: Chromium, renderers, redis-server) is sampled every 200 ms
// from /proc as summed PSS (smaps_rollup; shared pages divided among the processes mapping them: the
// anchor's figure) and summed RSS (shared pages counted once per process); both peaks are reported. After Trawl's crawl, and after it stopped,
// the Chromium processes seen in its tree are checked to be gone.
//   node scripts/bench/browser-crawl.bench.mjs [--timeout-s 600] [--order trawl,crawlee]
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import { EMBEDDED_CHILD, ROOT, pssBytes, startChild } from './bench-cluster.mjs';

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const TIMEOUT_MS = Number(arg('timeout-s', 600)) * 1000;
const ORDER = String(arg('order', 'trawl,crawlee')).split(',');
const JENA = join(ROOT, '../shared/corpora/site-jena/site');
const SERVE = join(ROOT, '../shared/corpora/serve_static.mjs');
if (!existsSync(JENA) || !existsSync(SERVE)) {
  console.error(`corpus not found: ${JENA}`);
  process.exit(1);
}
const { CHROMIUM_ARGS, HEADLESS_SHELL_PATH } = await import(join(ROOT, 'packages/browser/dist/index.js'));
// Crawlee gets the binary Trawl's standard browser runs: Chromium's headless shell when installed (what
// Playwright, and so Crawlee, runs for headless Chromium by default), else the full browser.
const CHROMIUM = existsSync(HEADLESS_SHELL_PATH) ? HEADLESS_SHELL_PATH : '/usr/bin/chromium';
const BROWSER_CONCURRENCY = Number(process.env.TRAWL_BROWSER_CONCURRENCY ?? 4);

// --- Process trees -----------------------------------------------------------------------------------

function procTable() {
  const out = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = readFileSync(`/proc/${name}/status`, 'utf8');
      out.push({
        pid: Number(name),
        ppid: Number(/^PPid:\s+(\d+)/m.exec(status)?.[1] ?? 0),
        name: /^Name:\s+(.*)$/m.exec(status)?.[1] ?? '',
        rss: Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0) * 1024,
      });
    } catch {
      // exited while read
    }
  }
  return out;
}

/** The process `root` and all its descendants. */
function tree(root) {
  const table = procTable();
  const children = new Map();
  for (const p of table) {
    if (!children.has(p.ppid)) children.set(p.ppid, []);
    children.get(p.ppid).push(p);
  }
  const self = table.find((p) => p.pid === root);
  const out = self ? [self] : [];
  for (let i = 0; i < out.length; i++) out.push(...(children.get(out[i].pid) ?? []));
  return out;
}

/** Proportional set size of a process (shared pages divided among their mappers), bytes; its RSS when unreadable. */
const pssOf = (p) => pssBytes(p.pid) ?? p.rss;

/**
 * What a process of the tree is, for the peak's composition: `node` (the crawler's own process and any
 * Node child), `redis`, Chromium's `browser` process, its `renderer`s, and its other helpers
 * (`chromium-other`: zygotes, utility and GPU processes).
 */
function partOf(p) {
  if (/redis/i.test(p.name)) return 'redis';
  if (!/chrom/i.test(p.name)) return p.name.startsWith('node') ? 'node' : p.name;
  const type = /--type=([a-z-]+)/.exec(safeRead(`/proc/${p.pid}/cmdline`))?.[1];
  return type === undefined ? 'browser' : type === 'renderer' ? 'renderer' : 'chromium-other';
}

/**
 * Samples the tree's memory every 200 ms, as summed RSS (shared pages counted in every process that
 * maps them: Chromium's shared libraries and shared memory many times over) and as summed PSS (what
 * the tree really holds); remembers the Chromium pids seen in it.
 */
function sampleTree(root) {
  const state = { peak: 0, peakPss: 0, peakParts: {}, samples: 0, chromium: new Set(), types: {} };
  const tick = () => {
    const procs = tree(root);
    const rss = procs.reduce((n, p) => n + p.rss, 0);
    state.peak = Math.max(state.peak, rss);
    const parts = {};
    for (const p of procs) {
      const part = (parts[partOf(p)] ??= { pss: 0, n: 0 });
      part.pss += pssOf(p);
      part.n += 1;
    }
    const pss = Object.values(parts).reduce((sum, part) => sum + part.pss, 0);
    if (pss > state.peakPss) Object.assign(state, { peakPss: pss, peakParts: parts });
    state.samples += 1;
    for (const p of procs) {
      if (!/chrom/i.test(p.name) || state.chromium.has(p.pid)) continue;
      state.chromium.add(p.pid);
      const type = /--type=([a-z-]+)/.exec(safeRead(`/proc/${p.pid}/cmdline`))?.[1] ?? 'browser';
      state.types[type] = (state.types[type] ?? 0) + 1;
    }
  };
  tick();
  const timer = setInterval(tick, 200);
  state.stop = () => { clearInterval(timer); tick(); };
  return state;
}

const alive = (pid) => existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(safeRead(`/proc/${pid}/status`));
const safeRead = (p) => { try { return readFileSync(p, 'utf8'); } catch { return ''; } };

async function freePort() {
  const srv = createServer();
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

// --- Site --------------------------------------------------------------------------------------------

const sitePort = await freePort();
const site = spawn(process.execPath, [SERVE, JENA, '--port', String(sitePort), '--rewrite', 'https://jena.apache.org'], { stdio: 'ignore' });
const seed = `http://127.0.0.1:${sitePort}/`;
for (let i = 0; ; i++) {
  try {
    if ((await fetch(seed)).ok) break;
  } catch {
    if (i > 200) throw new Error('static server did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
}

// --- Trawl -------------------------------------------------------------------------------------------


async function trawlCrawl() {
  const dataDir = mkdtempSync(join(tmpdir(), 'trawl-bench-browser-crawl-'));
  const { child, next, exited } = startChild(EMBEDDED_CHILD, {
    TRAWL_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: process.env.BENCH_TRAWL_LOG_LEVEL ?? 'silent', TRAWL_ALLOW_PRIVATE_TARGETS: 'true',
    BENCH_TEAM_CONCURRENCY: String(BROWSER_CONCURRENCY),
  });
  try {
    const { url, key } = await next();
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const rss = sampleTree(child.pid);
    const t0 = performance.now();
    const res = await fetch(`${url}/v2/crawl`, {
      method: 'POST', headers,
      body: JSON.stringify({ url: seed, limit: 10_000, sitemap: 'skip', scrapeOptions: { formats: ['markdown'], waitFor: 1, maxAge: 0 } }),
    });
    const started = await res.json();
    if (!started.success) throw new Error(`crawl start failed: ${JSON.stringify(started)}`);
    let status;
    const deadline = Date.now() + TIMEOUT_MS;
    for (;;) {
      status = await (await fetch(`${url}/v2/crawl/${started.id}?limit=1`, { headers })).json();
      if (['completed', 'failed', 'cancelled'].includes(status.status) || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const elapsedMs = performance.now() - t0;
    rss.stop();
    // Engines of the documents: every page should have gone through the browser.
    const engines = new Map();
    let docs = 0;
    for (let next = `${url}/v2/crawl/${started.id}`; next; ) {
      const page = await (await fetch(next, { headers })).json();
      for (const d of page.data ?? []) {
        docs += 1;
        const e = d.metadata?.engine ?? d.metadata?.scrapeEngine ?? 'unknown';
        engines.set(e, (engines.get(e) ?? 0) + 1);
      }
      next = page.next;
    }
    const errorList = await (await fetch(`${url}/v2/crawl/${started.id}/errors`, { headers })).json().catch(() => undefined);
    const errors = docs === 0 ? errorList : undefined;
    // Requests the crawl made to the site's pages: each document and each listed failure (its broken links).
    const requests = docs + (Array.isArray(errorList?.errors) ? errorList.errors.length : 0);
    const chromiumDuring = [...rss.chromium];
    child.stdin.write('stop\n');
    await next();
    await exited;
    const leftAfterStop = chromiumDuring.filter(alive);
    return {
      crawler: 'trawl', status: status.status, pages: status.completed ?? docs, docs, requests, elapsedMs,
      pagesPerSec: (status.completed ?? docs) / (elapsedMs / 1000), peakRss: rss.peak, peakPss: rss.peakPss, peakParts: rss.peakParts, samples: rss.samples,
      engines: Object.fromEntries(engines), ...(errors ? { errors: JSON.stringify(errors).slice(0, 600) } : {}), chromiumSeen: chromiumDuring.length, chromiumTypes: rss.types, chromiumLeftAfterStop: leftAfterStop.length,
    };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// --- Crawlee -----------------------------------------------------------------------------------------

const CRAWLEE_CHILD = `
const { PlaywrightCrawler, Configuration, log } = await import(${JSON.stringify(join(ROOT, 'node_modules/@crawlee/playwright/index.mjs'))});
log.setLevel(log.LEVELS.OFF);
const dir = process.env.BENCH_DIR;
const config = new Configuration({ persistStorage: false, purgeOnStart: true, storageClientOptions: { localDataDirectory: dir, persistStorage: false } });
const counts = { pages: 0, ok: 0, failed: 0 };
const crawler = new PlaywrightCrawler({
  launchContext: { launchOptions: { executablePath: process.env.BENCH_CHROMIUM, args: JSON.parse(process.env.BENCH_ARGS) } },
  async requestHandler({ page, response, enqueueLinks }) {
    counts.pages += 1;
    const title = await page.title();
    const html = await page.content();
    if (title.length + html.length > 0 && (response?.status() ?? 200) < 300) counts.ok += 1;
    await enqueueLinks();
  },
  failedRequestHandler() { counts.failed += 1; },
}, config);
console.log(JSON.stringify({ bench: true, ready: true }));
await new Promise((r) => process.stdin.once('data', r));
// A second line on stdin: the deadline passed; the crawl stops where it is.
process.stdin.once('data', () => void crawler.autoscaledPool?.abort());
const t0 = performance.now();
await crawler.run([process.env.BENCH_SEED]);
console.log(JSON.stringify({ bench: true, ...counts, elapsedMs: performance.now() - t0 }));
process.exit(0);
`;

async function crawleeCrawl() {
  const dir = mkdtempSync(join(tmpdir(), 'trawl-bench-crawlee-pw-'));
  const { child, next, exited } = startChild(CRAWLEE_CHILD, { BENCH_DIR: dir, BENCH_SEED: seed, BENCH_ARGS: JSON.stringify(CHROMIUM_ARGS), BENCH_CHROMIUM: CHROMIUM });
  try {
    await next();
    const rss = sampleTree(child.pid);
    child.stdin.write('go\n');
    const timer = setTimeout(() => child.stdin.write('stop\n'), TIMEOUT_MS);
    const r = await next();
    clearTimeout(timer);
    rss.stop();
    await exited;
    return { crawler: 'crawlee', ...r, pagesPerSec: r.pages / (r.elapsedMs / 1000), peakRss: rss.peak, peakPss: rss.peakPss, peakParts: rss.peakParts, samples: rss.samples };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

// --- Run ---------------------------------------------------------------------------------------------

const results = {};
try {
  for (const name of ORDER) {
    try {
      results[name] = name === 'trawl' ? await trawlCrawl() : await crawleeCrawl();
    } catch (err) {
      results[name] = { crawler: name, skipped: `failed: ${err.message}` };
    }
  }
} finally {
  site.kill();
}

const mb = (b) => (b / 1024 ** 2).toFixed(0);
const trawl = results.trawl;
const crawlee = results.crawlee;
console.log('\n## Browser crawl, Jena mirror (256 pages), one run (child processes, loopback site)\n');
console.log('| crawler | pages | seconds | pages/s | peak PSS, process tree (MB) | peak RSS sum, process tree (MB) | Trawl / this | note |');
console.log('|---|---|---|---|---|---|---|---|');
for (const r of Object.values(results)) {
  if (r.skipped) {
    console.log(`| ${r.crawler} | - | - | - | - | - | - | skipped: ${r.skipped} |`);
    continue;
  }
  const ratio = r.crawler !== 'trawl' && trawl && !trawl.skipped ? `${(trawl.pagesPerSec / r.pagesPerSec).toFixed(2)}x` : '-';
  const note = r.crawler === 'trawl'
    ? `status ${r.status}${r.errors ? `; errors ${r.errors}` : ''}; engines ${JSON.stringify(r.engines)}; Chromium processes seen ${r.chromiumSeen} ${JSON.stringify(r.chromiumTypes)}, left after stop ${r.chromiumLeftAfterStop}`
    : `${r.ok} 2xx pages, ${r.failed} failed requests`;
  const parts = Object.entries(r.peakParts ?? {}).sort((a, b) => b[1].pss - a[1].pss).map(([k, v]) => `${k} ${mb(v.pss)}${v.n > 1 ? ` in ${v.n}` : ''}`).join(', ');
  console.log(`| ${r.crawler} | ${r.pages} | ${(r.elapsedMs / 1000).toFixed(1)} | ${r.pagesPerSec.toFixed(2)} | ${mb(r.peakPss)} (${parts}) | ${mb(r.peakRss)} | ${ratio} | ${note} |`);
}
if (trawl && !trawl.skipped && crawlee && !crawlee.skipped) {
  console.log(`\nTrawl / PlaywrightCrawler: ${(trawl.pagesPerSec / crawlee.pagesPerSec).toFixed(2)}x; Trawl peak PSS ${mb(trawl.peakPss)} MB (anchor: <= 1536 MB), peak RSS sum ${mb(trawl.peakRss)} MB`);
  // Crawlee's "pages" are its handler calls, non-2xx pages (the mirror's 404 links) included; Trawl's are
  // completed documents. On 2xx pages only:
  console.log(`Trawl / PlaywrightCrawler on 2xx pages per second: ${((trawl.pages / trawl.elapsedMs) / (crawlee.ok / crawlee.elapsedMs)).toFixed(2)}x (Trawl ${trawl.pages}, Crawlee ${crawlee.ok} 2xx pages)`);
  // Per request, as the HTTP crawl bench counts Jena: Trawl's documents and listed failures, Crawlee's
  // handler calls and failed requests.
  const crawleeRequests = crawlee.pages + crawlee.failed;
  console.log(`Trawl / PlaywrightCrawler per request: ${((trawl.requests / trawl.elapsedMs) / (crawleeRequests / crawlee.elapsedMs)).toFixed(2)}x (Trawl ${trawl.requests}, Crawlee ${crawleeRequests} requests)`);
  // The same site crawled to its end by both: how much sooner Trawl had all of it.
  console.log(`PlaywrightCrawler's time / Trawl's to crawl the whole site: ${(crawlee.elapsedMs / trawl.elapsedMs).toFixed(2)}x (${(crawlee.elapsedMs / 1000).toFixed(1)} s against ${(trawl.elapsedMs / 1000).toFixed(1)} s); Chromium binary ${CHROMIUM}`);
}
mkdirSync(join(ROOT, '.bench'), { recursive: true });
writeFileSync(join(ROOT, '.bench/browser-crawl.json'), JSON.stringify({ browserConcurrency: BROWSER_CONCURRENCY, results }, null, 2));
