import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '@trawl/queue';
import { killChild, spawnRedisServer } from './redis-child.js';
import { waitFor } from './wait-for.js';

interface SentinelProcess {
  port: number;
  child: ChildProcess;
}

/** A primary and its replica, watched by the Sentinel as `name`. */
interface WatchedPair {
  name: string;
  primary: SentinelProcess;
  replica: SentinelProcess;
}

/**
 * A real Redis Sentinel setup of `redis-server` children for integration tests: a primary, one
 * replica and one Sentinel (quorum 1) watching them as `name`, on free loopback ports. The Sentinel
 * takes a primary that has not answered for 3 s as down and fails over to the replica. Trawl takes
 * it as `REDIS_SENTINELS` = {@link sentinels} and `REDIS_SENTINEL_NAME` = {@link name}. With
 * `otherMaster`, the Sentinel also watches another primary and replica, {@link otherName}, as
 * Sentinels shared by several deployments do.
 */
export class RedisSentinelFixture {
  /** With a space: Redis allows one in a master's name, and the Sentinel's announcements carry it. */
  static readonly NAME = 'my master';
  static readonly OTHER_NAME = 'other master';
  readonly name = RedisSentinelFixture.NAME;
  readonly otherName = RedisSentinelFixture.OTHER_NAME;
  private readonly paused = new Set<SentinelProcess>();

  private constructor(
    private readonly primary: SentinelProcess,
    private readonly replica: SentinelProcess,
    private readonly sentinel: SentinelProcess,
    private readonly other: WatchedPair | undefined,
    readonly dir: string,
  ) {}

  /** The watched pairs. */
  private get pairs(): WatchedPair[] {
    return [{ name: this.name, primary: this.primary, replica: this.replica }, ...(this.other ? [this.other] : [])];
  }

  /** `host:port` of the Sentinel. */
  get sentinels(): string[] {
    return [`127.0.0.1:${this.sentinel.port}`];
  }

  /** The first primary's URL (after a failover, a replica's). */
  get primaryUrl(): string {
    return `redis://127.0.0.1:${this.primary.port}`;
  }

  static async start(options: { otherMaster?: boolean } = {}): Promise<RedisSentinelFixture> {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-redis-sentinel-'));
    const started: SentinelProcess[] = [];
    try {
      const ports: number[] = [];
      while (ports.length < (options.otherMaster ? 5 : 3)) {
        const port = await freePort();
        if (!ports.includes(port)) ports.push(port);
      }
      const [p, r, s, op, or] = ports as [number, number, number, number?, number?];
      const pair = async (name: string, primaryPort: number, replicaPort: number) => {
        const primary = await startServer(join(dir, `${name.replace(/\W/g, '-')}-primary`), primaryPort, []);
        started.push(primary);
        const replica = await startServer(join(dir, `${name.replace(/\W/g, '-')}-replica`), replicaPort, ['--replicaof', '127.0.0.1', String(primaryPort)]);
        started.push(replica);
        return { name, primary, replica };
      };
      const mine = await pair(RedisSentinelFixture.NAME, p, r);
      const other = op !== undefined && or !== undefined ? await pair(RedisSentinelFixture.OTHER_NAME, op, or) : undefined;
      mkdirSync(join(dir, 'sentinel'));
      const conf = join(dir, 'sentinel', 'sentinel.conf');
      writeFileSync(conf, [
        `port ${s}`, 'bind 127.0.0.1', `dir ${join(dir, 'sentinel')}`,
        ...[mine, ...(other ? [other] : [])].flatMap(({ name, primary }) => [
          `sentinel monitor "${name}" 127.0.0.1 ${primary.port} 1`,
          `sentinel down-after-milliseconds "${name}" 3000`,
          `sentinel failover-timeout "${name}" 5000`,
        ]),
      ].join('\n') + '\n');
      const sentinel = await startServer(join(dir, 'sentinel'), s, [], conf);
      started.push(sentinel);
      const fixture = new RedisSentinelFixture(mine.primary, mine.replica, sentinel, other, dir);
      await fixture.untilReady();
      return fixture;
    } catch (err) {
      await Promise.all(started.map(kill));
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  }

  /** Until each replica is in sync and the Sentinel knows it. */
  private async untilReady(): Promise<void> {
    const sentinel = new Redis({ host: '127.0.0.1', port: this.sentinel.port });
    try {
      for (const { name, replica: node } of this.pairs) {
        const replica = new Redis({ host: '127.0.0.1', port: node.port });
        try {
          await waitFor(async () => /master_link_status:up/.test(await replica.info('replication')), { what: `the replica of ${name} to sync`, timeoutMs: 30_000 });
        } finally {
          replica.disconnect();
        }
        // Found, connected to and heard from by the Sentinel (a failover picks only such a replica).
        await waitFor(async () => {
          const replicas = await sentinel.call('SENTINEL', 'REPLICAS', name) as string[][];
          const fields = replicas.length === 1 ? fieldsOf(replicas[0]!) : undefined;
          return fields?.flags === 'slave' && fields['master-link-status'] === 'ok' && Number(fields['info-refresh']) < 5000;
        }, { what: `the Sentinel to know the replica of ${name}`, timeoutMs: 30_000, intervalMs: 100 });
      }
    } finally {
      sentinel.disconnect();
    }
  }

  /** Port of the primary the Sentinel names now (for `name`, default {@link name}). */
  async currentPrimaryPort(name = this.name): Promise<number> {
    const sentinel = new Redis({ host: '127.0.0.1', port: this.sentinel.port });
    try {
      const [, port] = await sentinel.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name) as [string, string];
      return Number(port);
    } finally {
      sentinel.disconnect();
    }
  }

