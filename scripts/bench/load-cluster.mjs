// The load benchmark's cluster: Redis, then the API and an http worker as separate child processes
// (`node apps/*/dist/main.js`, configured by environment only, as a deployment runs them) so each
// process's memory can be read from /proc. Also the loopback origin that serves corpus pages after a
// think time. Not a benchmark itself (no `.bench.mjs` suffix, so `npm run bench` does not run it).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, openSync, closeSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRequire } from 'node:module';

export const ROOT = new URL('../..', import.meta.url).pathname;
// Node 20 has no WebSocket client of its own: the API's (it serves the crawl status stream with it).
const WebSocket = createRequire(join(ROOT, 'apps/api/package.json'))('ws');

/** A free TCP port on loopback (the child binds it a moment later; nothing else runs here). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createNetServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Resident set size of a process in bytes (VmRSS of /proc/<pid>/status), or NaN when gone. */
export function rssBytes(pid) {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** CPU time a process has used, user + system, in seconds (NaN when gone). */
export function cpuSeconds(pid) {
  try {
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}
const CLOCK_TICKS = 100; // USER_HZ: 100 on every Linux architecture Node runs on

/** The value of the series `name` in a Prometheus text exposition (any labels: the first one), or NaN. */
function metricValue(text, name) {
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'm').exec(text);
  return m ? Number(m[1]) : NaN;
}

/** A Chrome DevTools protocol session with a Node process (its `--inspect` port). */
class InspectorSession {
  static async open(port) {
    const [target] = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
    const socket = new WebSocket(target.webSocketDebuggerUrl);
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    return new InspectorSession(socket);
  }

  constructor(socket) {
    this.socket = socket;
    this.nextId = 1;
    this.pending = new Map();
    socket.on('message', (data) => {
      const msg = JSON.parse(data.toString());
      const waiter = this.pending.get(msg.id);
      if (!waiter) return; // an event, not an answer
      this.pending.delete(msg.id);
      if (msg.error) waiter.reject(new Error(`${msg.error.message} (${msg.error.code})`));
      else waiter.resolve(msg.result);
    });
  }

  call(method, params = {}) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.socket.send(JSON.stringify({ id, method, params }));
    });
  }

  close() {
    this.socket.close();
  }
}

