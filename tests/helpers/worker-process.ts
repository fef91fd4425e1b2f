import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..', '..');

export interface WorkerProcess {
  child: ChildProcess;
  /** Port of the worker's /metrics and /health. */
  metricsPort: number;
  /** Everything the process printed so far (JSON log lines). */
  output(): string;
}

/**
 * A worker as a real OS process running the built code (so it can be signalled and killed);
 * `nodeArgs` go before the script (e.g. `--import` of a preload); `logLevel` default `info`.
 */
export async function spawnWorkerProcess(env: Record<string, string>, opts: { nodeArgs?: string[]; logLevel?: string } = {}): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), join(ROOT, 'apps/worker/dist/main.js')], {
    env: { ...process.env, ...env, LOG_LEVEL: opts.logLevel ?? 'info', TRAWL_WORKER_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const metricsPort = await new Promise<number>((resolve, reject) => {
    const onData = () => {
      const line = out.split('\n').find((l) => l.includes('"worker started"'));
      if (!line) return;
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      resolve(Number((JSON.parse(line) as { metricsPort: number }).metricsPort));
    };
    const onExit = (code: number | null) => reject(new Error(`worker exited early (${code}): ${out.slice(-1000)}`));
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
  });
  return { child, metricsPort, output: () => out };
}

/** A worker process (see spawnWorkerProcess). */
export async function spawnWorker(env: Record<string, string>): Promise<ChildProcess> {
  return (await spawnWorkerProcess(env)).child;
}

export function kill(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

/** Resolves with the exit code once the process ends (null when killed by a signal). */
export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}
