import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '@trawl/queue';
import { killChild, spawnRedisServer } from './redis-child.js';
import { waitFor } from './wait-for.js';

/** Hash slots of a Redis Cluster. */
const SLOTS = 16384;

interface ClusterNodeProcess {
  port: number;
  busPort: number;
  child: ChildProcess;
}

/**
 * A real Redis Cluster of `redis-server` children for integration tests: `masters` primaries (3 by
 * default), no replicas, the 16384 slots split evenly, on loopback ports picked free (the cluster
 * bus gets its own free port: `cluster-port`, as port + 10000 may be taken). `url` is the
 * `redis+cluster://` URL Trawl's `REDIS_URL` takes.
 */
export class RedisClusterFixture {
  /** Replicas ({@link addReplica}), stopped with the primaries. */
  private readonly replicas: ClusterNodeProcess[] = [];

  private constructor(private readonly nodes: ClusterNodeProcess[], readonly dir: string) {}

  /** `host:port` of every primary. */
  get addresses(): string[] {
    return this.nodes.map((n) => `127.0.0.1:${n.port}`);
  }

  get url(): string {
    return `redis+cluster://${this.addresses.join(',')}`;
  }

  get ports(): number[] {
    return this.nodes.map((n) => n.port);
  }

  static async start(opts: { masters?: number } = {}): Promise<RedisClusterFixture> {
    const count = opts.masters ?? 3;
    const dir = mkdtempSync(join(tmpdir(), 'trawl-redis-cluster-'));
    const nodes: ClusterNodeProcess[] = [];
    const fixture = new RedisClusterFixture(nodes, dir);
    try {
      // Started together: a new primary reports the cluster ok only ~2 s after its own start
      // (Redis' writable delay), so the nodes' delays run at once.
      const ports: number[] = [];
      while (ports.length < count * 2) {
        const port = await freePort();
        if (!ports.includes(port)) ports.push(port);
      }
      const started = await Promise.allSettled(Array.from({ length: count }, (_, i) => startNode(join(dir, `node-${i}`), i, ports[2 * i]!, ports[2 * i + 1]!)));
      for (const r of started) if (r.status === 'fulfilled') nodes.push(r.value);
      const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
      await fixture.form();
    } catch (err) {
      await fixture.stop();
      throw err;
    }
    return fixture;
  }

  /** Slots split evenly, the nodes meet, then it waits until each node sees the cluster ok. */
  private async form(): Promise<void> {
    const clients = this.nodes.map((n) => new Redis({ host: '127.0.0.1', port: n.port, lazyConnect: false }));
    try {
      const per = Math.ceil(SLOTS / clients.length);
      await Promise.all(clients.map((c, i) => c.call('CLUSTER', 'ADDSLOTSRANGE', String(i * per), String(Math.min(SLOTS, (i + 1) * per) - 1))));
      // Every node meets every other (no waiting for gossip to introduce them).
      await Promise.all(clients.flatMap((c, i) => this.nodes.slice(i + 1).map((n) => c.call('CLUSTER', 'MEET', '127.0.0.1', String(n.port), String(n.busPort)))));
      await waitFor(async () => {
        const infos = await Promise.all(clients.map((c) => c.call('CLUSTER', 'INFO') as Promise<string>));
        return infos.every((info) => /cluster_state:ok/.test(info) && new RegExp(`cluster_known_nodes:${clients.length}\\b`).test(info));
      }, { what: 'the Redis Cluster to form', timeoutMs: 30_000 });
    } finally {
      for (const c of clients) c.disconnect();
    }
  }

  /**
   * Starts a replica of primary `index` and waits until it has synced: when that primary fails
   * (frozen past `cluster-node-timeout`, 5 s here), the replica takes its slots over.
   */
  async addReplica(index: number): Promise<void> {
    const primary = this.nodes[index];
    if (!primary) throw new RangeError(`no primary ${index}`);
    let port = await freePort();
    let busPort = await freePort();
    while (busPort === port) busPort = await freePort();
    const replica = await startNode(join(this.dir, `replica-${this.replicas.length}`), this.nodes.length + this.replicas.length, port, busPort);
    this.replicas.push(replica);
    port = replica.port;
    const client = new Redis({ host: '127.0.0.1', port, lazyConnect: false });
    const primaryClient = new Redis({ host: '127.0.0.1', port: primary.port, lazyConnect: false });
    try {
      const primaryId = String(await primaryClient.call('CLUSTER', 'MYID'));
      await client.call('CLUSTER', 'MEET', '127.0.0.1', String(primary.port), String(primary.busPort));
      // REPLICATE needs the primary to be known to the new node first (gossip after the MEET).
      await waitFor(async () => String(await client.call('CLUSTER', 'NODES')).includes(primaryId), { what: 'the replica to know its primary', timeoutMs: 30_000 });
      await client.call('CLUSTER', 'REPLICATE', primaryId);
      await waitFor(async () => /master_link_status:up/.test(await client.info('replication')), { what: 'the replica to sync', timeoutMs: 30_000 });
      const all = [...this.nodes, ...this.replicas];
      await waitFor(async () => {
        const infos = await Promise.all(all.map(async (n) => {
          const c = new Redis({ host: '127.0.0.1', port: n.port, lazyConnect: false });
          try {
            return String(await c.call('CLUSTER', 'INFO'));
          } finally {
            c.disconnect();
          }
        }));
        return infos.every((info) => /cluster_state:ok/.test(info) && new RegExp(`cluster_known_nodes:${all.length}\\b`).test(info));
      }, { what: 'every node to know the replica', timeoutMs: 30_000 });
    } finally {
      client.disconnect();
      primaryClient.disconnect();
    }
  }

  /**
   * Freezes primary `index` (SIGSTOP) until {@link resume}: its connections stay open and commands
   * get no answer, as with a node stalled on a busy machine or cut off by a partition.
   */
  pause(index: number): void {
    const pid = this.nodes[index]?.child.pid;
    if (pid !== undefined) process.kill(pid, 'SIGSTOP');
  }

  resume(index: number): void {
    const pid = this.nodes[index]?.child.pid;
    if (pid !== undefined) process.kill(pid, 'SIGCONT');
  }

  /** Stops every node (SIGKILL: a test cluster keeps nothing) and removes the folder. */
  async stop(): Promise<void> {
    await Promise.all([...this.nodes, ...this.replicas].map((n) => killChild(n.child)));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

async function startNode(dir: string, index: number, port: number, busPort: number): Promise<ClusterNodeProcess> {
  mkdirSync(dir); // one folder per node: nodes.conf is per node
  const child = await spawnRedisServer([
    '--port', String(port), '--cluster-port', String(busPort), '--bind', '127.0.0.1', '--dir', dir,
    '--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '5000',
    '--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction', '--daemonize', 'no',
    // A replica (addReplica) syncs through a file at once: the default diskless sync first waits 5 s for more replicas.
    '--repl-diskless-sync', 'no',
  ], port, `cluster node ${index}`);
  return { port, busPort, child };
}
