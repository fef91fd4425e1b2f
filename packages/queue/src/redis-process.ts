import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { readRedisPidFile, reclaimRedisFolder } from './redis-orphan.js';

/** What a supervised `redis-server` child went through (for the owner's log). */
export type RedisProcessEvent =
  | { type: 'exited'; pid: number | undefined; code: number | null; signal: NodeJS.Signals | null }
  | { type: 'restarted'; pid: number | undefined; attempt: number }
  | { type: 'restart-failed'; attempt: number; retryInMs: number; err: unknown }
  | { type: 'orphan-stopped'; pid: number };

/** Options of a `redis-server` child process. */
export interface RedisProcessOptions {
  /** Data folder (AOF files). Created when missing, mode 0700; the child runs with umask 077. */
  dir: string;
  /** Port on 127.0.0.1; 0 picks a free one. Default 0. */
  port?: number;
  /** Append-only file persistence. Default true (teams, keys and jobs survive a restart). */
  appendonly?: boolean;
  /** `redis-server` executable. Default `redis-server` from PATH. */
  binary?: string;
  /** How long to wait for the server to answer PING, ms. Default 15000. */
  startTimeoutMs?: number;
  /**
   * `requirepass` of the server (written to a 0600 config file in `dir`, never on the command line);
   * the URL carries it. Default none (the test fixture).
   */
  password?: string;
  /**
   * Restart the server (same port, same folder: the AOF replays) when it exits without `stop()`,
   * with backoff; `onEvent` hears of each exit and restart. Default false.
   */
  supervise?: boolean;
  /** Exits, restarts and orphans handled, for the owner's log. */
  onEvent?: (event: RedisProcessEvent) => void;
  /**
   * Own process group, so a Ctrl-C to the terminal's group reaches the owner only and the owner
   * stops Redis last (after its clients). Default false.
   */
  detached?: boolean;
  /**
   * Keep `redis-server.pid` in `dir`, and on start stop a `redis-server` left running on `dir` by
   * an owner that is gone (or refuse when its owner is alive): never two servers on one AOF folder.
   * Default false.
   */
  exclusive?: boolean;
}

/** Restart backoff: doubles per quick failure, from 250 ms up to 10 s. */
const RESTART_MIN_MS = 250;
const RESTART_MAX_MS = 10_000;
/** A server that ran this long before dying resets the backoff. */
const HEALTHY_AFTER_MS = 30_000;
/** After SIGTERM, how long a server gets to write its AOF before SIGKILL. */
const STOP_KILL_AFTER_MS = 10_000;

/** A port free on loopback now (the OS picks it; closed again before a server takes it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

/**
 * One PING over a raw socket (after AUTH when there is a password): true when the server answers
 * +PONG (it has loaded its AOF).
 */
export function pingRedis(port: number, password?: string): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect({ port, host: '127.0.0.1' });
    const lines = password ? 2 : 1;
    let buf = '';
    const done = (ok: boolean) => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(500, () => done(false));
    sock.once('error', () => done(false));
    sock.on('data', (d) => {
      buf += d.toString();
      const got = buf.split('\r\n');
      if (got.length > lines) done(got[lines - 1]!.startsWith('+PONG'));
    });
    sock.write(password ? `AUTH ${password}\r\nPING\r\n` : 'PING\r\n');
  });
}

/**
 * A `redis-server` child on loopback: the embedded mode's Redis (supervised, password, exclusive
 * folder), and the integration tests' Redis. It never evicts (queues must not lose keys).
 */
export class RedisProcess {
  private child: ChildProcess | undefined;
  private stopping = false;
  private restartTimer: NodeJS.Timeout | undefined;
  private launching: Promise<void> | undefined;
  private failures = 0;
  private startedAt = 0;
  port = 0;

  constructor(private readonly opts: RedisProcessOptions) {}

