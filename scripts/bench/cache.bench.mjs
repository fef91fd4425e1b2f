// Cached versus uncached scrape latency through the whole cluster, in one run. The same corpus pages
// (../shared/corpora/readability) are served on loopback twice over: instantly (the cache's worst
// case: a loopback fetch costs almost nothing) and with a server think time (`--delay`, default 150
// ms, a typical origin). Each URL is scraped once with `maxAge: 0` (a fetch, which stores it) and once
// with the default maxAge (a hit: the gateway answers it from the formats the fetch derived and kept).
// The ratio is hit / fetch; the hit is also compared with a bare Redis GET of the same cache entry
// (what a hit cannot go below), from this same client process over the same Redis, measured right after
// it. The hits run after every fetch of their round has answered, so no conversion shares the event
// loop with them (the API and the worker run in this one process, as in `npm start`).
// --hops 1: also prints where a hit's time goes inside the gateway, hop by hop (`trawl:hop` channel).
// Usage: node scripts/bench/cache.bench.mjs [--pages 40] [--delay 150] [--warmup 50] [--hops 1]
import { Agent, createServer, request as httpRequest } from 'node:http';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { mkdirSync, readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, arg, startBenchCluster } from './bench-cluster.mjs';

const PAGES = arg('pages', 40);
const DELAY_MS = arg('delay', 150);
const HOPS = arg('hops', 0) > 0;
const WARMUP = arg('warmup', 50);
const CORPUS = join(ROOT, '../shared/corpora/readability/test-pages');
if (!existsSync(CORPUS)) {
  console.error(`corpus not found: ${CORPUS}`);
  process.exit(1);
}


const pages = readdirSync(CORPUS).sort().slice(0, PAGES).map((d) => readFileSync(join(CORPUS, d, 'source.html')));
let served = 0;
const site = createServer((req, res) => {
  // /<delay>/<i>: the page i after `delay` ms.
  const [, delay, i] = (req.url ?? '/0/0').split('/');
  served += 1;
  setTimeout(() => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(pages[Number(i) % pages.length]);
  }, Number(delay));
});
await new Promise((r) => site.listen(0, '127.0.0.1', r));
const origin = `http://127.0.0.1:${site.address().port}`;

const cluster = await startBenchCluster();
const { PageCache, cacheKeyOf, derivedOptionsHash } = await import(join(ROOT, 'packages/queue/dist/index.js'));
const { scrapeRequestSchema } = await import(join(ROOT, 'packages/api-schema/dist/index.js'));
const { Redis } = await import(join(ROOT, 'packages/queue/node_modules/ioredis/built/index.js'));
const redis = new Redis(cluster.redisUrl);
// Same prefix and bounds as the cluster's cache (defaults): only the key is computed here.
const keys = new PageCache(redis, { prefix: 'trawl', maxBytes: 0, maxEntryBytes: 1, ttlSec: 0 });
/** A bare GET of the derived entry a hit of `url` reads (the request the hits send), ms; null when absent. */
async function bareGet(url) {
  const request = scrapeRequestSchema.parse({ url, formats: ['markdown'] });
  const key = keys.derivedRedisKey(cacheKeyOf(request, cluster.teamId), derivedOptionsHash(request));
  const t0 = performance.now();
  const value = await redis.getBuffer(key);
  const ms = performance.now() - t0;
  return value ? ms : null;
}

