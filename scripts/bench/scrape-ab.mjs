// Same-window A/B of the sync scrape path of two builds (two checkouts, each built): both clusters run
// in this one process, each with its own Redis, and take turns in blocks of requests (100 at 1 in
// flight, 200 at 8), the order alternating each round, so machine noise falls on both alike (the
// `scrape` bench's runs of one build moved 20-30% between minutes on the shared development machine).
// Pages: the same 20 real articles as scrape.bench.mjs, served on loopback, `maxAge: 0`.
// Not a benchmark of `npm run bench` (no `.bench.mjs` suffix): a tool for a change's before/after.
//   node scripts/bench/scrape-ab.mjs --a /path/to/before --b /path/to/after [--rounds 10] [--queued 1]
// --queued 1: every scrape through BullMQ (a gateway in its own process), instead of embedded.
// Prints, per concurrency, the median latency, the median block throughput and CPU per request (this
// process: every thread of both clusters, the one not running being idle; not the clients', which run
// in their own process) with B/A ratios.
import { join, resolve } from 'node:path';
import { ROOT, arg, startArticleSite } from './bench-cluster.mjs';
import { startScrapeClient } from './scrape-client.mjs';

const path = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? resolve(process.argv[i + 1]) : undefined;
};
const A = path('a');
const B = path('b') ?? ROOT;
if (!A) {
  console.error('usage: node scripts/bench/scrape-ab.mjs --a <checkout before> [--b <checkout after>] [--rounds 10] [--queued 1]');
  process.exit(1);
}
const ROUNDS = arg('rounds', 10);
const QUEUED = arg('queued', 0) > 0;
const site = await startArticleSite();
const { origin } = site;

const clusters = {};
for (const [name, root] of [['A', A], ['B', B]]) {
  clusters[name] = await (await import(join(root, 'scripts/bench/bench-cluster.mjs'))).startBenchCluster();
  clusters[name].gatewayRunsLocally(!QUEUED);
}

// The clients run in a process of their own (scrape-client.mjs), as a user's do.
const client = startScrapeClient();
let seq = 0;
async function block(c, n, parallel) {
  const bodies = Array.from({ length: n }, () => JSON.stringify({ url: `${origin}/${seq++}`, formats: ['markdown'], maxAge: 0 }));
  const cpu0 = process.cpuUsage();
  const { times, wallMs } = await client.run({ url: `${c.url}/v2/scrape`, key: c.key, bodies, parallel });
  const cpu = process.cpuUsage(cpu0);
  return { latencies: times, rps: n / wallMs * 1000, cpuMs: (cpu.user + cpu.system) / 1000 / n };
}
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];

console.log(`\n## Sync scrape A/B, ${QUEUED ? 'queued' : 'embedded'}, ${ROUNDS} rounds\nA ${A}\nB ${B}\n`);
console.log('| parallel | p50 ms A | p50 ms B | B/A | req/s A | req/s B | B/A | CPU ms/req A | CPU ms/req B | B/A |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const parallel of [1, 8]) {
  const size = parallel === 1 ? 100 : 200;
  for (const name of ['A', 'B']) await block(clusters[name], 2 * size, parallel); // warm-up
  const acc = { A: { lat: [], rps: [], cpu: [] }, B: { lat: [], rps: [], cpu: [] } };
  for (let r = 0; r < ROUNDS; r++) {
    for (const name of r % 2 ? ['B', 'A'] : ['A', 'B']) {
      const b = await block(clusters[name], size, parallel);
      acc[name].lat.push(...b.latencies);
      acc[name].rps.push(b.rps);
      acc[name].cpu.push(b.cpuMs);
    }
  }
  const [a, b] = [acc.A, acc.B];
  const f = (x) => x.toFixed(2);
  const ratio = (x, y) => (y / x).toFixed(3);
  console.log(`| ${parallel} | ${f(median(a.lat))} | ${f(median(b.lat))} | ${ratio(median(a.lat), median(b.lat))} | ${f(median(a.rps))} | ${f(median(b.rps))} | ${ratio(median(a.rps), median(b.rps))} | ${f(median(a.cpu))} | ${f(median(b.cpu))} | ${ratio(median(a.cpu), median(b.cpu))} |`);
}
client.close();
for (const c of Object.values(clusters)) await c.close();
site.close();
process.exit(0);
