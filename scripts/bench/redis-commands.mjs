// Redis cost per page, for sizing: Redis commands and Redis CPU per sync scrape (fetched, and a cache
// hit) and per crawl page, through the whole cluster (API + one worker in this process, built code).
// Each phase runs twice: once under MONITOR, which tells commands sent by clients from commands run
// inside Lua scripts; once without, for Redis CPU (INFO cpu) and INFO commandstats. Not a benchmark
// (no `.bench.mjs` suffix: `npm run bench` does not run it); figures feed the README's sizing paragraph.
// `--cluster 3` runs on a Redis Cluster of that many primaries (redis-server children) instead, and
// also tells each primary's share of the commands (the hottest one limits a Cluster).
//   node scripts/bench/redis-commands.mjs [--scrapes 300] [--pages 500] [--parallel 8] [--cluster 3]
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, arg } from './bench-cluster.mjs';

const SCRAPES = arg('scrapes', 300);
const PAGES = arg('pages', 500);
const PARALLEL = arg('parallel', 8);
const CLUSTER = arg('cluster', 0);

const { RedisProcess } = await import(join(ROOT, 'packages/queue/dist/index.js'));
const { startApi, apiConfigSchema } = await import(join(ROOT, 'apps/api/dist/index.js'));
const { startWorker, workerConfigSchema } = await import(join(ROOT, 'apps/worker/dist/index.js'));
const { loadConfig } = await import(join(ROOT, 'packages/config/dist/index.js'));
const { createLogger } = await import(join(ROOT, 'packages/observability/dist/index.js'));
// The fixtures' own files: the package index also exports Jest fixtures, which need Jest's globals.
const { GeneratedSite } = await import(join(ROOT, 'packages/testing/dist/generated-site.js'));
const { RedisClusterFixture } = await import(join(ROOT, 'packages/testing/dist/redis-cluster.js'));
const { RedisMonitor } = await import(join(ROOT, 'packages/testing/dist/redis-monitor.js'));
const { Redis } = await import(join(ROOT, 'packages/queue/node_modules/ioredis/built/index.js'));

const html = `<html><head><title>Page</title></head><body><main><h1>A page</h1>${'<p>Some text of an article, long enough to convert. </p>'.repeat(40)}</main></body></html>`;
const site = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(html);
});
await new Promise((r) => site.listen(0, '127.0.0.1', r));
const origin = `http://127.0.0.1:${site.address().port}`;
const generated = await GeneratedSite.start({ pages: PAGES, branching: 8, latencyMs: 0, robots: false, sitemap: 'none' });

const dir = mkdtempSync(join(tmpdir(), 'trawl-redis-commands-'));
const redisProc = CLUSTER > 0 ? await RedisClusterFixture.start({ masters: CLUSTER }) : await new RedisProcess({ dir, appendonly: false }).start();
const env = {
  REDIS_URL: redisProc.url, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', TRAWL_ALLOW_PRIVATE_TARGETS: 'true',
  TRAWL_BOOTSTRAP_API_KEY: 'tr-bench-key-0123456789', TRAWL_WORKER_PORT: '0', TRAWL_CRAWL_HOST_RATE_PER_SEC: '100000',
  TRAWL_WORKER_CONCURRENCY: String(PARALLEL),
};
const logger = createLogger({ role: 'bench', level: 'silent' });
const worker = await startWorker(loadConfig(workerConfigSchema, env), { logger });
const api = await startApi(loadConfig(apiConfigSchema, env), { logger });
const team = await api.teams.resolveKey(env.TRAWL_BOOTSTRAP_API_KEY);
await api.teams.update(team.id, { concurrency: 1000, ratePerMinute: 1_000_000 });
/** One plain connection to every primary (MONITOR, INFO and CONFIG are per node). */
const admins = CLUSTER > 0 ? redisProc.ports.map((port) => new Redis({ host: '127.0.0.1', port })) : [new Redis(redisProc.url)];

async function call(method, path, body) {
  const res = await fetch(api.url + path, {
    method, ...(body ? { body: JSON.stringify(body) } : {}),
    headers: { authorization: `Bearer ${env.TRAWL_BOOTSTRAP_API_KEY}`, 'content-type': 'application/json' },
  });
  return res.json();
}

async function scrapes(n, maxAge, tag) {
  let next = 0;
  await Promise.all(Array.from({ length: PARALLEL }, async () => {
    while (next < n) {
      const i = next++;
      const url = maxAge === 0 ? `${origin}/${tag}/${i}` : `${origin}/hit`;
      const json = await call('POST', '/v2/scrape', { url, formats: ['markdown'], ...(maxAge === 0 ? { maxAge: 0 } : {}) });
      if (!json.success) throw new Error(JSON.stringify(json));
    }
  }));
  return n;
}

async function crawl() {
  const start = await call('POST', '/v2/crawl', { url: generated.url('/'), limit: PAGES * 2, sitemap: 'skip', scrapeOptions: { formats: ['markdown'], maxAge: 0 } });
  for (;;) {
    const s = await call('GET', `/v2/crawl/${start.id}?limit=1`);
    if (s.status !== 'scraping') return s.completed;
    await new Promise((r) => setTimeout(r, 200));
  }
}

const cpu = async () => {
  let total = 0;
  for (const admin of admins) {
    const info = await admin.info('cpu');
    const f = (k) => Number(new RegExp(`^${k}:([\\d.]+)`, 'm').exec(info)[1]);
    total += f('used_cpu_sys') + f('used_cpu_user');
  }
  return total;
};

