// Sync scrapes at a team's limits and beyond, against the API and an http worker running as separate
// processes (Redis on loopback, corpus pages served by a loopback origin after a think time). Phases,
// each bounded in time and in request count:
//   1. at the limit: closed-loop clients = team concurrency;
//   2. beyond concurrency: 2x and 4x the clients (the excess waits in the backlog, reported as
//      concurrencyLimited with its queue duration);
//   3. beyond the rate: a team with a small ratePerMinute hammered open-loop (429 + Retry-After);
//   4. beyond the backlog cap: bursts larger than concurrency + cap at a second gateway started with a
//      small TRAWL_BACKLOG_CAP, on the same Redis and worker (the excess gets 429 at once);
//   5. soak at the limit, the longest phase, sampling each process's RSS and heap every second.
// Latency figures are ratios against a direct fetch() of the same origin at the same client count,
// measured in the same run. Exits non-zero on any 5xx, connection error, request outliving its timeout
// + grace + margin, malformed body, or failed check. Writes .bench/load.json.
// Usage: node scripts/bench/load.bench.mjs [--seconds 20] [--soak 120] [--concurrency 8] [--think 50]
//   [--timeout 30000] [--rate 60] [--rate-rps 10] [--backlog-concurrency 2] [--backlog-cap 4]
//   [--burst 24] [--burst-rounds 3] [--max-requests 5000] [--baseline-seconds 3] [--pages 40]
//   [--rss-tolerance 1.25] [--heap-tolerance 1.15] [--gc-every 5] [--probe-max 65]
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { arg } from './bench-cluster.mjs';
import { ROOT, cpuSeconds, redisKeyFamilies, rssBytes, startLoadCluster, startOrigin } from './load-cluster.mjs';
import { burst, closedLoop, median, openLoop, quantile, scrapeClient, summarize } from './load-drivers.mjs';

const opt = {
  seconds: arg('seconds', 20), soak: arg('soak', 120), concurrency: arg('concurrency', 8), thinkMs: arg('think', 50),
  timeoutMs: arg('timeout', 30_000), rate: arg('rate', 60), rateRps: arg('rate-rps', 10),
  backlogConcurrency: arg('backlog-concurrency', 2), backlogCap: arg('backlog-cap', 4), burst: arg('burst', 24),
  burstRounds: arg('burst-rounds', 3), maxRequests: arg('max-requests', 5000), baselineSeconds: arg('baseline-seconds', 3),
  pages: arg('pages', 40), rssTolerance: arg('rss-tolerance', 1.25), heapTolerance: arg('heap-tolerance', 1.15),
  gcEverySec: arg('gc-every', 5), probeMaxSec: arg('probe-max', 65),
};
const minOf = (xs) => (xs.length ? Math.min(...xs) : NaN);
const maxOf = (xs) => (xs.length ? Math.max(...xs) : NaN);
const GRACE_MS = 2000; // the API's TRAWL_SYNC_GRACE_MS, set explicitly below
const MARGIN_MS = 2000; // an answer later than timeout + grace + this counts as overdue
const ADMIN_KEY = `load-admin-${process.pid}-0123456789abcdef`;
const CORPUS = join(ROOT, '../shared/corpora/readability/test-pages');
if (!existsSync(CORPUS)) {
  console.error(`corpus not found: ${CORPUS}`);
  process.exit(1);
}
process.once('SIGINT', () => process.exit(130)); // the cluster's exit hook kills the children

const checks = [];
const check = (name, ok, detail = '') => checks.push({ name, ok: Boolean(ok), detail });
const C = opt.concurrency;

const origin = await startOrigin({ corpus: CORPUS, pages: opt.pages, thinkMs: opt.thinkMs });
const cluster = await startLoadCluster({
  adminKey: ADMIN_KEY,
  apiEnv: { TRAWL_SYNC_GRACE_MS: String(GRACE_MS) },
});
const { api, worker, redis } = cluster;
const samples = [];
let phase = 'setup';
const sampler = setInterval(() => {
  const t = Date.now();
  const at = phase;
  void Promise.all([api.memory(), worker.memory()]).then(([a, w]) => {
    samples.push({ t, phase: at, apiRss: a.rss, apiHeap: a.heapUsed, workerRss: w.rss, workerHeap: w.heapUsed, redisRss: rssBytes(redis.pid) });
  });
}, 1000);

