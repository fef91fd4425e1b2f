// Scrape latency through the whole cluster (gateway -> admission -> BullMQ -> worker -> HTML pipeline
// -> result store -> gateway) against a bare in-process fetch plus conversion of the same pages, in one
// run. The cluster's client (fetch, `parallel` in flight) runs in a process of its own, as a user's
// does (scrape-client.mjs); the bare loop needs none. The ratio is the cost of the cluster. Two rows
// each: `embedded` (one process, as `npm start`: the worker runs what its API admits without BullMQ)
// and `queued` (every scrape through BullMQ, as a gateway in its own process sends them). Pages: real
// articles from ../shared/corpora/readability, served on loopback. Usage: node scripts/bench/scrape.bench.mjs [--requests 400] [--chunk 50] [--pages 20] [--warmup 250] [--settle 100] [--hops 1]
// --chunk N: the paths take turns in runs of N requests (a balanced order), so that load from outside
// falls on all alike. At 8 in flight each run ramps up and drains, so throughput reads a few percent
// lower than in the one-run-a-path rows of rounds before the fifteenth: compare ratios, not req/s.
// --settle N: untimed requests of each path at each concurrency before its timed runs (default 100).
// --hops 1: also prints where the time of a request goes at one in flight, hop by hop, from the
// `trawl:hop` diagnostics channel (packages/queue/src/hop-timing.ts); off by default (it costs a little).
// BENCH_NO_LOCAL_RESULTS=1: the embedded row's outcomes reach the gateway through the results channel
// instead of in-process (bench-cluster.mjs), for that change's A/B.
// A third row, `floor`, is the least any HTTP API can do for the same answer: a bare node:http server
// in this process (no framework, authentication, Redis, queue, cache or billing) that reads the JSON
// body, fetches and converts the page inline and answers its markdown and metadata as JSON, to the same
// client process. What it costs over the bare loop is the client's own HTTP round trip and JSON, which
// no server can remove; what the cluster costs over it is the cluster's.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { ROOT, arg, startArticleSite, startBenchCluster } from './bench-cluster.mjs';
import { startScrapeClient } from './scrape-client.mjs';

const REQUESTS = arg('requests', 400);
const CHUNK = arg('chunk', 50);
const HOPS = arg('hops', 0) > 0;
const PAGES = arg('pages', 20);
const WARMUP = arg('warmup', 250);
const SETTLE = arg('settle', 100);
const { runHtmlPipeline } = await import(join(ROOT, 'packages/html/dist/index.js'));
const { request } = await import(join(ROOT, 'packages/scrape-engine/node_modules/undici/index.js'));

const site = await startArticleSite(PAGES);
const { origin } = site;

const cluster = await startBenchCluster();
const { Redis } = await import(join(ROOT, 'packages/queue/node_modules/ioredis/built/index.js'));
const redis = new Redis(cluster.redisUrl);
/** CPU seconds redis-server has used (INFO cpu). */
async function redisCpuSec() {
  const info = await redis.info('cpu');
  const num = (name) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
  return num('used_cpu_user') + num('used_cpu_sys');
}

// The cluster's client runs in its own process (scrape-client.mjs), as a user's does.
const client = startScrapeClient();
// maxAge 0: every request fetches (this measures the fetch path; cache.bench.mjs measures hits).
const body = (i) => JSON.stringify({ url: `${origin}/${i}`, formats: ['markdown'], maxAge: 0 });
/** `n` scrapes sent to `url` (POST, the bench's key), numbered from `first`, `parallel` in flight: { times, wallMs }. */
function via(url, n, parallel, first) {
  return client.run({ url, key: cluster.key, bodies: Array.from({ length: n }, (_, k) => body(first + k)), parallel });
}
const viaCluster = (n, parallel, first) => via(`${cluster.url}/v2/scrape`, n, parallel, first);
/** The same in this process, without the cluster: the page fetched and converted. */
async function bare(n, parallel, first) {
  const times = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < n) {
      const i = first + next++;
      const s = performance.now();
      const r = await request(`${origin}/${i}`);
      const html = await r.body.text();
      runHtmlPipeline(html, { url: `${origin}/${i}`, formats: { markdown: true } });
      times.push(performance.now() - s);
    }
  }));
  return { times, wallMs: performance.now() - t0 };
}

