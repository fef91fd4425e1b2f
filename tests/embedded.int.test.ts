/**
 * Supervision of the embedded mode (`npm start`), against the built CLI: signals reach the whole
 * tree, a killed redis-server comes back (requests answer 503 meanwhile), shutdown never waits on a
 * dead Redis, a leftover redis-server on the data folder is stopped (or a live owner refused), and
 * the Redis files and port are the owner's only.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, readdirSync, readlinkSync, realpathSync, rmSync, statSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FixtureSite } from '@trawl/testing';
import { pingRedis } from '@trawl/queue';

const ROOT = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');

interface Running {
  child: ChildProcess;
  dir: string;
  url: string;
  key: string;
  output(): string;
}

const started: ChildProcess[] = [];
const dirs: string[] = [];
const strayPids = new Set<number>();

function procRead(pid: number, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined;
  }
}

/** Exists and is not a zombie (an orphan's zombie may wait long for a reaper that never comes). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return !/^\d+ \(.*\) Z/.test(procRead(pid, 'stat') ?? '');
}

/** Every process under `root` (by parent pid), with its command line. */
function descendants(root: number): Map<number, string> {
  const parents = new Map<number, number>();
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    const m = /^\d+ \(.*\) \S (\d+)/.exec(procRead(Number(e), 'stat') ?? '');
    if (m) parents.set(Number(e), Number(m[1]));
  }
  const found = new Map<number, string>();
  const walk = (pid: number) => {
    for (const [child, parent] of parents) {
      if (parent === pid && !found.has(child)) {
        found.set(child, (procRead(child, 'cmdline') ?? '').replace(/\0/g, ' ').trim());
        walk(child);
      }
    }
  };
  walk(root);
  return found;
}

