import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getFreePort } from './free-port.js';

/** A real `redis-server` child on a free loopback port, for integration tests. */
export class RedisServerFixture {
  readonly port: number;
  readonly dir: string;
  private child: ChildProcess | undefined;

  private constructor(port: number, dir: string) {
    this.port = port;
    this.dir = dir;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts redis-server with AOF on in a fresh temporary folder; resolves when it accepts connections. */
  static async start(opts: { appendonly?: boolean } = {}): Promise<RedisServerFixture> {
    const fixture = new RedisServerFixture(await getFreePort(), mkdtempSync(join(tmpdir(), 'trawl-redis-')));
    await fixture.spawn(opts.appendonly ?? true);
    return fixture;
  }

  private spawn(appendonly: boolean): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--save', '',
      '--appendonly', appendonly ? 'yes' : 'no', '--maxmemory-policy', 'noeviction'];
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    return new Promise((resolve, reject) => {
      let out = '';
      const onData = (d: Buffer) => {
        out += d.toString();
        if (out.includes('Ready to accept connections')) {
          child.stdout?.off('data', onData);
          child.stdout?.resume();
          resolve();
        }
      };
      child.stdout?.on('data', onData);
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${out.slice(-500)}`)));
    });
  }

  /** Stops and starts the server again on the same port and data folder (AOF replays). */
  async restart(): Promise<void> {
    await this.kill('SIGTERM');
    await this.spawn(true);
  }

  private kill(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      child.removeAllListeners('exit');
      child.once('exit', () => resolve());
      child.kill(signal);
    });
  }

  async stop(): Promise<void> {
    await this.kill('SIGTERM');
    rmSync(this.dir, { recursive: true, force: true });
  }
}