// The floor: see the header.
const floor = createServer((req, res) => {
  (async () => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const { url } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const r = await request(url);
    const html = await r.body.text();
    const out = runHtmlPipeline(html, { url, formats: { markdown: true } });
    return JSON.stringify({ success: true, data: { markdown: out.markdown, metadata: { ...out.metadata, sourceURL: url, url, statusCode: r.statusCode } } });
  })().then((json) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json) });
    res.end(json);
  }, (err) => {
    // The client fails the run on any answer without `success`.
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ success: false, error: String(err) }));
  });
});
await new Promise((r) => floor.listen(0, '127.0.0.1', r));
const floorUrl = `http://127.0.0.1:${floor.address().port}/v2/scrape`;
const viaFloor = (n, parallel, first) => via(floorUrl, n, parallel, first);

function stats(ms) {
  const s = [...ms].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { p50: q(0.5), p95: q(0.95), mean: s.reduce((a, b) => a + b, 0) / s.length };
}
/** One timed run of `fn`: its latencies, wall time and CPU (this process, redis-server), as totals. */
async function measure(fn, n, parallel, first = 0) {
  const cpu0 = process.cpuUsage();
  const redis0 = await redisCpuSec();
  // Each path's runs start at the same page numbers: every path sees the same mix.
  const { times, wallMs } = await fn(n, parallel, first);
  const cpu = process.cpuUsage(cpu0);
  return { n, times, wallMs, cpuMs: (cpu.user + cpu.system) / 1000, redisMs: (await redisCpuSec() - redis0) * 1000 };
}
// CPU per request, ms: this process (every thread: the bare loop, or the API + worker + conversion
// threads; not the cluster's client, in its own process) plus redis-server. Unlike latency it hardly
// moves when other work shares the machine: on a dedicated machine, throughput at 8 in flight is bounded by it.
/** A path's runs as one row: latency quantiles over every request, throughput and CPU per request over their sums. */
function combine(runs) {
  const sum = (k) => runs.reduce((a, r) => a + r[k], 0);
  const n = sum('n');
  return { ...stats(runs.flatMap((r) => r.times)), throughput: n / (sum('wallMs') / 1000), cpuMs: sum('cpuMs') / n, redisCpuMs: sum('redisMs') / n };
}

// Warm-up both paths alike (JIT, connection pools, worker threads): a conversion thread's JIT reaches
// its steady state only after some 150 pages (about 8 passes over the 20 pages here; the first pass is
// 10x slower), and the thread gets 60% of the cluster's pages (smaller ones are converted inline), so
// a short warm-up measured the thread's warm-up, not its cost. `--warmup 20` was the old figure.
for (let i = 0; i < WARMUP; i++) {
  cluster.gatewayRunsLocally(i % 2 === 0);
  await viaCluster(1, 1, i);
  await bare(1, 1, i);
  await viaFloor(1, 1, i);
}
const rows = [];
/** Orders of four paths, one a round (a Williams square: balanced for place and predecessor). */
const WILLIAMS = [[0, 1, 3, 2], [1, 2, 0, 3], [2, 3, 1, 0], [3, 0, 2, 1]];
const hops = new Map();
const onHop = ({ hop, ms }) => {
  if (!hops.has(hop)) hops.set(hop, []);
  hops.get(hop).push(ms);
};
for (const parallel of [1, 8]) {
  // `embedded`: one process, as `npm start` runs it (the worker runs the scrapes its API admits
  // without the queue hop); `queued`: the same cluster with every scrape going through BullMQ, as
  // between a gateway and workers in their own processes.
  const paths = [
    { name: 'bare', fn: bare },
    { name: 'floor', fn: viaFloor },
    { name: 'queued', fn: viaCluster, local: false },
    { name: 'embedded', fn: viaCluster, local: true },
  ];
  const use = (path) => {
    if (path.local !== undefined) cluster.gatewayRunsLocally(path.local);
  };
  // `--settle` untimed requests of each path at this concurrency first: the warm-up runs one at a
  // time, so the first timed run at 8 in flight used to absorb the conversion thread's and V8's
  // compiling (measured: 2.3 ms a request of JIT threads in that window against 0.5-0.8 in the next
  // ones, whichever path came first).
  if (SETTLE > 0) {
    for (const path of paths) {
      use(path);
      await measure(path.fn, SETTLE, parallel);
    }
  }
  // The paths take turns in runs of `--chunk` requests: a change in the machine's load (other work
  // on a shared machine) falls on every path alike. Measured one path after the other (about 5-10 s
  // each), the bare loop's throughput at 8 in flight read 123 and 187 requests/s in two runs minutes
  // apart, and the throughput ratio 1.22 and 0.49. The order of each round of four runs comes from a
  // Williams square: over four rounds every path runs once in each place and follows each other path
  // once, so what one run leaves behind (the bare loop's garbage) does not always fall on the same one.
  const chunks = Math.max(1, Math.round(REQUESTS / Math.max(1, CHUNK)));
  const runs = new Map(paths.map((path) => [path.name, []]));
  for (let i = 0; i < chunks; i++) {
    const first = Math.round((REQUESTS * i) / chunks);
    const n = Math.round((REQUESTS * (i + 1)) / chunks) - first;
    for (const k of WILLIAMS[i % WILLIAMS.length]) {
      const path = paths[k];
      use(path);
      const timeHops = HOPS && parallel === 1 && path.name === 'embedded';
      if (timeHops) subscribe('trawl:hop', onHop);
      runs.get(path.name).push(await measure(path.fn, n, parallel, first));
      if (timeHops) unsubscribe('trawl:hop', onHop);
    }
  }
  rows.push({
    parallel, bare: combine(runs.get('bare')), cluster: combine(runs.get('embedded')),
    queued: combine(runs.get('queued')), floor: combine(runs.get('floor')),
  });
}

