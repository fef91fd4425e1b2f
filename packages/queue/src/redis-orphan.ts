import { existsSync, readFileSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** `redis-server.pid` in the Redis folder: the server, its port and the process that started it. */
export interface RedisPidFile {
  pid: number;
  port: number;
  ownerPid: number;
}

/** How long a leftover server gets to shut down (SHUTDOWN or SIGTERM) before SIGKILL, ms. */
const ORPHAN_STOP_MS = 15_000;

export function readRedisPidFile(dir: string): RedisPidFile | undefined {
  try {
    const v = JSON.parse(readFileSync(join(dir, 'redis-server.pid'), 'utf8')) as Partial<RedisPidFile>;
    if (typeof v.pid === 'number' && typeof v.port === 'number' && typeof v.ownerPid === 'number') return v as RedisPidFile;
  } catch {
    // Missing or unreadable: the /proc scan still finds a leftover server.
  }
  return undefined;
}

function procRead(pid: number, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined;
  }
}

/** True while the process exists and is not a zombie (a zombie has released its files and port). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = procRead(pid, 'stat');
  return !stat || !/^\d+ \(.*\) Z/.test(stat);
}

function parentPid(pid: number): number | undefined {
  const stat = procRead(pid, 'stat');
  const m = stat && /^\d+ \(.*\) \S (\d+)/.exec(stat);
  return m ? Number(m[1]) : undefined;
}

/** `redis-server` processes whose working folder (redis chdirs to `--dir`) is `dir` (Linux /proc). */
function redisServersOn(dir: string): number[] {
  if (!existsSync('/proc')) return [];
  const real = realpathSync(dir);
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (procRead(pid, 'comm')?.trim() !== 'redis-server') continue;
    try {
      if (readlinkSync(`/proc/${pid}/cwd`) === real && alive(pid)) found.push(pid);
    } catch {
      // Another user's process, or gone meanwhile.
    }
  }
  return found;
}

/** SHUTDOWN over the protocol (the server writes its AOF, then exits). */
function shutdownCommand(port: number, password: string | undefined): Promise<void> {
  return new Promise((resolve) => {
    const sock = connect({ port, host: '127.0.0.1' });
    const done = () => {
      sock.destroy();
      resolve();
    };
    sock.setTimeout(2000, done);
    sock.once('error', done);
    sock.once('close', done);
    sock.write(`${password ? `AUTH ${password}\r\n` : ''}SHUTDOWN\r\n`);
  });
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Already gone.
  }
}

async function waitGone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!alive(pid)) return true;
    await sleep(50);
  }
  return !alive(pid);
}

/**
 * Makes `dir` free for a new `redis-server`: a server still running there whose owner (its parent
 * process) is gone is shut down cleanly (SHUTDOWN with the password, else SIGTERM; SIGKILL as a last
 * resort); one whose parent is a live Node process belongs to a running Trawl: refused with an error.
 * Returns the pids it stopped.
 */
export async function reclaimRedisFolder(dir: string, password: string | undefined): Promise<number[]> {
  const recorded = readRedisPidFile(dir);
  const stopped: number[] = [];
  for (const pid of redisServersOn(dir)) {
    const ppid = parentPid(pid);
    if (ppid !== undefined && ppid !== 1 && ppid !== process.pid && /node/.test(procRead(ppid, 'cmdline') ?? '')) {
      throw new Error(`another Trawl (pid ${ppid}) is running with this data folder (its redis-server is pid ${pid}, on ${dir}): stop it first, or use another TRAWL_DATA_DIR`);
    }
    const port = recorded?.pid === pid ? recorded.port : undefined;
    if (port) await shutdownCommand(port, password);
    if (!(await waitGone(pid, port ? ORPHAN_STOP_MS : 0))) {
      signal(pid, 'SIGTERM');
      if (!(await waitGone(pid, ORPHAN_STOP_MS))) {
        signal(pid, 'SIGKILL');
        await waitGone(pid, ORPHAN_STOP_MS);
      }
    }
    stopped.push(pid);
  }
  return stopped;
}