  get url(): string {
    const auth = this.opts.password ? `:${encodeURIComponent(this.opts.password)}@` : '';
    return `redis://${auth}127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  private get pidFile(): string {
    return join(this.opts.dir, 'redis-server.pid');
  }

  /** Starts the server; resolves once it answers PING. */
  async start(): Promise<this> {
    // Already running (or starting): a second server on the same port and folder would orphan the first.
    if (this.launching) {
      await this.launching;
      return this;
    }
    if (this.child && this.child.exitCode === null && this.child.signalCode === null) return this;
    this.stopping = false;
    mkdirSync(this.opts.dir, { recursive: true, mode: 0o700 });
    chmodSync(this.opts.dir, 0o700);
    if (this.opts.exclusive) {
      const stopped = await reclaimRedisFolder(this.opts.dir, this.opts.password);
      for (const pid of stopped) this.opts.onEvent?.({ type: 'orphan-stopped', pid });
      // Same port as last time when free: clients configured before keep working.
      if (!this.port && !this.opts.port) this.port = readRedisPidFile(this.opts.dir)?.port ?? 0;
      if (this.port && !(await portFree(this.port))) this.port = 0;
    }
    if (!this.port) this.port = this.opts.port || (await freePort());
    const launch = this.launch();
    this.launching = launch;
    try {
      await launch;
    } finally {
      this.launching = undefined;
    }
    return this;
  }

  private async launch(): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.opts.dir, '--save', '',
      '--appendonly', this.opts.appendonly === false ? 'no' : 'yes', '--maxmemory-policy', 'noeviction',
      '--daemonize', 'no'];
    if (this.opts.password) {
      // In a 0600 file: a password on the command line would show in `ps` to every user.
      const conf = join(this.opts.dir, 'redis.conf');
      writeFileSync(conf, `requirepass "${this.opts.password}"\n`, { mode: 0o600 });
      chmodSync(conf, 0o600);
      args.unshift(conf);
    }
    // The AOF files are created by the child: umask 077 keeps them owner-only. The umask is the
    // process's, so it is set just around the (synchronous) fork.
    const previous = setUmask(0o077);
    let child: ChildProcess;
    try {
      child = spawn(this.opts.binary ?? 'redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'], detached: this.opts.detached ?? false });
    } finally {
      if (previous !== undefined) setUmask(previous);
    }
    this.child = child;
    const { exited, output } = watchRedisChild(child, 'redis-server');
    const deadline = Date.now() + (this.opts.startTimeoutMs ?? 15_000);
    while (Date.now() < deadline) {
      const ok = await Promise.race([pingRedis(this.port, this.opts.password), exited]).catch((err: unknown) => {
        if (this.child === child) this.child = undefined;
        throw err;
      });
      if (ok) {
        this.startedAt = Date.now();
        if (this.opts.exclusive && child.pid) {
          writeFileSync(this.pidFile, JSON.stringify({ pid: child.pid, port: this.port, ownerPid: process.pid }) + '\n', { mode: 0o600 });
        }
        child.once('exit', (code, signal) => this.onExit(child, code, signal));
        return;
      }
      await sleep(25);
    }
    child.kill('SIGKILL');
    if (this.child === child) this.child = undefined;
    throw new Error(`redis-server did not answer on port ${this.port} in time: ${output()}`);
  }

  /** An exit nobody asked for: supervised servers come back on the same port and folder. */
  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.child !== child || this.stopping) return;
    this.child = undefined;
    this.opts.onEvent?.({ type: 'exited', pid: child.pid, code, signal });
    if (!this.opts.supervise) return;
    this.failures = Date.now() - this.startedAt >= HEALTHY_AFTER_MS ? 0 : this.failures + 1;
    this.scheduleRestart();
  }

  private scheduleRestart(): void {
    const delay = Math.min(RESTART_MIN_MS * 2 ** Math.max(0, this.failures - 1), RESTART_MAX_MS);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.stopping) return;
      const attempt = this.failures;
      const launch = this.launch().then(
        () => this.opts.onEvent?.({ type: 'restarted', pid: this.child?.pid, attempt }),
        (err: unknown) => {
          this.failures += 1;
          if (this.stopping) return;
          this.opts.onEvent?.({ type: 'restart-failed', attempt, retryInMs: Math.min(RESTART_MIN_MS * 2 ** (this.failures - 1), RESTART_MAX_MS), err });
          this.scheduleRestart();
        },
      );
      this.launching = launch;
      void launch.finally(() => {
        if (this.launching === launch) this.launching = undefined;
      });
    }, delay);
  }

  /** Stops the server (SIGTERM: it finishes writing its AOF first) and any pending restart. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    await this.launching?.catch(() => undefined);
    const child = this.child;
    this.child = undefined;
    if (child && child.exitCode === null && child.signalCode === null) {
      await new Promise<void>((resolve) => {
        child.removeAllListeners('exit');
        const kill = setTimeout(() => child.kill('SIGKILL'), STOP_KILL_AFTER_MS);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        child.kill('SIGTERM');
      });
    }
    if (this.opts.exclusive) rmSync(this.pidFile, { force: true });
  }

  /** Stops and starts again on the same port and folder (the AOF replays). */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }
}

/** process.umask(mask), or undefined where it cannot be set (worker threads): the 0700 folder still guards. */
function setUmask(mask: number): number | undefined {
  try {
    return process.umask(mask);
  } catch {
    return undefined;
  }
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * What a starting `redis-server` child tells: the tail of its output (Redis logs to stdout: it explains
 * a failed start, a port taken or an unreadable AOF), and `exited`, which rejects with that tail
 * (`<label> exited with <code>: ...`) once the child exits or cannot be spawned. Its rejection is
 * handled here: race it against the start.
 */
export function watchRedisChild(child: ChildProcess, label: string): { exited: Promise<never>; output: () => string } {
  let output = '';
  const keep = (d: Buffer) => (output = (output + d.toString()).slice(-2000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<never>((_, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${label} exited with ${code}: ${output}`)));
  });
  exited.catch(() => undefined);
  return { exited, output: () => output };
}
