import { spawn, type ChildProcess } from 'node:child_process';
import { pingRedis, watchRedisChild } from '@trawl/queue';
import { waitFor } from './wait-for.js';

/**
 * Starts `redis-server` with `args` and resolves once it answers PING on `port`; rejects with the
 * last of its output if it exits first, and kills one that does not answer within 15 s. `label` names
 * it in errors. Shared by the Cluster and Sentinel fixtures (RedisServerFixture has RedisProcess).
 */
export async function spawnRedisServer(args: string[], port: number, label: string): Promise<ChildProcess> {
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const { exited } = watchRedisChild(child, `redis-server (${label})`);
  try {
    await Promise.race([waitFor(() => pingRedis(port), { what: `${label} to answer PING`, timeoutMs: 15_000, intervalMs: 25 }), exited]);
  } catch (err) {
    // Alive but not answering in time: not left running.
    await killChild(child);
    throw err;
  }
  return child;
}

/** SIGKILLs `child` (a test server keeps nothing) and resolves once it has exited. */
export function killChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