  /**
   * Fails {@link otherName} over to its replica (`SENTINEL FAILOVER`, nothing frozen) and resolves
   * once the Sentinel names the new primary.
   */
  async failOverOther(): Promise<void> {
    if (!this.other) throw new Error('started without otherMaster');
    const before = await this.currentPrimaryPort(this.otherName);
    const sentinel = new Redis({ host: '127.0.0.1', port: this.sentinel.port });
    try {
      await sentinel.call('SENTINEL', 'FAILOVER', this.otherName);
    } finally {
      sentinel.disconnect();
    }
    await waitFor(async () => (await this.currentPrimaryPort(this.otherName)) !== before, { what: `${this.otherName} to fail over`, timeoutMs: 30_000, intervalMs: 100 });
  }

  /**
   * Freezes the primary the Sentinel names now (SIGSTOP) until {@link resumePrimary}: its connections
   * stay open and nothing answers, as with a stalled VM or a partition. The Sentinel fails over to the
   * other. Resolves with the frozen one's port.
   */
  async pausePrimary(): Promise<number> {
    const port = await this.currentPrimaryPort();
    const node = [this.primary, this.replica].find((n) => n.port === port);
    if (node?.child.pid === undefined) throw new Error(`no data node on port ${port}`);
    process.kill(node.child.pid, 'SIGSTOP');
    this.paused.add(node);
    return port;
  }

  /** Resumes what {@link pausePrimary} froze. */
  resumePrimary(): void {
    for (const node of this.paused) if (node.child.pid !== undefined) process.kill(node.child.pid, 'SIGCONT');
    this.paused.clear();
  }

  /** Stops the Sentinel (SIGKILL); the data nodes go on. */
  async stopSentinel(): Promise<void> {
    await kill(this.sentinel);
  }

  /** Stops every process (SIGKILL: a test setup keeps nothing) and removes the folder. */
  async stop(): Promise<void> {
    this.resumePrimary();
    await Promise.all([...this.pairs.flatMap((pair) => [pair.primary, pair.replica]), this.sentinel].map(kill));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** `[name, value, name, value, ...]` (a SENTINEL reply) as an object. */
function fieldsOf(flat: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i]!] = flat[i + 1]!;
  return out;
}

function kill(p: SentinelProcess): Promise<void> {
  return killChild(p.child);
}

/** A `redis-server` (a Sentinel when `sentinelConf` is given) on `port`, answering PING. */
async function startServer(dir: string, port: number, extra: string[], sentinelConf?: string): Promise<SentinelProcess> {
  mkdirSync(dir, { recursive: true });
  const args = sentinelConf !== undefined
    ? [sentinelConf, '--sentinel']
    // A replica syncs through a file at once: the default diskless sync first waits 5 s for more replicas.
    : ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--repl-diskless-sync', 'no', ...extra];
  return { port, child: await spawnRedisServer(args, port, sentinelConf !== undefined ? `sentinel on ${port}` : `redis-server on ${port}`) };
}
