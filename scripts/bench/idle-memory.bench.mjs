#!/usr/bin/env node
// Memory of the embedded server (`npm start`'s process: API, workers, HTML and document threads; its
// redis-server child not counted) when it parses no documents: its PSS (smaps_rollup) 8 s after start,
// and its peak and final PSS over an HTML-only crawl of a generated site (2,000 pages, markdown). Run
// twice in one run, in child processes, alternated:
//   baseline   TRAWL_DOCUMENT_THREAD_IDLE_MS=0: the document threads start with the worker and stay
//   default    the threads start with the first document (none here) and end when idle
//   node scripts/bench/idle-memory.bench.mjs [--pages 2000] [--rounds 2]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EMBEDDED_CHILD, ROOT, arg, pssBytes, startChild } from './bench-cluster.mjs';

const PAGES = arg('pages', 2000);
const ROUNDS = arg('rounds', 2);
const { GeneratedSite } = await import(join(ROOT, 'packages/testing/dist/generated-site.js'));

const pssMb = (pid) => (pssBytes(pid) ?? 0) / 1024 ** 2;
const threadsOf = (pid) => Number(/^Threads:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);

/** One embedded server with `env` added: its PSS settled after start, then over a crawl of `site`. */
async function measure(site, env) {
  const dir = mkdtempSync(join(tmpdir(), 'trawl-bench-idle-memory-'));
  const { child, next, exited } = startChild(EMBEDDED_CHILD, {
    TRAWL_DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', TRAWL_ALLOW_PRIVATE_TARGETS: 'true',
    TRAWL_CRAWL_HOST_RATE_PER_SEC: '0', BENCH_TEAM_CONCURRENCY: '8', ...env,
  });
  try {
    const { url, key } = await next();
    // Settled: the threads started with the process have loaded their modules.
    await new Promise((r) => setTimeout(r, 8000));
    const idle = { pss: pssMb(child.pid), threads: threadsOf(child.pid) };
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    let peak = idle.pss;
    const sampler = setInterval(() => { peak = Math.max(peak, pssMb(child.pid)); }, 200);
    const started = await (await fetch(`${url}/v2/crawl`, {
      method: 'POST', headers,
      body: JSON.stringify({ url: site.url('/'), limit: PAGES, sitemap: 'skip', scrapeOptions: { formats: ['markdown'], maxAge: 0 } }),
    })).json();
    if (!started.success) throw new Error(`crawl start failed: ${JSON.stringify(started)}`);
    let status;
    for (;;) {
      status = await (await fetch(`${url}/v2/crawl/${started.id}?limit=1`, { headers })).json();
      if (['completed', 'failed', 'cancelled'].includes(status.status)) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    clearInterval(sampler);
    if (status.status !== 'completed') throw new Error(`crawl ${status.status}`);
    const result = { idle, peak, end: pssMb(child.pid), endThreads: threadsOf(child.pid), pages: status.completed };
    child.stdin.write('stop\n');
    await next();
    await exited;
    return result;
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

const site = await GeneratedSite.start({ pages: PAGES });
const runs = [];
try {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [name, env] of [['baseline', { TRAWL_DOCUMENT_THREAD_IDLE_MS: '0' }], ['default', {}]]) {
      runs.push({ round, name, ...await measure(site, env) });
    }
  }
} finally {
  await site.close();
}

const f = (x) => x.toFixed(0);
console.log(`\n## Embedded server memory without documents (PSS of the server process, MB; crawl of ${PAGES} generated pages)\n`);
console.log('| round | document threads | 8 s after start | threads | crawl peak | after the crawl | pages |');
console.log('|---|---|---|---|---|---|---|');
for (const r of runs) console.log(`| ${r.round} | ${r.name === 'baseline' ? 'at start, kept (`TRAWL_DOCUMENT_THREAD_IDLE_MS=0`)' : 'on demand (default)'} | ${f(r.idle.pss)} | ${r.idle.threads} | ${f(r.peak)} | ${f(r.end)} | ${r.pages} |`);
const mean = (name, pick) => { const xs = runs.filter((r) => r.name === name).map(pick); return xs.reduce((a, b) => a + b, 0) / xs.length; };
console.log(`\ndefault / baseline: after start ${(mean('default', (r) => r.idle.pss) / mean('baseline', (r) => r.idle.pss)).toFixed(2)}x, crawl peak ${(mean('default', (r) => r.peak) / mean('baseline', (r) => r.peak)).toFixed(2)}x`);