async function admin(method, path, body) {
  const res = await fetch(`${api.url}${path}`, {
    method, headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = await res.json();
  if (!res.ok || !json.success) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}
async function createTeam(name, limits) {
  const team = await admin('POST', '/admin/teams', { name, credits: null, ...limits });
  const { key } = await admin('POST', `/admin/teams/${team.id}/keys`, {});
  return { id: team.id, key, ...limits };
}

/** Milliseconds until the team holds no slot and waits for none (NaN if not within 10 s: a leak). */
async function drainMs(apiUrl, team) {
  const t0 = performance.now();
  while (performance.now() - t0 < 10_000) {
    const res = await fetch(`${apiUrl}/v2/team/queue-status`, { headers: { authorization: `Bearer ${team.key}` } });
    const j = await res.json();
    if (j.activeJobsInQueue === 0 && j.waitingJobsInQueue === 0) return performance.now() - t0;
    await sleep(50);
  }
  return NaN;
}

/** Checks every phase must pass: no 5xx, no failed connection, nothing overdue, documented bodies. */
function checkClean(name, s) {
  check(`${name}: no 5xx`, s.serverErrors === 0, `${s.serverErrors}`);
  check(`${name}: no connection error`, s.connErrors === 0, `${s.connErrors}`);
  check(`${name}: none outlives timeout + grace + ${MARGIN_MS} ms`, s.overdue === 0, `${s.overdue}`);
  check(`${name}: bodies as documented`, s.malformed === 0, `${s.malformed} malformed`);
}

const phases = [];
const baseline = {};
let okTotal = 0; // successful scrapes of the whole run, warm-up included
let redisAfter = null;
const counted = (send) => async (...args) => {
  const r = await send(...args);
  if (r.status === 200) okTotal += 1;
  return r;
};
let gateway = null; // the small-cap gateway of phase 4
/** CPU seconds used so far by the gateways, the worker and Redis. */
function cpuNow() {
  return { api: cpuSeconds(api.pid) + (gateway ? cpuSeconds(gateway.pid) : 0), worker: cpuSeconds(worker.pid), redis: cpuSeconds(redis.pid) };
}
/** CPU ms per request of each process since `c0`, and the machine's load (other tenants included). */
function cpuSince(c0, requests) {
  const c = cpuNow();
  const per = (k) => ((c[k] - c0[k]) * 1000) / requests;
  return { apiMs: per('api'), workerMs: per('worker'), redisMs: per('redis'), loadAvg1: loadavg()[0] };
}
let failed = false;
let logs = [];
try {
  const limit = await createTeam('load-limit', { concurrency: C, ratePerMinute: 1_000_000 });
  const rated = await createTeam('load-rate', { concurrency: C, ratePerMinute: opt.rate });
  const backlogged = await createTeam('load-backlog', { concurrency: opt.backlogConcurrency, ratePerMinute: 1_000_000 });
  const scrape = counted(scrapeClient({ apiUrl: api.url, timeoutMs: opt.timeoutMs, graceMs: GRACE_MS, marginMs: MARGIN_MS }));
  const page = (i) => `${origin.url}/${i}`;

  // Baseline: the origin fetched directly at the same client count, measured just before each phase
  // that compares with it (the machine's other tenants come and go).
  async function measureBaseline(clients) {
    const run = await closedLoop({
      clients, seconds: opt.baselineSeconds, maxRequests: opt.maxRequests,
      send: async (i) => {
        const t0 = performance.now();
        await (await fetch(page(i))).arrayBuffer();
        return performance.now() - t0;
      },
    });
    return { clients, requests: run.results.length, p50: median(run.results), p95: quantile(run.results, 0.95), reqPerSec: run.results.length / (run.wallMs / 1000) };
  }

  async function closedPhase(name, { team, clients, seconds, maxRequests, shape, onStart }) {
    phase = `${name} (baseline)`;
    baseline[name] = await measureBaseline(clients);
    phase = name;
    onStart?.();
    const cpu0 = cpuNow();
    const run = await closedLoop({ clients, seconds, maxRequests, send: (i) => scrape(team.key, page(i)) });
    const s = summarize(run, { baselineP50: baseline[name].p50 });
    const cpu = cpuSince(cpu0, s.requests);
    const drain = await drainMs(api.url, team);
    phases.push({ name, shape, clients, team: { concurrency: team.concurrency, ratePerMinute: team.ratePerMinute }, drainMs: drain, cpu, ...s });
    checkClean(name, s);
    check(`${name}: all 200`, s.statuses[200] === s.requests, JSON.stringify(s.statuses));
    check(`${name}: team drained after the phase`, Number.isFinite(drain), `${drain.toFixed?.(0)} ms`);
    return s;
  }

  // Warm-up (JIT, connection pools, conversion thread): not reported, checked all the same.
  await closedPhase('warm-up', { team: limit, clients: C, seconds: 3, maxRequests: opt.maxRequests, shape: 'closed' });
  phases.pop();
  delete baseline['warm-up'];

  await closedPhase('1 at the limit', { team: limit, clients: C, seconds: opt.seconds, maxRequests: opt.maxRequests, shape: 'closed' });
  for (const factor of [2, 4]) {
    const name = `2 beyond concurrency ${factor}x`;
    const s = await closedPhase(name, { team: limit, clients: factor * C, seconds: opt.seconds, maxRequests: opt.maxRequests, shape: 'closed' });
    check(`${name}: the excess waits (concurrencyLimited)`, s.limitedShare > 0, `${(100 * s.limitedShare).toFixed(0)}%`);
    check(`${name}: no queue duration longer than the request`, s.waitLongerThanLatency === 0, `${s.waitLongerThanLatency}`);
  }

  // 3. Beyond the rate: open loop, so the 429s do not slow the sender down. Rate windows are wall-clock
  // minutes: the hammering starts early enough in one to end in it, which makes the probe below land
  // at the next window's start, the same way each run.
  phase = '3 beyond the rate';
  const room = 57_000 - opt.seconds * 1000;
  if (room > 0 && Date.now() % 60_000 > room) await sleep(60_000 - (Date.now() % 60_000) + 200);
  let cpu0 = cpuNow();
  const rateRun = await openLoop({ ratePerSec: opt.rateRps, seconds: opt.seconds, maxRequests: opt.maxRequests, send: (i) => scrape(rated.key, page(i)) });
  const rs = summarize(rateRun);
  const rateCpu = cpuSince(cpu0, rs.requests);
  const over = rateRun.results.filter((r) => r.status !== 200);
  const retryAfters = over.map((r) => Number(r.retryAfter));
  // A sliding window over a minute lets at most limit x (1 + seconds/60) through in `seconds`.
  const allowedMax = Math.ceil(opt.rate * (1 + opt.seconds / 60));
  // The probe waits up to a minute: it runs alongside the next phases (one request, a different team).
  const probes = probeRetryAfter(rated, over.at(-1));
  const rateRow = {
    name: phase, shape: `open ${opt.rateRps}/s`, clients: null, team: { concurrency: rated.concurrency, ratePerMinute: rated.ratePerMinute },
    allowedMax, retryAfter: { min: minOf(retryAfters), max: maxOf(retryAfters) }, cpu: rateCpu, ...rs,
  };
  phases.push(rateRow);
  checkClean(phase, rs);
  check(`${phase}: every refusal is 429 RATE_LIMITED`, over.every((r) => r.status === 429 && r.code === 'RATE_LIMITED'), JSON.stringify(rs.statuses));
  check(`${phase}: every 429 has Retry-After 1..120 s`, retryAfters.every((n) => Number.isInteger(n) && n >= 1 && n <= 120), `${minOf(retryAfters)}..${maxOf(retryAfters)}`);
  check(`${phase}: accepted within the window's allowance`, rs.ok.count >= 1 && rs.ok.count <= allowedMax, `${rs.ok.count} <= ${allowedMax}`);
  check(`${phase}: some refused`, rs.rejected.count > 0, `${rs.rejected.count}`);

  // 4. Beyond the backlog cap: a second gateway with a small cap, same Redis and worker.
  phase = '4 beyond the backlog cap';
  gateway = await cluster.addApi('api-smallcap', { TRAWL_BACKLOG_CAP: String(opt.backlogCap) });
  cpu0 = cpuNow();
  const capScrape = counted(scrapeClient({ apiUrl: gateway.url, timeoutMs: opt.timeoutMs, graceMs: GRACE_MS, marginMs: MARGIN_MS }));
  const rounds = [];
  for (let round = 0; round < opt.burstRounds; round++) {
    const run = await burst({ n: opt.burst, send: (i) => capScrape(backlogged.key, page(round * opt.burst + i)) });
    rounds.push({ run, drain: await drainMs(gateway.url, backlogged) });
  }
  const all = { results: rounds.flatMap((r) => r.run.results), wallMs: rounds.reduce((a, r) => a + r.run.wallMs, 0) };
  const bs = summarize(all);
  const burstCpu = cpuSince(cpu0, bs.requests);
  const fits = opt.backlogConcurrency + opt.backlogCap;
  const acceptedPerRound = rounds.map((r) => r.run.results.filter((x) => x.status === 200).length);
  const refused = all.results.filter((r) => r.status !== 200);
  phases.push({
    name: phase, shape: `${opt.burstRounds} bursts of ${opt.burst}`, clients: opt.burst,
    team: { concurrency: backlogged.concurrency, ratePerMinute: backlogged.ratePerMinute, backlogCap: opt.backlogCap },
    acceptedPerRound, drainMs: maxOf(rounds.map((r) => r.drain)),
    retryAfterOnBacklogFull: refused.filter((r) => r.retryAfter !== null).length, cpu: burstCpu, ...bs,
  });
  checkClean(phase, bs);
  check(`${phase}: every refusal is 429 CONCURRENCY_BACKLOG_FULL`, refused.every((r) => r.status === 429 && r.code === 'CONCURRENCY_BACKLOG_FULL'), JSON.stringify(bs.statuses));
  check(`${phase}: concurrency + cap accepted in each burst`, acceptedPerRound.every((n) => n >= fits), `${acceptedPerRound.join(', ')} (>= ${fits})`);
  check(`${phase}: the excess refused in each burst`, acceptedPerRound.every((n) => n < opt.burst), `${acceptedPerRound.join(', ')} of ${opt.burst}`);
  check(`${phase}: refusals at once (429 p95 < 200 p50)`, bs.rejected.p95 < bs.ok.p50, `${bs.rejected.p95.toFixed(1)} < ${bs.ok.p50.toFixed(1)} ms`);
  check(`${phase}: team drained after each burst`, rounds.every((r) => Number.isFinite(r.drain)));

  // 5. Soak at the limit: the memory phase. Heap after a forced full GC every --gc-every seconds.
  const soakName = '5 soak at the limit';
  let afterGc;
  await closedPhase(soakName, {
    team: limit, clients: C, seconds: opt.soak, maxRequests: Math.round((opt.maxRequests * opt.soak) / opt.seconds), shape: 'closed',
    onStart: () => { afterGc = sampleHeapAfterGc(() => phase === soakName); },
  });
  phase = 'done';
  const memory = soakMemory(samples.filter((x) => x.phase === soakName), await afterGc);
  for (const key of ['apiRss', 'workerRss']) {
    check(`soak: ${key} flat (last/first quarter median <= ${opt.rssTolerance})`, memory[key].ratio <= opt.rssTolerance, memory[key].ratio.toFixed(3));
  }
  for (const key of ['apiHeapAfterGc', 'workerHeapAfterGc']) {
    check(`soak: ${key} flat (last/first quarter median <= ${opt.heapTolerance})`, memory[key].ratio <= opt.heapTolerance, memory[key].ratio.toFixed(3));
  }
  phases.at(-1).memory = memory;
  rateRow.probes = await probes;
  rateRow.drainMs = await drainMs(api.url, rated);
  check(`${rateRow.name}: team drained after the phase`, Number.isFinite(rateRow.drainMs));
  redisAfter = { ...(await redisKeyFamilies(redis.url)), scrapes: okTotal };
  logs = cluster.logs();
} catch (err) {
  failed = true;
  console.error(err);
  logs = cluster.logs();
} finally {
  clearInterval(sampler);
  failed ||= checks.some((c) => !c.ok);
  const exits = await cluster.close({ keepLogs: failed });
  for (const e of exits) check(`${e.name} stops on SIGTERM with exit 0`, e.code === 0, `code ${e.code}, signal ${e.signal}`);
  failed ||= checks.some((c) => !c.ok);
  await origin.close();
}

report();
process.exitCode = failed ? 1 : 0;

/**
 * After the hammering, waits for the last 429's Retry-After (when short enough to wait for) and sends
 * one request: does the rate limiter admit a client that honours Retry-After? If not, one more a
 * second later.
 */
async function probeRetryAfter(team, last) {
  const sec = Number(last?.retryAfter);
  if (!Number.isInteger(sec) || sec > opt.probeMaxSec) return { skipped: `Retry-After ${last?.retryAfter} s > ${opt.probeMaxSec} s` };
  const send = scrapeClient({ apiUrl: api.url, timeoutMs: opt.timeoutMs, graceMs: GRACE_MS, marginMs: MARGIN_MS });
  const sentAt = last.at + last.ms; // when the client read the Retry-After
  await sleep(Math.max(0, sentAt + sec * 1000 - performance.now()));
  const first = await send(team.key, `${origin.url}/0`);
  const out = { waitedSec: sec, atRetryAfter: { status: first.status, retryAfter: first.retryAfter ?? null } };
  if (first.status === 429) {
    await sleep(1500);
    const second = await send(team.key, `${origin.url}/1`);
    out.after1500ms = { status: second.status, retryAfter: second.retryAfter ?? null };
  }
  return out;
}

/**
 * First- and last-quarter medians of each memory series of the soak (RSS and heap in use sampled each
 * second; heap after a full GC each --gc-every seconds), and their ratio: near 1 is flat.
 */
function soakMemory(series, gcSeries) {
  const quarters = (values) => {
    const q = Math.max(1, Math.floor(values.length / 4));
    const first = median(values.slice(0, q));
    const last = median(values.slice(-q));
    return { first, last, ratio: last / first, max: maxOf(values) };
  };
  const out = { samples: series.length, gcSamples: gcSeries.length };
  for (const key of ['apiRss', 'apiHeap', 'workerRss', 'workerHeap', 'redisRss']) out[key] = quarters(series.map((x) => x[key]).filter(Number.isFinite));
  out.apiHeapAfterGc = quarters(gcSeries.map((x) => x.api));
  out.workerHeapAfterGc = quarters(gcSeries.map((x) => x.worker));
  out.heapAfterGcSeries = gcSeries;
  return out;
}

/** Heap after a forced full GC of the API and the worker, every --gc-every seconds while `going()`. */
async function sampleHeapAfterGc(going) {
  const out = [];
  while (going()) {
    const t = Date.now();
    const [a, w] = await Promise.all([api.heapAfterGc(), worker.heapAfterGc()]);
    out.push({ t, api: a, worker: w });
    const next = t + opt.gcEverySec * 1000;
    while (going() && Date.now() < next) await sleep(100);
  }
  return out;
}

function report() {
  const f = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '-');
  const mb = (x) => f(x / 1024 / 1024, 1);
  const statusText = (s) => Object.entries(s).map(([k, v]) => `${k}: ${v}`).join(', ');
  console.log(`\n## Load: sync scrapes at and beyond a team's limits (API and worker as separate processes)\n`);
  console.log(`Origin think time ${opt.thinkMs} ms, ${origin.pages} corpus pages; team concurrency ${C}; request timeout ${opt.timeoutMs} ms.\n`);
  console.log(`| baseline: direct fetch before the phase (${opt.baselineSeconds} s) | clients | requests | p50 ms | p95 ms | req/s |`);
  console.log('|---|---|---|---|---|---|');
  for (const [name, b] of Object.entries(baseline)) console.log(`| ${name} | ${b.clients} | ${b.requests} | ${f(b.p50)} | ${f(b.p95)} | ${f(b.reqPerSec)} |`);
  console.log('\n| phase | team | load | requests | statuses | req/s | 200 p50 ms | 200 p95 ms | 200 p99 ms | p50 / baseline | limited | queue p50 ms | queue p95 ms | 429 p50 ms | 5xx |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const p of phases) {
    const team = `c=${p.team.concurrency}, ${p.team.ratePerMinute >= 1_000_000 ? 'no rate' : `${p.team.ratePerMinute}/min`}${p.team.backlogCap ? `, cap ${p.team.backlogCap}` : ''}`;
    const load = p.shape === 'closed' ? `${p.clients} closed-loop` : p.shape;
    console.log(`| ${p.name} | ${team} | ${load} | ${p.requests} | ${statusText(p.statuses)} | ${f(p.reqPerSec)} | ${f(p.ok.p50)} | ${f(p.ok.p95)} | ${f(p.ok.p99)} | ${p.p50VsBaseline ? `${f(p.p50VsBaseline, 2)}x` : '-'} | ${f(100 * p.limitedShare, 0)}% | ${f(p.queueMs.p50, 0)} | ${f(p.queueMs.p95, 0)} | ${f(p.rejected.p50)} | ${p.serverErrors} |`);
  }
  console.log('\n| phase | API CPU ms/request | worker CPU ms/request | Redis CPU ms/request | load average (1 min) at the end |');
  console.log('|---|---|---|---|---|');
  for (const p of phases) console.log(`| ${p.name} | ${f(p.cpu.apiMs, 2)} | ${f(p.cpu.workerMs, 2)} | ${f(p.cpu.redisMs, 2)} | ${f(p.cpu.loadAvg1)} |`);
  console.log('');
  for (const p of phases.filter((x) => x.name.startsWith('2') || x.name.startsWith('1') || x.name.startsWith('5'))) {
    // Little's law: clients - concurrency requests wait at any moment, so the mean wait is that over throughput.
    const predicted = (Math.max(0, p.clients - p.team.concurrency) / p.okPerSec) * 1000;
    console.log(`- ${p.name}: mean queue duration ${f(p.queueMs.mean, 0)} ms (Little's law predicts ${f(predicted, 0)} ms); limited requests' latency minus their wait p50 ${f(p.afterSlotP50, 0)} ms; drained in ${f(p.drainMs, 0)} ms.`);
  }
  const rate = phases.find((p) => p.name.startsWith('3'));
  if (rate) console.log(`- ${rate.name}: ${rate.ok.count} accepted (window allows at most ${rate.allowedMax}), Retry-After ${rate.retryAfter.min}..${rate.retryAfter.max} s; honouring the last Retry-After: ${JSON.stringify(rate.probes)}.`);
  const cap = phases.find((p) => p.name.startsWith('4'));
  if (cap) console.log(`- ${cap.name}: accepted per burst ${cap.acceptedPerRound.join(', ')} (concurrency + cap = ${cap.team.concurrency + cap.team.backlogCap}); 429s with Retry-After: ${cap.retryAfterOnBacklogFull} of ${cap.rejected.count}.`);
  const mem = phases.find((p) => p.memory)?.memory;
  if (mem) {
    console.log(`\n| soak memory (${mem.samples} samples, 1/s) | first quarter median MiB | last quarter median MiB | last/first | max MiB |`);
    console.log('|---|---|---|---|---|');
    const names = {
      apiRss: 'API RSS', apiHeap: 'API heap used', apiHeapAfterGc: `API heap after full GC (${mem.gcSamples} samples)`,
      workerRss: 'worker RSS', workerHeap: 'worker heap used', workerHeapAfterGc: `worker heap after full GC (${mem.gcSamples} samples)`,
      redisRss: 'Redis RSS',
    };
    for (const [key, label] of Object.entries(names)) console.log(`| ${label} | ${mb(mem[key].first)} | ${mb(mem[key].last)} | ${f(mem[key].ratio, 3)} | ${mb(mem[key].max)} |`);
  }
  if (redisAfter) {
    const top = redisAfter.families.slice(0, 4).map((x) => `\`${x.family}\` ${mb(x.bytes)} MiB (${x.keys} keys)`).join(', ');
    console.log(`\nRedis after ${redisAfter.scrapes} scrapes: ${mb(redisAfter.usedMemory)} MiB used, ${f(redisAfter.usedMemory / redisAfter.scrapes / 1024)} KiB per scrape; largest key families: ${top}.`);
  }
  const bad = checks.filter((c) => !c.ok);
  console.log(`\nChecks: ${checks.length - bad.length}/${checks.length} passed.`);
  for (const c of bad) console.log(`- FAILED ${c.name}: ${c.detail}`);
  for (const p of phases) for (const x of p.samples5xx ?? []) console.log(`- ${p.name}: ${JSON.stringify(x)}`);
  for (const { name, file, lines } of logs) {
    if (lines.length) console.log(`- ${name} logged ${lines.length} lines at warn or above${failed ? ` (${file})` : ''}; first: ${lines[0].slice(0, 400)}`);
  }
  mkdirSync(join(ROOT, '.bench'), { recursive: true });
  writeFileSync(join(ROOT, '.bench/load.json'), JSON.stringify({
    options: opt, baseline, phases, redisAfter, memorySamples: samples, checks,
  }, null, 2));
}