/**
 * The key family a command works on, by the hash tag of its first tagged argument: a BullMQ queue,
 * a team, a crawl, a crawled host, the page cache; `other` for untagged keys (results, cancellations...).
 */
function family(args) {
  for (const a of args.slice(1)) {
    // A key's tag: a brace with no quote or space before or inside it (not JSON in a job payload).
    const tag = /^[^{}"\s]*\{([^{}"\s]+)\}/.exec(String(a))?.[1];
    if (tag === undefined) continue;
    if (tag.startsWith('h:')) return 'host'; // a crawled host's politeness keys
    if (tag.includes(':') && !/^[tcmuxs]:/.test(tag)) return `bull ${tag.split(':').pop()}`;
    if (tag === 'trawl') return 'bull (one tag)';
    if (tag.startsWith('t:')) return 'team';
    if (tag.startsWith('c:')) return 'crawl';
    if (/^c\d+$/.test(tag)) return 'page cache';
    return 'other';
  }
  return 'other';
}

/** Runs `fn` under MONITOR: [client commands, commands inside scripts] per page, and the commands by key family. */
async function counted(fn) {
  const monitors = await Promise.all(admins.map((admin) => RedisMonitor.start(admin.options.host, admin.options.port)));
  let client = 0;
  let lua = 0;
  const families = new Map();
  for (const monitor of monitors) {
    monitor.on(({ args, source }) => {
      if (String(source).includes('lua')) lua++;
      else if (!['monitor', 'info', 'config', 'cluster'].includes(String(args[0]).toLowerCase())) client++;
      else return;
      const f = family(args);
      families.set(f, (families.get(f) ?? 0) + 1);
    });
  }
  const pages = await fn();
  await new Promise((r) => setTimeout(r, 300)); // the last MONITOR lines
  for (const monitor of monitors) monitor.stop();
  return { client: client / pages, lua: lua / pages, families: [...families].sort((a, b) => b[1] - a[1]).map(([f, n]) => [f, n / (client + lua)]) };
}

/** Runs `fn` without MONITOR: Redis CPU ms per page and the top commands (calls per page). */
async function timed(fn) {
  for (const admin of admins) await admin.config('RESETSTAT');
  const c0 = await cpu();
  const t0 = performance.now();
  const pages = await fn();
  const wallS = (performance.now() - t0) / 1000;
  const cpuMs = ((await cpu()) - c0) * 1000;
  const byName = new Map();
  const perNode = [];
  for (const admin of admins) {
    const stats = await admin.info('commandstats');
    let calls = 0;
    for (const [, name, n] of stats.matchAll(/^cmdstat_(\S+?):calls=(\d+)/gm)) {
      if (['info', 'config', 'cluster'].includes(name)) continue;
      byName.set(name, (byName.get(name) ?? 0) + Number(n));
      calls += Number(n);
    }
    perNode.push(calls);
  }
  const top = [...byName].map(([name, calls]) => [name, calls / pages]).sort((a, b) => b[1] - a[1]).slice(0, 8);
  const total = perNode.reduce((a, b) => a + b, 0);
  return { cpuMsPerPage: cpuMs / pages, pagesPerSec: pages / wallS, top, shares: perNode.map((n) => n / total) };
}

// Warm-up (JIT, pools, script loading).
await scrapes(30, 0, 'warm');
await scrapes(10, undefined, 'warm');

const phases = [
  ['sync scrape, fetched (maxAge 0)', (tag) => () => scrapes(SCRAPES, 0, tag)],
  ['sync scrape, cache hit', (tag) => () => scrapes(SCRAPES, undefined, tag)],
  [`crawl page (${PAGES}-page generated site)`, () => () => crawl()],
];
const rows = [];
for (const [name, make] of phases) {
  const counts = await counted(make(`m${rows.length}`));
  const cost = await timed(make(`t${rows.length}`));
  rows.push({ name, ...counts, ...cost });
}

console.log(`\n## Redis cost per page (${PARALLEL} in flight; one worker and the API in-process${CLUSTER > 0 ? `; Redis Cluster of ${CLUSTER} primaries` : ''})\n`);
console.log('| work | commands sent by clients / page | commands run inside scripts / page | Redis CPU ms / page | pages/s here |');
console.log('|---|---:|---:|---:|---:|');
for (const r of rows) console.log(`| ${r.name} | ${r.client.toFixed(1)} | ${r.lua.toFixed(1)} | ${r.cpuMsPerPage.toFixed(3)} | ${r.pagesPerSec.toFixed(0)} |`);
console.log('\nTop commands per page (calls, commandstats, scripts included):');
for (const r of rows) console.log(`- ${r.name}: ${r.top.map(([n, c]) => `${n} ${c.toFixed(1)}`).join(', ')}`);
console.log('\nShare of the commands by key family (MONITOR; a family is one slot, except `other` and the page cache):');
for (const r of rows) console.log(`- ${r.name}: ${r.families.map(([f, x]) => `${f} ${(100 * x).toFixed(0)}%`).join(', ')}`);
if (CLUSTER > 0) {
  console.log('\nShare of the commands per primary (commandstats; the hottest first):');
  for (const r of rows) console.log(`- ${r.name}: ${[...r.shares].sort((a, b) => b - a).map((x) => `${(100 * x).toFixed(0)}%`).join(', ')}`);
}

for (const admin of admins) admin.disconnect();
await api.close({ graceMs: 1000 });
await worker.close({ graceMs: 1000 });
await redisProc.stop();
rmSync(dir, { recursive: true, force: true });
site.close();
await generated.close();