/** A Node service (API or worker) run as a child process, its output in a log file. */
class NodeService {
  constructor({ name, entry, env, logFile, readyUrl, metricsUrl, inspectPort }) {
    this.name = name;
    this.readyUrl = readyUrl;
    this.metricsUrl = metricsUrl;
    this.logFile = logFile;
    this.inspectPort = inspectPort;
    const fd = openSync(logFile, 'a');
    // The inspector (loopback, a free port) lets the benchmark force a full GC before reading the heap.
    const args = [`--inspect=127.0.0.1:${inspectPort}`, join(ROOT, entry)];
    this.child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', fd, fd], cwd: ROOT });
    closeSync(fd);
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  get pid() {
    return this.child.pid;
  }

  get running() {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Resolves when the readiness endpoint answers 200; throws when the process dies or 30 s pass. */
  async waitReady() {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      if (!this.running) throw new Error(`${this.name} exited during start; see ${this.logFile}`);
      const ok = await fetch(this.readyUrl, { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false);
      if (ok) return;
      await sleep(100);
    }
    throw new Error(`${this.name} not ready after 30 s; see ${this.logFile}`);
  }

  /** RSS from /proc and the V8 heap in use from the process's own /metrics (NaN when unreadable). */
  async memory() {
    const rss = rssBytes(this.pid);
    const text = await fetch(this.metricsUrl, { signal: AbortSignal.timeout(2000) }).then((r) => r.text(), () => '');
    return { rss, heapUsed: metricValue(text, 'trawl_nodejs_heap_size_used_bytes') };
  }

  /**
   * V8 heap in use right after a full garbage collection, through the inspector protocol: what the
   * process really keeps, free of the collector's timing (the heap in use between collections saws
   * up and down by more than a leak would add in minutes).
   */
  async heapAfterGc() {
    this.session ??= await InspectorSession.open(this.inspectPort);
    await this.session.call('HeapProfiler.collectGarbage');
    const { usedSize } = await this.session.call('Runtime.getHeapUsage');
    return usedSize;
  }

  /** SIGTERM (graceful close), SIGKILL after `graceMs`. */
  async stop(graceMs = 10_000) {
    this.session?.close();
    this.session = undefined;
    if (!this.running) return this.exited;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    const result = await this.exited;
    clearTimeout(timer);
    return result;
  }

  /** Last exit resort (process 'exit' handler: synchronous). */
  kill() {
    if (this.running) this.child.kill('SIGKILL');
  }
}

/**
 * Starts Redis, one API (`apiEnv` added) and one http worker (`workerEnv` added). `addApi(env)` starts
 * another gateway on the same Redis (a different backlog cap, say). `close()` stops everything, in
 * reverse order, and removes the folder unless `keepLogs` (logs are kept on failure to be read).
 */
export async function startLoadCluster({ adminKey, apiEnv = {}, workerEnv = {} }) {
  const { RedisProcess } = await import(join(ROOT, 'packages/queue/dist/index.js'));
  const dir = mkdtempSync(join(tmpdir(), 'trawl-load-'));
  const redis = await new RedisProcess({ dir, appendonly: false }).start();
  const services = [];
  // A crash of this script must not leave children behind.
  const killAll = () => {
    for (const s of services) s.kill();
    if (redis.pid) try { process.kill(redis.pid, 'SIGKILL'); } catch { /* already gone */ }
  };
  process.once('exit', killAll);
  const common = {
    REDIS_URL: redis.url, LOG_LEVEL: 'warn', TRAWL_ALLOW_PRIVATE_TARGETS: 'true',
    // Shared by the processes as a deployment would (else each warns it signs alone).
    TRAWL_BLOB_SIGNING_SECRET: randomBytes(32).toString('hex'),
  };

  async function addApi(name, env = {}) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const api = new NodeService({
      name, entry: 'apps/api/dist/main.js', logFile: join(dir, `${name}.log`), inspectPort: await freePort(),
      env: {
        ...common, PORT: String(port), HOST: '127.0.0.1', TRAWL_ADMIN_KEY: adminKey,
        // Plain HTTP only: no browser or documents workers run in this test.
        TRAWL_BROWSER_ENABLED: 'false', TRAWL_DOCUMENTS_ENABLED: 'false', ...apiEnv, ...env,
      },
      readyUrl: `${url}/health/ready`, metricsUrl: `${url}/metrics`,
    });
    services.push(api);
    await api.waitReady();
    api.url = url;
    return api;
  }

  try {
    const workerPort = await freePort();
    const worker = new NodeService({
      name: 'worker', entry: 'apps/worker/dist/main.js', logFile: join(dir, 'worker.log'), inspectPort: await freePort(),
      env: {
        ...common, TRAWL_WORKER_ROLES: 'http', TRAWL_WORKER_PORT: String(workerPort), TRAWL_WORKER_HOST: '127.0.0.1',
        TRAWL_BROWSER_FALLBACK: 'false', TRAWL_DOCUMENT_PARSING: 'false', ...workerEnv,
      },
      readyUrl: `http://127.0.0.1:${workerPort}/health/ready`, metricsUrl: `http://127.0.0.1:${workerPort}/metrics`,
    });
    services.push(worker);
    await worker.waitReady();
    const api = await addApi('api');
    return {
      dir, redis, api, worker, addApi,
      /** Log lines of every service at warn level or above (pino's JSON lines, not the inspector's banner). */
      logs() {
        return services.map((s) => ({
          name: s.name, file: s.logFile,
          lines: readFileSync(s.logFile, 'utf8').split('\n').filter((l) => l.startsWith('{')),
        }));
      },
      async close({ keepLogs = false } = {}) {
        const exits = [];
        for (const s of [...services].reverse()) exits.push({ name: s.name, ...(await s.stop()) });
        await redis.stop();
        process.removeListener('exit', killAll);
        if (!keepLogs) rmSync(dir, { recursive: true, force: true });
        return exits;
      },
    };
  } catch (err) {
    killAll();
    process.removeListener('exit', killAll);
    throw new Error(`cluster did not start (logs in ${dir}): ${err.message}`, { cause: err });
  }
}

/**
 * Bytes Redis holds per key family (ids and numbers replaced by `*`), from MEMORY USAGE of every key:
 * what a run leaves behind, by owner. Largest first.
 */
export async function redisKeyFamilies(url) {
  const { Redis } = await import(join(ROOT, 'packages/queue/node_modules/ioredis/built/index.js'));
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    const families = new Map();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'COUNT', 1000);
      cursor = next;
      const pipe = redis.pipeline();
      for (const key of keys) pipe.memory('USAGE', key);
      const sizes = await pipe.exec();
      keys.forEach((key, i) => {
        const family = key
          .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '*')
          .replace(/\{[0-9a-f]{1,4}\}/g, '{*}') // hash tags that spread one family over slots
          .replace(/\b[0-9a-f]{16,}\b|\b\d+\b/g, '*');
        const f = families.get(family) ?? { family, keys: 0, bytes: 0 };
        f.keys += 1;
        f.bytes += Number(sizes[i][1] ?? 0);
        families.set(family, f);
      });
    } while (cursor !== '0');
    const usedMemory = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1]);
    return { usedMemory, families: [...families.values()].sort((a, b) => b.bytes - a.bytes) };
  } finally {
    redis.disconnect();
  }
}

/**
 * The origin: corpus pages on loopback, each answered after `thinkMs` (a real site's server time).
 * `/<i>` is page i modulo the page count. Counts the requests it served.
 */
export async function startOrigin({ corpus, pages, thinkMs }) {
  const bodies = readdirSync(corpus).sort().slice(0, pages).map((d) => readFileSync(join(corpus, d, 'source.html')));
  const origin = {
    served: 0, pages: bodies.length,
    server: createServer((req, res) => {
      const i = Number.parseInt((req.url ?? '/0').slice(1), 10) || 0;
      origin.served += 1;
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(bodies[i % bodies.length]);
      }, thinkMs);
    }),
  };
  await new Promise((resolve) => origin.server.listen(0, '127.0.0.1', resolve));
  origin.url = `http://127.0.0.1:${origin.server.address().port}`;
  origin.close = () => new Promise((resolve) => {
    origin.server.closeAllConnections();
    origin.server.close(() => resolve());
  });
  return origin;
}
