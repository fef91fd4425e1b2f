import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** Options of a `redis-server` child process. */
export interface RedisProcessOptions {
  /** Data folder (AOF files). Created when missing. */
  dir: string;
  /** Port on 127.0.0.1; 0 picks a free one. Default 0. */
  port?: number;
  /** Append-only file persistence. Default true (teams, keys and jobs survive a restart). */
  appendonly?: boolean;
  /** `redis-server` executable. Default `redis-server` from PATH. */
  binary?: string;
  /** How long to wait for the server to answer PING, ms. Default 15000. */
  startTimeoutMs?: number;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

/** One PING over a raw socket: true when the server answers +PONG (it has loaded its AOF). */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect({ port, host: '127.0.0.1' });
    const done = (ok: boolean) => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(500, () => done(false));
    sock.once('error', () => done(false));
    sock.once('data', (d) => done(d.toString().startsWith('+PONG')));
    sock.write('PING\r\n');
  });
}

/**
 * A `redis-server` child on loopback: the embedded mode's Redis, and the integration tests' Redis.
 * It never evicts (queues must not lose keys).
 */
export class RedisProcess {
  private child: ChildProcess | undefined;
  port = 0;

  constructor(private readonly opts: RedisProcessOptions) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts the server; resolves once it answers PING. */
  async start(): Promise<this> {
    mkdirSync(this.opts.dir, { recursive: true });
    if (!this.port) this.port = this.opts.port || (await freePort());
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.opts.dir, '--save', '',
      '--appendonly', this.opts.appendonly === false ? 'no' : 'yes', '--maxmemory-policy', 'noeviction',
      '--daemonize', 'no'];
    const child = spawn(this.opts.binary ?? 'redis-server', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    this.child = child;
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    const exited = new Promise<never>((_, reject) => {
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${stderr}`)));
    });
    exited.catch(() => undefined);
    const deadline = Date.now() + (this.opts.startTimeoutMs ?? 15_000);
    while (Date.now() < deadline) {
      const ok = await Promise.race([ping(this.port), exited]);
      if (ok) return this;
      await sleep(25);
    }
    child.kill('SIGKILL');
    throw new Error(`redis-server did not answer on port ${this.port} in time: ${stderr}`);
  }

  /** Stops the server (SIGTERM: it finishes writing its AOF first). */
  stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      child.removeAllListeners('exit');
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }

  /** Stops and starts again on the same port and folder (the AOF replays). */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }
}