async function waitFor<T>(what: string, fn: () => T | Promise<T>, ok: (v: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`${what}: still ${JSON.stringify(v)?.slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** The redis-server working in `<dir>/redis` (redis chdirs to its `--dir`), and its port. */
function redisPid(dir: string): { pid: number; port: number } {
  const folder = realpathSync(join(dir, 'redis'));
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e) || procRead(Number(e), 'comm')?.trim() !== 'redis-server') continue;
    try {
      if (readlinkSync(`/proc/${e}/cwd`) !== folder || !alive(Number(e))) continue;
    } catch {
      continue;
    }
    const port = /:(\d+)/.exec(procRead(Number(e), 'cmdline') ?? '');
    if (port) return { pid: Number(e), port: Number(port[1]) };
  }
  throw new Error(`no redis-server on ${folder}`);
}

function newDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'trawl-embedded-'));
  dirs.push(dir);
  return dir;
}

const baseEnv = (dir: string) => ({
  ...process.env, TRAWL_DATA_DIR: dir, PORT: '0', TRAWL_WORKER_ROLES: 'http', LOG_LEVEL: 'info', TRAWL_ALLOW_PRIVATE_TARGETS: 'true',
});

/** Resolves with the API URL once the process printed its banner; rejects if it exits first. */
function banner(child: ChildProcess, output: () => string, events: EventEmitter): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const m = /Base URL:\s+(http\S+)/.exec(output());
      if (!m) return;
      events.off('data', check);
      child.off('exit', onExit);
      resolve(m[1]!);
    };
    const onExit = (code: number | null) => reject(new Error(`exited early (${code}): ${output().slice(-2000)}`));
    events.on('data', check);
    child.once('exit', onExit);
    check();
  });
}

/** `command args` in its own process group, its output collected. */
async function launch(command: string, args: string[], dir: string): Promise<Running> {
  const child = spawn(command, args, { cwd: ROOT, env: baseEnv(dir), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  started.push(child);
  let out = '';
  const events = new EventEmitter();
  const collect = (d: Buffer) => {
    out += d.toString();
    events.emit('data');
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const output = () => out;
  const url = await banner(child, output, events);
  strayPids.add(redisPid(dir).pid);
  return { child, dir, url, key: readFileSync(join(dir, 'api-key'), 'utf8').trim(), output };
}

const startCli = (dir: string) => launch(process.execPath, [join(ROOT, 'apps/cli/dist/main.js'), 'start'], dir);

async function call(r: Running, path: string, key: string | null = r.key) {
  // A request that hangs fails the test here instead of passing late.
  const res = await fetch(r.url + path, { headers: key ? { authorization: `Bearer ${key}` } : {}, signal: AbortSignal.timeout(30_000) });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Record<string, unknown> };
}

/**
 * SIGKILLs the embedded redis-server and takes its port, so the supervisor cannot bring it back
 * until `release` (Redis stays down as long as the test wants).
 */
async function killRedisAndHoldPort(dir: string): Promise<{ server: Server; release: () => Promise<void> }> {
  const { pid, port } = redisPid(dir);
  process.kill(pid, 'SIGKILL');
  const server = await waitFor('port of the killed redis-server free', () => new Promise<Server | null>((resolve) => {
    const s = createServer((sock) => sock.destroy());
    s.once('error', () => resolve(null));
    s.listen(port, '127.0.0.1', () => resolve(s));
  }).then((s) => {
    // The supervisor was quicker: kill the new server too and try again.
    if (!s) {
      try {
        const now = redisPid(dir);
        if (now.pid !== pid && alive(now.pid)) process.kill(now.pid, 'SIGKILL');
      } catch {
        // pid file being rewritten
      }
    }
    return s;
  }), (s) => s !== null, 30_000);
  return { server: server!, release: () => new Promise<void>((r) => server!.close(() => r())) };
}

/** The raw reply of an unauthenticated PING. */
function rawPing(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connect({ port, host: '127.0.0.1' });
    sock.once('error', reject);
    sock.once('data', (d) => {
      sock.destroy();
      resolve(d.toString());
    });
    sock.write('PING\r\n');
  });
}

let site: FixtureSite;
const siteEvents = new EventEmitter();
beforeAll(async () => {
  const links = Array.from({ length: 20 }, (_, i) => `<a href="/slow/${i}">page ${i}</a>`).join('');
  site = await new FixtureSite()
    .page('/', `<html><head><title>home</title></head><body>${links}</body></html>`)
    .route('/slow/0', async (req, res) => {
      siteEvents.emit('slow');
      // Held until the worker gives up on it (the Ctrl-C under test): the crawl is mid-flight then.
      await new Promise((r) => req.socket.once('close', r));
      if (!res.writableEnded) res.end('<html><body>slow</body></html>');
    })
    .start();
}, 30_000);

afterEach(async () => {
  for (const c of started.splice(0)) {
    if (c.exitCode === null && c.signalCode === null && c.pid) {
      try {
        process.kill(-c.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
  for (const pid of strayPids) if (alive(pid)) process.kill(pid, 'SIGKILL');
  strayPids.clear();
});

afterAll(async () => {
  await site.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('embedded mode supervision', () => {
  it('SIGTERM to `npm start` (the outermost pid) stops npm, the launcher, the server and redis-server', async () => {
    const dir = newDataDir();
    const r = await launch('npm', ['start'], dir);
    const tree = descendants(r.child.pid!);
    const cmds = [...tree.values()];
    expect(cmds.some((c) => c.includes('scripts/start.mjs'))).toBe(true);
    expect(cmds.some((c) => c.includes('apps/cli/dist/main.js start'))).toBe(true);
    expect(tree.has(redisPid(dir).pid)).toBe(true);
    const pids = [r.child.pid!, ...tree.keys()];
    for (const p of tree.keys()) strayPids.add(p);

    process.kill(r.child.pid!, 'SIGTERM');
    await waitFor('every process of the tree gone', () => pids.filter(alive).map((p) => `${p} ${tree.get(p) ?? 'npm'}`), (left) => left.length === 0);
  }, 120_000);

  it('the launcher SIGKILLed (nothing forwarded): the server notices and stops, Redis included', async () => {
    const dir = newDataDir();
    const r = await launch(process.execPath, ['scripts/start.mjs'], dir);
    const tree = descendants(r.child.pid!);
    for (const p of tree.keys()) strayPids.add(p);
    expect(tree.size).toBeGreaterThanOrEqual(2);
    r.child.kill('SIGKILL');
    await waitFor('server and redis-server gone', () => [...tree.keys()].filter(alive).map((p) => `${p} ${tree.get(p)}`), (left) => left.length === 0);
  }, 120_000);

  it('a SIGKILLed redis-server: 503 SERVICE_UNAVAILABLE at once while down, restarted with its data, throttled logs; SIGTERM while it is down exits', async () => {
    const dir = newDataDir();
    const r = await startCli(dir);
    expect((await call(r, '/v2/concurrency-check')).status).toBe(200);
    const before = redisPid(dir);

    const down = await killRedisAndHoldPort(dir);
    const from = r.output().length;
    const failed = await call(r, '/v2/concurrency-check');
    expect(failed).toMatchObject({ status: 503, body: { success: false, code: 'SERVICE_UNAVAILABLE' } });
    expect(Number(failed.retryAfter)).toBeGreaterThan(0);
    expect((await call(r, '/health/ready', null)).status).toBe(503);
    expect((await call(r, '/health/live', null)).status).toBe(200);
    // Several failed restarts (and many reconnection attempts of every client) later: still only
    // structured, throttled lines, none printed raw per attempt.
    await waitFor('three failed restarts', () => r.output().slice(from).split('\n').filter((l) => l.includes('embedded redis-server restart failed')).length, (n) => n >= 3);
    const lines = r.output().slice(from).split('\n').filter((l) => l.trim() !== '');
    const raw = lines.filter((l) => !l.startsWith('{'));
    expect(raw.slice(0, 5)).toEqual([]);
    const connectionErrors = lines.filter((l) => l.includes('"redis connection error"') || l.includes('"bullmq worker error"'));
    expect(connectionErrors.length).toBeLessThanOrEqual(10);
    expect((await call(r, '/v2/concurrency-check')).status).toBe(503);

    await down.release();
    await waitFor('ready again', async () => (await call(r, '/health/ready', null)).status, (s) => s === 200);
    // The API key lives in Redis (AOF): it still works.
    expect(await call(r, '/v2/concurrency-check')).toMatchObject({ status: 200, body: { success: true } });
    const after = redisPid(dir);
    expect(after.pid).not.toBe(before.pid);
    expect(after.port).toBe(before.port);
    strayPids.add(after.pid);

    // Down again, and stopped meanwhile: the exit does not wait for Redis.
    const again = await killRedisAndHoldPort(dir);
    r.child.kill('SIGTERM');
    expect(await exitOf(r.child)).toBe(0);
    await again.release();
    expect(alive(after.pid)).toBe(false);
  }, 180_000);

  it('Ctrl-C to the whole process group mid-crawl exits, Redis included', async () => {
    const dir = newDataDir();
    const r = await startCli(dir);
    const slowHit = new Promise((resolve) => siteEvents.once('slow', resolve));
    const res = await fetch(r.url + '/v2/crawl', {
      method: 'POST',
      headers: { authorization: `Bearer ${r.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: site.url('/'), limit: 30, sitemap: 'skip' }),
    });
    expect(res.status).toBe(200);
    await slowHit;
    const redis = redisPid(dir).pid;
    process.kill(-r.child.pid!, 'SIGINT');
    expect(await exitOf(r.child)).toBe(0);
    await waitFor('redis-server gone', () => alive(redis), (a) => !a);
  }, 120_000);

  it('a leftover redis-server on the folder is stopped on start; a live owner is refused', async () => {
    const dir = newDataDir();
    const first = await startCli(dir);
    const firstRedis = redisPid(dir).pid;

    // A second start on the same folder while the first runs: refused, the first untouched.
    const second = spawn(process.execPath, [join(ROOT, 'apps/cli/dist/main.js'), 'start'], { cwd: ROOT, env: baseEnv(dir), stdio: ['ignore', 'pipe', 'pipe'] });
    started.push(second);
    let secondOut = '';
    second.stderr?.on('data', (d: Buffer) => (secondOut += d.toString()));
    expect(await exitOf(second)).toBe(1);
    expect(secondOut).toMatch(/another Trawl \(pid \d+\) is running with this data folder/);
    expect(alive(firstRedis)).toBe(true);
    expect((await call(first, '/v2/concurrency-check')).status).toBe(200);

    // The server SIGKILLed: its redis-server is left behind; the next start stops it and goes on
    // with the same data.
    first.child.kill('SIGKILL');
    await exitOf(first.child);
    expect(alive(firstRedis)).toBe(true);
    const next = await startCli(dir);
    expect(alive(firstRedis)).toBe(false);
    expect(next.output()).toContain('stopped a redis-server left running on the data folder');
    expect(redisPid(dir).pid).not.toBe(firstRedis);
    expect((await call(next, '/v2/concurrency-check')).status).toBe(200);
    next.child.kill('SIGTERM');
    expect(await exitOf(next.child)).toBe(0);
  }, 120_000);

  it('Redis files are the owner\'s only, and the port asks for the generated password', async () => {
    const dir = newDataDir();
    const r = await startCli(dir);
    const mode = (p: string) => statSync(p).mode & 0o777;
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, 'redis'))).toBe(0o700);
    expect(mode(join(dir, 'redis-password'))).toBe(0o600);
    const aof = join(dir, 'redis', 'appendonlydir');
    for (const f of readdirSync(aof)) expect(mode(join(aof, f)) & 0o077).toBe(0);
    const { port } = redisPid(dir);
    expect(await rawPing(port)).toMatch(/^-NOAUTH/);
    const password = readFileSync(join(dir, 'redis-password'), 'utf8').trim();
    expect(password.length).toBeGreaterThanOrEqual(32);
    expect(await pingRedis(port, password)).toBe(true);
    r.child.kill('SIGTERM');
    expect(await exitOf(r.child)).toBe(0);
  }, 60_000);
});
