import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RedisProcess } from '@trawl/queue';

/** A real `redis-server` child on a free loopback port in a temporary folder, for integration tests. */
export class RedisServerFixture {
  private constructor(private readonly proc: RedisProcess, readonly dir: string) {}

  get url(): string {
    return this.proc.url;
  }

  get port(): number {
    return this.proc.port;
  }

  static async start(opts: { appendonly?: boolean } = {}): Promise<RedisServerFixture> {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-redis-'));
    const proc = new RedisProcess({ dir, ...(opts.appendonly === undefined ? {} : { appendonly: opts.appendonly }) });
    await proc.start();
    return new RedisServerFixture(proc, dir);
  }

  /** Stops and starts the server on the same port and folder (AOF replays). */
  restart(): Promise<void> {
    return this.proc.restart();
  }

  /** Stops the server and keeps its folder: {@link up} starts it again on the same port (AOF replays). */
  async down(): Promise<void> {
    await this.proc.stop();
  }

  async up(): Promise<void> {
    await this.proc.start();
  }

  /**
   * Freezes the server (SIGSTOP) until {@link resume}: connections stay open and commands get no
   * answer, as with a server stalled on a busy machine.
   */
  pause(): void {
    if (this.proc.pid !== undefined) process.kill(this.proc.pid, 'SIGSTOP');
  }

  resume(): void {
    if (this.proc.pid !== undefined) process.kill(this.proc.pid, 'SIGCONT');
  }

  async stop(): Promise<void> {
    this.resume();
    await this.proc.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
