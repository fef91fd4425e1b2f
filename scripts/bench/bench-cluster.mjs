// Shared by the benchmarks that run the whole cluster in-process: numeric `--name value` arguments,
// and an embedded Redis + worker + API with one unlimited team. Not a benchmark itself (no
// `.bench.mjs` suffix, so `npm run bench` does not run it).
import { createServer } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