// The client: node:http on one kept-alive connection, as light as the Redis client the bare GET uses
// (fetch() adds about 1 ms of its own per request on this machine, which is the client, not the gateway).
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const api = new URL(cluster.url);
function post(path, body) {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: api.hostname, port: api.port, path, method: 'POST', agent,
      headers: { authorization: `Bearer ${cluster.key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
async function scrape(url, extra) {
  const t0 = performance.now();
  const json = await post('/v2/scrape', JSON.stringify({ url, formats: ['markdown'], ...extra }));
  if (!json.success) throw new Error(JSON.stringify(json));
  return { ms: performance.now() - t0, state: json.data.metadata.cacheState };
}
function stats(ms) {
  const s = [...ms].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { p50: q(0.5), p95: q(0.95), mean: s.reduce((a, b) => a + b, 0) / s.length };
}

// Warm-up (JIT, threads, pools) on URLs not measured (the corpus pages under other paths).
for (let i = 0; i < WARMUP; i++) {
  const url = `${origin}/0/${1000 + i}`;
  await scrape(url, { maxAge: 0 });
  await scrape(url, {});
  await bareGet(url);
}
const rows = [];
const hops = new Map();
const onHop = ({ hop, ms }) => {
  if (!hops.has(hop)) hops.set(hop, []);
  hops.get(hop).push(ms);
};
let hitCount = 0;
for (const delay of [0, DELAY_MS]) {
  const miss = [];
  const hit = [];
  const get = [];
  const servedBefore = served;
  // Every URL fetched first (each stores it); its hits after, once no conversion runs, each followed by a
  // bare GET of the same entry from this process (noise hits both alike).
  for (let i = 0; i < pages.length; i++) {
    const a = await scrape(`${origin}/${delay}/${i}`, { maxAge: 0 });
    if (a.state !== 'miss') throw new Error(`unexpected cache state ${a.state} for a fetch`);
    miss.push(a.ms);
  }
  if (HOPS) subscribe('trawl:hop', onHop);
  for (let i = 0; i < pages.length; i++) {
    const url = `${origin}/${delay}/${i}`;
    const b = await scrape(url, {});
    if (b.state !== 'hit') throw new Error(`unexpected cache state ${b.state} for a hit`);
    hit.push(b.ms);
    if (HOPS) onHop({ hop: 'client:total', ms: b.ms });
    const g = await bareGet(url);
    if (g === null) throw new Error('no derived cache entry for a hit');
    get.push(g);
  }
  if (HOPS) unsubscribe('trawl:hop', onHop);
  hitCount += pages.length;
  rows.push({ delay, fetch: stats(miss), hit: stats(hit), get: stats(get), targetRequests: served - servedBefore });
}

const f = (x) => x.toFixed(1);
console.log(`\n## Cached vs uncached scrape latency (${pages.length} corpus pages, sequential, through the cluster)\n`);
console.log('| origin delay ms | fetch p50 ms | fetch p95 ms | hit p50 ms | hit p95 ms | hit/fetch p50 | bare GET p50 ms | hit - GET p50 ms | target requests |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(`| ${r.delay} | ${f(r.fetch.p50)} | ${f(r.fetch.p95)} | ${f(r.hit.p50)} | ${f(r.hit.p95)} | ${(r.hit.p50 / r.fetch.p50).toFixed(2)}x | ${r.get.p50.toFixed(2)} | ${f(r.hit.p50 - r.get.p50)} | ${r.targetRequests} (of ${2 * pages.length} scrapes) |`);
}
if (HOPS) {
  console.log(`\n## Where a gateway hit's time goes (${hitCount} hits, one in flight)\n`);
  console.log('`client:total` is the whole request seen by the client; `gateway:total` from the request-id middleware to the response handed to the socket; the rest are steps inside it (cache-lookup and credits overlap).\n');
  console.log('| hop | p50 ms | mean ms | times per hit |');
  console.log('|---|---|---|---|');
  for (const [hop, ms] of [...hops].sort(([a], [b]) => a.localeCompare(b))) {
    const st = stats(ms);
    console.log(`| ${hop} | ${st.p50.toFixed(2)} | ${st.mean.toFixed(2)} | ${(ms.length / hitCount).toFixed(2)} |`);
  }
}
mkdirSync(join(ROOT, '.bench'), { recursive: true });
writeFileSync(join(ROOT, '.bench/cache.json'), JSON.stringify({ pages: pages.length, rows }, null, 2));

redis.disconnect();
agent.destroy();
await cluster.close();
site.close();
