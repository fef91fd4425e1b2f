// Shared by the benchmarks that run the whole cluster in-process: numeric `--name value` arguments,
// and an embedded Redis + worker + API with one unlimited team; and by those that run it (or another
// crawler) in a child process: `startChild`, `EMBEDDED_CHILD`, `pssBytes`. Not a benchmark itself (no
// `.bench.mjs` suffix, so `npm run bench` does not run it).
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export const ROOT = new URL('../..', import.meta.url).pathname;

/** The number after `--<name>` on the command line, or `def`. */
export function arg(name, def) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
}

/** Starts Redis, a worker and the API (built code) with `env` added; `close()` stops them all. */
export async function startBenchCluster(env = {}) {
  const { RedisProcess } = await import(join(ROOT, 'packages/queue/dist/index.js'));
  const { startApi, apiConfigSchema } = await import(join(ROOT, 'apps/api/dist/index.js'));
  const { startWorker, workerConfigSchema } = await import(join(ROOT, 'apps/worker/dist/index.js'));
  const { loadConfig } = await import(join(ROOT, 'packages/config/dist/index.js'));
  const { createLogger } = await import(join(ROOT, 'packages/observability/dist/index.js'));
  const dir = mkdtempSync(join(tmpdir(), 'trawl-bench-'));
  const redis = await new RedisProcess({ dir, appendonly: false }).start();
  const fullEnv = {
    REDIS_URL: redis.url, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', TRAWL_ALLOW_PRIVATE_TARGETS: 'true',
    TRAWL_BOOTSTRAP_API_KEY: 'tr-bench-key-0123456789', TRAWL_WORKER_PORT: '0', ...env,
  };
  const logger = createLogger({ role: 'bench', level: 'silent' });
  const worker = await startWorker(loadConfig(workerConfigSchema, fullEnv), { logger });
  const api = await startApi(loadConfig(apiConfigSchema, fullEnv), { logger });
  // As `npm start` (apps/cli/src/embedded.ts): a scrape the API admits runs in this process's worker
  // at once, without the queue hop. `gatewayRunsLocally(false)` sends them through BullMQ instead, as
  // a gateway in its own process (a split deployment) does.
  // BENCH_NO_LOCAL_RESULTS=1: outcomes reach the gateway through the results channel even in-process (A/B).
  const local = process.env.BENCH_NO_LOCAL_RESULTS === '1' ? {} : { results: worker.results, pageCache: worker.pageCache };
  api.runLocally(worker.localRunner, local);
  const team = await api.teams.resolveKey(fullEnv.TRAWL_BOOTSTRAP_API_KEY);
  await api.teams.update(team.id, { concurrency: 1000, ratePerMinute: 1_000_000 });
  return {
    url: api.url,
    key: fullEnv.TRAWL_BOOTSTRAP_API_KEY,
    redisUrl: redis.url,
    teamId: team.id,
    gatewayRunsLocally: (on) => api.runLocally(on ? worker.localRunner : undefined, local),
    async close() {
      await api.close({ graceMs: 1000 });
      await worker.close({ graceMs: 1000 });
      await redis.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The first `count` real articles of ../shared/corpora/readability served on loopback: `GET /<i>` is
 * article `i % count` (so every request of a run is a distinct URL). Exits when the corpus is absent.
 */
export async function startArticleSite(count = 20) {
  const corpus = join(ROOT, '../shared/corpora/readability/test-pages');
  if (!existsSync(corpus)) {
    console.error(`corpus not found: ${corpus}`);
    process.exit(1);
  }
  const pages = readdirSync(corpus).sort().slice(0, count).map((d) => readFileSync(join(corpus, d, 'source.html')));
  const server = createServer((req, res) => {
    const i = Number((req.url ?? '/0').slice(1)) % pages.length;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(pages[i]);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { origin: `http://127.0.0.1:${server.address().port}`, pages: pages.length, close: () => server.close() };
}

/**
 * A child node process running `script` (with `env` added), which prints one JSON line with `bench: true`
 * for each answer: `next()` resolves with the next one (rejects once the child has exited without it),
 * `exited` with its exit code and signal. Its other output goes to stderr.
 */
export function startChild(script, env = {}) {
  // A file, not `-e`: the worker's threads inherit the process's execArgv, where --input-type fails.
  const file = join(mkdtempSync(join(tmpdir(), 'trawl-bench-child-')), 'child.mjs');
  writeFileSync(file, script);
  const child = spawn(process.execPath, [file], {
    cwd: ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = [];
  let buf = '';
  const waiters = [];
  child.stdout.on('data', (d) => {
    buf += d;
    for (let i; (i = buf.indexOf('\n')) >= 0; ) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      // The child's own answers carry `bench`; anything else (logs) goes to stderr.
      let msg;
      try { msg = JSON.parse(line); } catch { msg = undefined; }
      if (!msg?.bench) { process.stderr.write(line + '\n'); continue; }
      lines.push(msg);
      for (const w of waiters.splice(0)) w();
    }
  });
  const exited = new Promise((r) => child.on('exit', (code, signal) => {
    rmSync(dirname(file), { recursive: true, force: true });
    r({ code, signal });
  }));
  const next = async () => {
    while (lines.length === 0) {
      const gone = await Promise.race([exited.then((e) => e), new Promise((r) => waiters.push(() => r(undefined)))]);
      if (gone && lines.length === 0) throw new Error(`child exited (${JSON.stringify(gone)}) before answering`);
    }
    return lines.shift();
  };
  return { child, next, exited };
}

/**
 * The script of a {@link startChild} running `npm start`'s embedded server (API, workers, a redis-server
 * child): it answers `{url, key}` once up, its bootstrap team at concurrency BENCH_TEAM_CONCURRENCY with
 * no rate limit to speak of; a line on its stdin stops it (answer `{stopped: true}`).
 */
export const EMBEDDED_CHILD = `
const { startEmbedded } = await import(${JSON.stringify(join(ROOT, 'apps/cli/dist/embedded.js'))});
const handle = await startEmbedded({ ...process.env });
const team = await handle.api.teams.resolveKey(handle.apiKey);
await handle.api.teams.update(team.id, { concurrency: Number(process.env.BENCH_TEAM_CONCURRENCY), ratePerMinute: 1_000_000 });
console.log(JSON.stringify({ bench: true, url: handle.api.url, key: handle.apiKey }));
process.stdin.on('data', async () => { await handle.stop(); console.log(JSON.stringify({ bench: true, stopped: true })); process.exit(0); });
`;

/** Proportional set size of a process (shared pages divided among the processes mapping them), bytes; undefined when unreadable. */
export function pssBytes(pid) {
  let rollup;
  try { rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'); } catch { return undefined; }
  const kb = /^Pss:\s+(\d+)\s+kB/m.exec(rollup)?.[1];
  return kb === undefined ? undefined : Number(kb) * 1024;
}
