import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { freePort } from '@trawl/queue';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { requireBinary } from './prometheus-metrics.js';

/** One sample of an instant query: its labels and value. */
export interface Sample {
  metric: Record<string, string>;
  value: number;
}

/**
 * A real `prometheus` server on a loopback port with its TSDB in a temporary folder, scraping the
 * given targets every second and evaluating the given rule files every second.
 */
export class PrometheusServer {
  private output = '';

  private constructor(private readonly proc: ChildProcess, readonly url: string, private readonly dir: string) {
    proc.stdout?.on('data', (d: Buffer) => (this.output += d.toString()));
    proc.stderr?.on('data', (d: Buffer) => (this.output += d.toString()));
  }

  static async start(opts: { jobs: Record<string, string[]>; ruleFiles: string[] }): Promise<PrometheusServer> {
    const bin = requireBinary('prometheus');
    const dir = mkdtempSync(join(tmpdir(), 'trawl-prometheus-'));
    const config = {
      global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
      rule_files: opts.ruleFiles,
      scrape_configs: Object.entries(opts.jobs).map(([job, targets]) => ({ job_name: job, static_configs: [{ targets }] })),
    };
    writeFileSync(join(dir, 'prometheus.yml'), YAML.stringify(config));
    const port = await freePort();
    const proc = spawn(bin, [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ], { stdio: ['ignore', 'pipe', 'pipe'] });
    const server = new PrometheusServer(proc, `http://127.0.0.1:${port}`, dir);
    await server.until('ready', async () => (await fetch(`${server.url}/-/ready`).catch(() => undefined))?.ok === true, { timeoutMs: 20_000 });
    return server;
  }

  /** An instant query; throws on a PromQL error. */
  async query(expr: string): Promise<Sample[]> {
    const res = await fetch(`${this.url}/api/v1/query?${new URLSearchParams({ query: expr })}`);
    const body = (await res.json()) as { status: string; error?: string; data: { resultType: string; result: { metric: Record<string, string>; value: [number, string] }[] } };
    if (body.status !== 'success') throw new Error(`query ${expr}: ${body.error}`);
    if (body.data.resultType !== 'vector') throw new Error(`query ${expr}: ${body.data.resultType}, not a vector`);
    return body.data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
  }

  /** GET of a JSON API path (`/api/v1/rules`...), its `data`. */
  async api<T>(path: string): Promise<T> {
    const body = (await (await fetch(`${this.url}${path}`)).json()) as { status: string; data: T };
    if (body.status !== 'success') throw new Error(`${path}: ${JSON.stringify(body)}`);
    return body.data;
  }

  /**
   * Re-checks `check` until it returns a truthy value (Prometheus has no event to wait on: it shows a
   * change after its next scrape and rule evaluation). Throws with `what`, the last value and the
   * server's log when `timeoutMs` passes or the server exits.
   */
  async until<T>(what: string, check: () => Promise<T>, opts: { timeoutMs?: number } = {}): Promise<T> {
    const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
    let last: T | undefined;
    for (;;) {
      if (this.proc.exitCode !== null) throw new Error(`prometheus exited (${this.proc.exitCode}) waiting for ${what}:\n${this.output}`);
      last = await check();
      if (last) return last;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}\n${this.output}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** Polls an instant query until `accept` holds for its samples; returns them. */
  async untilQuery(expr: string, accept: (samples: Sample[]) => boolean, opts: { timeoutMs?: number } = {}): Promise<Sample[]> {
    let seen: Sample[] = [];
    try {
      await this.until(expr, async () => accept((seen = await this.query(expr))), opts);
    } catch (err) {
      throw new Error(`${(err as Error).message.split('\n')[0]}; samples: ${JSON.stringify(seen)}`, { cause: err });
    }
    return seen;
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode === null && this.proc.signalCode === null) {
      const exited = once(this.proc, 'exit');
      this.proc.kill('SIGTERM');
      const timer = setTimeout(() => this.proc.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