const f = (x) => x.toFixed(1);
console.log(`\n## Scrape latency: cluster vs bare fetch + conversion (${REQUESTS} requests, ${site.pages} corpus pages)\n`);
console.log('| parallel | cluster | bare p50 ms | bare p95 ms | cluster p50 ms | cluster p95 ms | p50 ratio | bare req/s | cluster req/s | throughput ratio | bare CPU ms/req | cluster CPU ms/req (of it Redis) | CPU ratio |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  for (const [name, c] of [['embedded', r.cluster], ['queued', r.queued], ['floor', r.floor]]) {
    const clusterCpu = c.cpuMs + c.redisCpuMs;
    console.log(`| ${r.parallel} | ${name} | ${f(r.bare.p50)} | ${f(r.bare.p95)} | ${f(c.p50)} | ${f(c.p95)} | ${(c.p50 / r.bare.p50).toFixed(2)}x | ${f(r.bare.throughput)} | ${f(c.throughput)} | ${(c.throughput / r.bare.throughput).toFixed(2)} | ${f(r.bare.cpuMs)} | ${f(clusterCpu)} (${f(c.redisCpuMs)}) | ${(clusterCpu / r.bare.cpuMs).toFixed(2)}x |`);
  }
}
console.log('\n`floor`: an HTTP server doing nothing but the work (see the header). The cluster against it:\n');
console.log('| parallel | embedded / floor p50 | embedded / floor throughput | queued / floor p50 |');
console.log('|---|---|---|---|');
for (const r of rows) {
  console.log(`| ${r.parallel} | ${(r.cluster.p50 / r.floor.p50).toFixed(2)}x | ${(r.cluster.throughput / r.floor.throughput).toFixed(2)} | ${(r.queued.p50 / r.floor.p50).toFixed(2)}x |`);
}
if (HOPS) {
  console.log(`\n## Hops of a cluster scrape at one in flight (ms; per request: mean over ${REQUESTS} requests)\n`);
  console.log('| hop | p50 ms | mean ms | times per request |');
  console.log('|---|---|---|---|');
  for (const [hop, ms] of hops) {
    const st = stats(ms);
    console.log(`| ${hop} | ${st.p50.toFixed(2)} | ${st.mean.toFixed(2)} | ${(ms.length / REQUESTS).toFixed(2)} |`);
  }
}
mkdirSync(join(ROOT, '.bench'), { recursive: true });
writeFileSync(join(ROOT, '.bench/scrape.json'), JSON.stringify({ requests: REQUESTS, chunk: CHUNK, pages: site.pages, rows }, null, 2));

client.close();
floor.close();
redis.disconnect();
await cluster.close();
site.close();
